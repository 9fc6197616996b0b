/**
 * The runs `s3gym reproduce` asks for, on a tiny schedule: the matrix and training arguments are
 * accepted by the real `s3gym run`, produce the 63 matrix runs and the 7 training runs the tables
 * need, and a second pass resumes (plays nothing) and rebuilds byte-identical tables.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { matrixArgs, trainingArgs, trainingLadder, PAPER_SCHEDULE, QUICK_SCHEDULE, TRAINING_LABEL, type Schedule } from "../../src/cli/reproduce.js";
import { reportCommand } from "../../src/cli/report.js";
import { runCommand } from "../../src/cli/run.js";
import { tempDir } from "../analysis/helpers.js";

const TINY: Schedule = { name: "quick", exploreEpisodes: 1, checkpointEvery: 1, evalEpisodes: 1, maxSteps: 3, trainingEpochs: 2 };

const sink = { write: () => true };

async function pass(data: string, out: string): Promise<Map<string, string>> {
  expect(await runCommand([...matrixArgs(TINY, data), "--progress", "off"], { stdout: sink, stderr: sink })).toBe(0);
  expect(await runCommand([...trainingArgs(TINY, data), "--progress", "off"], { stdout: sink, stderr: sink })).toBe(0);
  const quiet = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    expect(await reportCommand(["--data", data, "--out", out, "--bootstrap", "50"])).toBe(0);
  } finally {
    quiet.mockRestore();
  }
  return new Map(readdirSync(join(out, "tables")).map((f) => [f, readFileSync(join(out, "tables", f), "utf8")]));
}

describe("reproduce's runs", () => {
  it("the training ladder is random at epoch 0, then heuristic", () => {
    expect(trainingLadder(PAPER_SCHEDULE)).toEqual(["builtin:random", "builtin:heuristic", "builtin:heuristic", "builtin:heuristic"]);
    expect(trainingLadder(QUICK_SCHEDULE)).toEqual(["builtin:random", "builtin:heuristic"]);
    const a = trainingArgs(PAPER_SCHEDULE, "/d");
    expect(a.slice(0, 6)).toEqual(["--pathways", "training", "--checkpoints", "builtin:random,builtin:heuristic,builtin:heuristic,builtin:heuristic", "--label", TRAINING_LABEL]);
  });

  it("matrix + training through s3gym run give every table; a rerun resumes to the same bytes", async () => {
    const data = tempDir("s3gym-repro-flow-");
    const first = await pass(data, tempDir("s3gym-repro-out1-"));
    expect(readdirSync(join(data, "runs"))).toHaveLength(63 + 7);
    const csv = (name: string) => first.get(`${name}.csv`)!.trim().split("\n").slice(1);
    expect(csv("main_results")).toHaveLength(63);
    const training = csv("training");
    expect(training).toHaveLength(7);
    for (const row of training) expect(row.startsWith(`${TRAINING_LABEL},`)).toBe(true);
    const steps = readdirSync(join(data, "runs")).map((r) => readFileSync(join(data, "runs", r, "steps.jsonl"), "utf8").length);

    const second = await pass(data, tempDir("s3gym-repro-out2-"));
    expect(readdirSync(join(data, "runs")).map((r) => readFileSync(join(data, "runs", r, "steps.jsonl"), "utf8").length)).toEqual(steps);
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [f, text] of first) expect(second.get(f), f).toBe(text);
  }, 120_000);
});
