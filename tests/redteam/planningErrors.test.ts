/**
 * Red team, item 10 of issue 12: mistakes found before any call, each a named error with exit code 2:
 * two model specs that share a run id (they used to collapse silently into one run directory), a
 * --data or --out that is a file (it used to end in `EEXIST ... mkdir`, exit 1), and a run
 * directory whose manifest is not valid (it used to say only "Unexpected end of JSON input").
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main, withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { runId } from "../../src/runner/settings/runId.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { ConfigError } from "../../src/util/errors.js";

/** Found by a search over separator strings: same slug (`openai-m-x`), same 32-bit hash (128cf07b). */
const TWINS = ["openai:m@=#=x", "openai:m^#/~+x"] as const;

async function run(argv: string[]) {
  const err: string[] = [];
  const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: "EMPTY" }, ...io }), io);
  return { code, err: err.join("") };
}

const tiny = ["--games", "snake", "--pathways", "none", "--explore-episodes", "1", "--eval-episodes", "1", "--max-steps", "2", "--progress", "off"];

describe("two model specs, one run id", () => {
  it("the pair really shares a run id (what the check exists for)", () => {
    const ids = TWINS.map((model) => runId({ game: "snake", pathway: "none", model, runSeed: 0 }));
    expect(ids[0]).toBe("snake__none__openai-m-x-128cf07b__seed0");
    expect(ids[1]).toBe(ids[0]);
  });

  it("planning refuses them, naming both; the same spec twice is merged as before", () => {
    expect(() => buildMatrix([...TWINS], ["snake"], ["none"], 0)).toThrow(ConfigError);
    expect(() => buildMatrix([...TWINS], ["snake"], ["none"], 0)).toThrow(/models 'openai:m@=#=x' and 'openai:m\^#\/~\+x' map to the same run id snake__none__openai-m-x-128cf07b__seed0/);
    expect(buildMatrix(["builtin:random", "builtin:random"], ["snake"], ["none"], 0)).toHaveLength(1);
  });

  it("s3gym run exits 2 before creating anything", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3twins-"));
    const r = await run(["--models", TWINS.join(","), "--base-url", "http://127.0.0.1:9/v1", "--no-preflight", "--data", data, ...tiny]);
    expect(r.err).toMatch(/map to the same run id/);
    expect(r.code).toBe(2);
    expect(existsSync(join(data, "runs"))).toBe(false);
  });
});

describe("--data / --out naming a file", () => {
  const file = () => {
    const dir = mkdtempSync(join(tmpdir(), "s3file-"));
    writeFileSync(join(dir, "afile"), "x");
    return join(dir, "afile");
  };

  it("s3gym run: a file, or a path below a file", async () => {
    const f = file();
    const r = await run(["--models", "builtin:random", "--data", f, ...tiny]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--data ${f} is a file, not a folder`);
    const below = await run(["--models", "builtin:random", "--data", join(f, "sub"), ...tiny]);
    expect(below.code).toBe(2);
    expect(below.err).toContain(`is inside ${f}, which is a file`);
  });

  it("s3gym report --out and s3gym reproduce --data", async () => {
    const f = file();
    let err = "";
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
    try {
      expect(await main(["report", "--data", mkdtempSync(join(tmpdir(), "s3d-")), "--out", f])).toBe(2);
      expect(err).toContain(`--out ${f} is a file, not a folder`);
      err = "";
      expect(await main(["reproduce", "--quick", "--data", f, "--no-notebooks"])).toBe(2);
      expect(err).toContain(`--data ${f} is a file, not a folder`);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("an invalid manifest in a run directory", () => {
  it.each([
    ["empty", "", /manifest\.json: invalid JSON \(Unexpected end of JSON input\)/],
    ["not a manifest", '{"a":1}', /manifest\.json: field 'run_id'/],
  ])("%s: run names the file and what is wrong, exit 2, and leaves the file as it was", async (_name, content, message) => {
    const data = mkdtempSync(join(tmpdir(), "s3manifest-"));
    expect((await run(["--models", "builtin:random", "--data", data, ...tiny])).code).toBe(0);
    const [id] = readdirSync(join(data, "runs"));
    const path = join(data, "runs", id!, "manifest.json");
    writeFileSync(path, content);
    const r = await run(["--models", "builtin:random", "--data", data, ...tiny]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(path);
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/restore the manifest, or move the run directory away/);
  });
});
