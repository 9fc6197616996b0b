/**
 * A command that stops on a failure that is not the user's input (a file it cannot write, a folder
 * that is a file, a trainer that failed) exits 1 with one line `s3gym <command>: <what failed>`;
 * bad input exits 2. main.ts's withExitCode alone maps both: the commands throw. The expected lines
 * are written out by hand (they are what the commands printed when each mapped its own failures).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main, withExitCode } from "../../src/cli/main.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { run } from "./capture.js";

let D = "";
beforeAll(async () => {
  D = mkdtempSync(join(tmpdir(), "s3fail-"));
  writeFileSync(join(D, "afile"), "x");
  // A data directory whose runs/ is a file: reading it fails (ENOTDIR), which no flag can fix.
  mkdirSync(join(D, "broken"));
  writeFileSync(join(D, "broken", "runs"), "x");
  await writeSyntheticData(join(D, "syn"));
});

const SMALL = ["--games", "snake", "--pathways", "none", "--explore-episodes", "1", "--eval-episodes", "1", "--max-steps", "2", "--progress", "off"];

describe("a failure that is not bad input: exit 1, one line naming the command", () => {
  it("run: a data directory whose runs/ is a file", async () => {
    const r = await run(main, ["run", "--models", "builtin:random", ...SMALL, "--data", join(D, "broken")]);
    expect(r).toEqual({ rc: 1, out: "", err: `s3gym run: ENOTDIR: not a directory, scandir '${join(D, "broken", "runs")}'\n` });
  });

  it("status: a data directory whose runs/ is a file, and a file as --data", async () => {
    expect(await run(main, ["status", "--data", join(D, "broken")])).toEqual({ rc: 1, out: "", err: `s3gym status: ENOTDIR: not a directory, scandir '${join(D, "broken", "runs")}'\n` });
    expect(await run(main, ["status", "--data", join(D, "afile")])).toEqual({ rc: 1, out: "", err: `s3gym status: ENOTDIR: not a directory, scandir '${join(D, "afile")}'\n` });
  });

  it("build-sft: --out inside a file", async () => {
    const r = await run(main, ["build-sft", "--data", join(D, "syn"), "--out", join(D, "afile", "sft.jsonl")]);
    expect(r).toEqual({ rc: 1, out: "", err: `s3gym build-sft: EEXIST: file already exists, mkdir '${join(D, "afile")}'\n` });
  });

  it("cluster: --out in a missing folder", async () => {
    const out = join(D, "missing", "job.sh");
    const r = await run(main, ["cluster", "slurm", "--shards", "2", "--data", join(D, "data"), "--out", out, "--models", "builtin:random", "--games", "snake", "--pathways", "none"]);
    expect(r).toEqual({ rc: 1, out: "", err: `s3gym cluster: ENOENT: no such file or directory, open '${out}'\n` });
  });

  it("the line goes to the streams withExitCode is given, and a bad flag still exits 2 there", async () => {
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
    const { statusCommand } = await import("../../src/cli/status/status.js");
    expect(await withExitCode("status", () => statusCommand(["--data", join(D, "afile")], io), io)).toBe(1);
    expect(err).toEqual([`s3gym status: ENOTDIR: not a directory, scandir '${join(D, "afile")}'\n`]);
    err.length = 0;
    expect(await withExitCode("status", () => statusCommand(["--dta", D], io), io)).toBe(2);
    expect(err.join("")).toMatch(/^s3gym status: Unknown option '--dta'/);
  });
});
