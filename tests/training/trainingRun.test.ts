/**
 * Checkpoint curves end to end: `s3gym run --pathways training --checkpoints ...` with built-in
 * checkpoints (builtin:random as epoch 0, builtin:heuristic as epochs 1..2) on a small schedule, then
 * `s3gym report` -> training.csv, checked against the episodes the run logged. Plus the flag rules.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { reportCommand } from "../../src/cli/report/report.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { readRunRecords } from "../../src/logs/reader.js";
import { runId } from "../../src/runner/settings/runId.js";
import { runDir } from "../../src/logs/runDir.js";
import { evalSeeds } from "../../src/runner/loop/seeds.js";

const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: {}, ...io }), io);
  return { code, out: out.join(""), err: err.join("") };
}

const SMALL = ["--eval-episodes", "2", "--max-steps", "6", "--progress", "off"];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("s3gym run --pathways training", () => {
  it("evaluates the checkpoint list on the shared eval seeds and report fills training.csv", async () => {
    const data = tmp("s3train-");
    const r = await run(["--pathways", "training", "--checkpoints", "builtin:random,builtin:heuristic,builtin:heuristic", "--games", "snake", "--data", data, ...SMALL]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // The label defaults to the base model (epoch 0).
    const id = runId({ game: "snake", pathway: "training", model: "builtin:random", runSeed: 0 });
    expect(r.out).toContain(`${id}\tcomplete\t3/3 checkpoints ok`);
    const rec = await readRunRecords(runDir(data, id));
    expect(rec.manifest).toMatchObject({ pathway: "training", model: "builtin:random", eval_seeds: evalSeeds(0, "snake", 2) });
    expect(rec.steps.every((s) => s.phase === "eval")).toBe(true);
    expect(rec.steps.filter((s) => s.checkpoint === 0).every((s) => s.response.startsWith("(random policy)"))).toBe(true);
    expect(rec.steps.filter((s) => s.checkpoint! >= 1).every((s) => s.response.startsWith("(heuristic policy)"))).toBe(true);
    const y = [0, 1, 2].map((c) => mean(rec.episodes.filter((e) => e.checkpoint === c).map((e) => e.score)));
    for (const c of [0, 1, 2])
      expect(
        rec.episodes
          .filter((e) => e.checkpoint === c)
          .map((e) => e.seed)
          .sort(),
      ).toEqual([...evalSeeds(0, "snake", 2)].sort());

    const out = tmp("s3trainrep-");
    const log = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const errs = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    let rc: number;
    try {
      rc = await reportCommand(["--data", data, "--out", out, "--bootstrap", "20"]);
    } finally {
      log.mockRestore();
      errs.mockRestore();
    }
    expect(rc).toBe(0);
    const csv = readFileSync(join(out, "tables", "training.csv"), "utf8")
      .trim()
      .split("\n");
    const header = csv[0]!.split(",");
    expect(header.slice(0, 4)).toEqual(["model", "game", "n_seeds", "run_seeds"]);
    expect(csv).toHaveLength(2);
    // One loop seed: each metric's point, read by its column name (the interval columns stay empty).
    const row = csv[1]!.split(",");
    const cells = [row[0], row[1], ...["y0", "y_final", "d_final", "avg", "max", "auc_plus", "n_above", "n_updated"].map((k) => row[header.indexOf(k)])] as string[];
    expect([row[header.indexOf("n_seeds")], row[header.indexOf("d_final_lo")]]).toEqual(["1", ""]);
    const clip = (v: number) => Math.max(0, v - y[0]!);
    // The CSV keeps full precision: the numbers are compared as numbers (to 12 digits), the labels as text.
    expect(cells.slice(0, 2)).toEqual(["builtin:random", "snake"]);
    const want = [y[0]!, y[2]!, y[2]! - y[0]!, mean([y[1]!, y[2]!]), Math.max(y[1]!, y[2]!), (clip(y[0]!) + clip(y[1]!)) / 2 + (clip(y[1]!) + clip(y[2]!)) / 2];
    want.forEach((v, i) => expect(Number(cells[2 + i]), `column ${["y0", "y_final", "d_final", "avg", "max", "auc_plus"][i]}`).toBeCloseTo(v, 12));
    expect(cells.slice(8)).toEqual([String([y[1]!, y[2]!].filter((v) => v > y[0]!).length), "2"]);

    // Rerun: nothing is played again; adding an epoch plays only the new one.
    const again = await run(["--pathways", "training", "--checkpoints", "builtin:random,builtin:heuristic,builtin:heuristic,builtin:heuristic", "--games", "snake", "--data", data, ...SMALL]);
    expect(again.code).toBe(0);
    const rec2 = await readRunRecords(runDir(data, id));
    expect(rec2.episodes).toHaveLength(8);
    expect(rec2.episodes.filter((e) => e.checkpoint! <= 2)).toEqual(rec.episodes);

    // Another model at a recorded epoch is refused before any call, naming the epoch.
    const clash = await run(["--pathways", "training", "--checkpoints", "builtin:random,builtin:oracle", "--games", "snake", "--data", data, ...SMALL]);
    expect(clash.code).toBe(2);
    expect(clash.err).toMatch(/epoch 1: builtin:heuristic -> builtin:oracle/);
  });

  it("--checkpoints-file, --label, and training next to a protocol pathway", async () => {
    const data = tmp("s3trainf-");
    const file = join(data, "ckpts.txt");
    writeFileSync(file, "# epoch 0 = base\nbuiltin:random\n\nbuiltin:heuristic  # epoch 1\n");
    const r = await run([
      "--pathways",
      "none,training",
      "--models",
      "builtin:random",
      "--checkpoints-file",
      file,
      "--label",
      "toy-sft",
      "--games",
      "snake",
      "--data",
      data,
      "--explore-episodes",
      "0",
      ...SMALL,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const id = runId({ game: "snake", pathway: "training", model: "toy-sft", runSeed: 0 });
    const rec = await readRunRecords(runDir(data, id));
    expect(rec.checkpoints.map((c) => c.checkpoint).sort()).toEqual([0, 1]);
    expect(existsSync(runDir(data, runId({ game: "snake", pathway: "none", model: "builtin:random", runSeed: 0 })))).toBe(true);
  });

  it.each([
    [["--pathways", "training", "--games", "snake"], /--pathways training needs --checkpoints M0,M1,... or --checkpoints-file F/],
    [["--pathways", "none", "--models", "builtin:random", "--games", "snake", "--checkpoints", "builtin:random"], /--checkpoints is only used with --pathways training/],
    [["--pathways", "none", "--models", "builtin:random", "--games", "snake", "--label", "x"], /--label is only used with --pathways training/],
    [["--pathways", "training", "--games", "snake", "--checkpoints", "builtin:random", "--checkpoints-file", "f"], /--checkpoints or --checkpoints-file, not both/],
    [["--pathways", "training", "--games", "snake", "--checkpoints", "builtin:random", "--models", "builtin:random"], /--models is not used by --pathways training alone/],
    [["--pathways", "training", "--games", "snake", "--checkpoints", "builtin:random,,builtin:heuristic"], /--checkpoints: checkpoint 1 is empty/],
    [["--pathways", "training", "--games", "snake", "--checkpoints", "builtin:random,anthropic:x"], /--checkpoints: .*anthropic/],
    [["--pathways", "training", "--games", "snake", "--checkpoints-file", "/nonexistent/ckpts"], /--checkpoints-file: cannot read/],
  ])("%j -> exit 2", async (argv, message) => {
    const data = tmp("s3trainerr-");
    const r = await run([...argv, "--data", data, "--progress", "off"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(existsSync(join(data, "runs"))).toBe(false);
  });
});
