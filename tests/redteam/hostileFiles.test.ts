/**
 * Red team, round four: hostile files in a data directory, and lines that never end.
 *
 * Before: a run's steps.jsonl as a symbolic link to /dev/zero grew report to 15.8 GB resident; a FIFO
 * in its place blocked every reader forever; a directory gave a bare "s3gym: EISDIR"; a 1 GiB line
 * gave "Cannot create a string longer than 0x1fffffe8 characters"; a symbolic link out of the data
 * directory was read. Now every reader opens only regular files (src/util/regularFile.ts), reads with
 * a line cap (src/util/jsonl.ts MAX_LINE_BYTES), and each command names the bad files and reports the
 * good runs.
 *
 * The commands run as the user runs them (the built CLI: `npm test` builds first), each in a child
 * with a 60 s limit, so a reader that blocks fails the test instead of hanging it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getGame } from "../../src/games/registry.js";
import { readJsonlLines } from "../../src/util/jsonl.js";
import { readJsonl } from "../../src/logs/reader.js";
import { runDir } from "../../src/logs/runDir.js";
import { StepRecord } from "../../src/logs/schema.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, small } from "../runner/helpers.js";

const CLI = join(process.cwd(), "dist", "cli", "main.js");
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

/** Runs the CLI in a child (60 s, as the bar): exit code, output, and peak RSS in KB when /usr/bin/time is there. */
function cli(args: string[]): { status: number | null; stdout: string; stderr: string; rssKb: number | null } {
  const cmd = TIME ? TIME : process.execPath;
  const argv = TIME ? ["-f", "RSS_KB=%M", process.execPath, CLI, ...args] : [CLI, ...args];
  const r = spawnSync(cmd, argv, { encoding: "utf8", timeout: 60_000, env: { ...process.env, FORCE_COLOR: "0" } });
  const m = /RSS_KB=(\d+)/.exec(r.stderr ?? "");
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", rssKb: m ? Number(m[1]) : null };
}

const settings = small({ exploreEpisodes: 2, checkpointEvery: 1, evalEpisodes: 1, maxSteps: 6 });
const entries = buildMatrix(["builtin:heuristic"], ["snake", "trust", "nullify"], ["none", "history"], 0);

let data: string;
let bad: { zero: string; fifo: string; dir: string };
let good: string[];

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), "s3hostile-"));
  const outcomes = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
  expect(outcomes.map((o) => o.status)).toEqual(entries.map(() => "complete"));
  const ids = outcomes.map((o) => o.runId);
  const steps = (id: string) => join(runDir(data, id), "steps.jsonl");
  const byName = (game: string, pathway: string) => ids.find((id) => id.startsWith(`${game}__${pathway}__`)) as string;
  bad = { zero: steps(byName("snake", "none")), fifo: steps(byName("snake", "history")), dir: steps(byName("trust", "none")) };
  good = [byName("trust", "history"), byName("nullify", "none"), byName("nullify", "history")];
  rmSync(bad.zero);
  symlinkSync("/dev/zero", bad.zero);
  rmSync(bad.fifo);
  expect(spawnSync("mkfifo", [bad.fifo]).status).toBe(0);
  rmSync(bad.dir);
  mkdirSync(bad.dir);
}, 60_000);

/** The command named each bad file with what it is, and did not exceed 1 GB. */
function namesTheBadFiles(r: ReturnType<typeof cli>): void {
  expect(r.stderr).toContain(`${bad.zero}: a symbolic link to /dev/zero, outside`);
  expect(r.stderr).toContain(`${bad.fifo}: a FIFO (named pipe), not a regular file`);
  expect(r.stderr).toContain(`${bad.dir}: a directory, not a regular file`);
  if (r.rssKb !== null) expect(r.rssKb).toBeLessThan(1024 * 1024);
}

describe("a data directory whose logs are /dev/zero, a FIFO and a directory, beside good runs", () => {
  it("report finishes, names the three files and reports the three good runs", () => {
    const out = mkdtempSync(join(tmpdir(), "s3hostile-rep-"));
    const r = cli(["report", "--data", data, "--out", out, "--bootstrap", "50"]);
    expect(r.status, r.stderr).toBe(0);
    namesTheBadFiles(r);
    expect(r.stdout).toMatch(/s3gym report: 3 runs/);
    const main = readFileSync(join(out, "tables", "main_results.csv"), "utf8");
    expect(main).toContain("nullify");
    expect(main).not.toContain("snake");
  }, 70_000);

  it("view finishes, names the three files and shows the three good runs", () => {
    const out = mkdtempSync(join(tmpdir(), "s3hostile-view-"));
    const r = cli(["view", "--data", data, "--out", out, "--bootstrap", "20"]);
    expect(r.status, r.stderr).toBe(0);
    namesTheBadFiles(r);
    expect(r.stdout).toMatch(/s3gym view: 3 runs/);
  }, 70_000);

  it("sql finishes, names the three files and queries the three good runs", () => {
    const r = cli(["sql", "--data", data, "--no-cache", "--json", "select distinct run_id from steps order by 1"]);
    expect(r.status, r.stderr).toBe(0);
    namesTheBadFiles(r);
    expect((JSON.parse(r.stdout) as { run_id: string }[]).map((x) => x.run_id)).toEqual([...good].sort());
  }, 70_000);

  it("export finishes, names the three files and writes the three good runs", () => {
    const out = mkdtempSync(join(tmpdir(), "s3hostile-exp-"));
    const r = cli(["export", "--data", data, "--out", out, "--format", "csv", "--no-cache"]);
    expect(r.status, r.stderr).toBe(0);
    namesTheBadFiles(r);
    expect(r.stdout).toMatch(/runs 3,/);
  }, 70_000);

  it("compare finishes, names the three files and compares the good runs", () => {
    const r = cli(["compare", "--data", data, "--a", "pathway=none", "--b", "pathway=history", "--bootstrap", "50"]);
    expect(r.status, r.stderr).toBe(0);
    namesTheBadFiles(r);
    expect(r.stdout).toContain("nullify");
  }, 70_000);

  it("a symbolic link inside the data directory is read; one that leaves it is refused by name", async () => {
    const d = mkdtempSync(join(tmpdir(), "s3hostile-link-"));
    const runs = join(d, "runs", "r1");
    mkdirSync(runs, { recursive: true });
    const line = readFileSync(join(runDir(data, good[0] as string), "steps.jsonl"), "utf8").split("\n")[0] as string;
    writeFileSync(join(d, "kept.jsonl"), `${line}\n`);
    symlinkSync(join(d, "kept.jsonl"), join(runs, "steps.jsonl"));
    const inside: unknown[] = [];
    for await (const r of readJsonl(join(runs, "steps.jsonl"), StepRecord, { within: d })) inside.push(r.value);
    expect(inside).toHaveLength(1);
    writeFileSync(join(tmpdir(), "s3hostile-secret.txt"), "root:x:0:0\n");
    symlinkSync(join(tmpdir(), "s3hostile-secret.txt"), join(runs, "episodes.jsonl"));
    await expect(async () => {
      for await (const _ of readJsonl(join(runs, "episodes.jsonl"), StepRecord, { within: d })) void _;
    }).rejects.toThrow(/a symbolic link to .*s3hostile-secret\.txt, outside/);
  });
});

describe("resuming runs when one run's steps.jsonl is a FIFO", () => {
  it("that run stops as error naming the file; the others finish", async () => {
    const d = mkdtempSync(join(tmpdir(), "s3hostile-resume-"));
    const two = buildMatrix(["builtin:heuristic"], ["snake", "trust"], ["none"], 0);
    const first = await runMatrix({ dataDir: d, entries: two, settings, game: getGame, createModel: factory() });
    const [victim, other] = first.map((o) => o.runId) as [string, string];
    for (const id of [victim, other]) {
      const m = join(runDir(d, id), "manifest.json");
      writeFileSync(m, readFileSync(m, "utf8").replace(/"status": *"complete"/, '"status": "running"'));
    }
    const steps = join(runDir(d, victim), "steps.jsonl");
    rmSync(steps);
    expect(spawnSync("mkfifo", [steps]).status).toBe(0);
    const again = await runMatrix({ dataDir: d, entries: two, settings, game: getGame, createModel: factory() });
    const byId = new Map(again.map((o) => [o.runId, o]));
    expect(byId.get(victim)?.status).toBe("error");
    expect(byId.get(victim)?.error).toContain(`${steps}: a FIFO (named pipe), not a regular file: refused`);
    expect(byId.get(other)?.status).toBe("complete");
  }, 60_000);
});

describe("a line longer than the cap", () => {
  it("is a named damaged line, skipped, and the lines around it are read (small cap, chunk borders crossed)", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3hostile-long-"));
    const path = join(dir, "steps.jsonl");
    writeFileSync(path, `{"a":1}\n{"b":"${"x".repeat(500)}"}\n{"c":3}\n{"d":"${"y".repeat(300)}"}`);
    const damaged: { line: number; detail: string }[] = [];
    const got = [...readJsonlLines(path, { maxLineBytes: 100, chunkBytes: 7, onDamaged: (d) => damaged.push(d) })].map((l) => l.json);
    expect(got).toEqual([{ a: 1 }, { c: 3 }]);
    expect(damaged.map((d) => d.line)).toEqual([2, 4]);
    expect(damaged[0]?.detail).toBe("a line of 508 bytes, longer than the 100-byte line cap");
  });

  it("at the default cap: a 70 MB line is skipped with its length and the next line is read", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3hostile-huge-"));
    const path = join(dir, "steps.jsonl");
    writeFileSync(path, Buffer.concat([Buffer.from('{"a":1}\n{"big":"'), Buffer.alloc(70 * 1024 * 1024, 0x61), Buffer.from('"}\n{"c":3}\n')]));
    const damaged: string[] = [];
    const got = [...readJsonlLines(path, { onDamaged: (d) => damaged.push(d.detail) })].map((l) => l.json);
    expect(got).toEqual([{ a: 1 }, { c: 3 }]);
    expect(damaged).toEqual([`a line of ${70 * 1024 * 1024 + 10} bytes, longer than the 67108864-byte line cap`]);
    rmSync(dir, { recursive: true, force: true });
  });
});
