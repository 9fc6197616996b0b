/**
 * The runs `s3gym reproduce` asks for, on a tiny schedule: the plan's jobs, written as job files, are
 * accepted by the real `s3gym run --job` and `s3gym train-loop --job` (as reproduce starts them), they produce the 105
 * runs of the matrix (the learner at judge 0.25 and the stochastic nulls x 7 games x 3 pathways), the flat references' none runs and the learner's views runs, the 7 verified runs of the learner (issue 18) and the 7 training runs the tables need, and a second pass resumes (plays nothing) and
 * rebuilds byte-identical tables. (Issue 15 replaced the random -> heuristic ladder by the learner's
 * offline training loop and added the learner to the matrix: the counts and arguments changed. Issue 17
 * plays the learner's runs with --views in their own invocation: every views table has rows.)
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { matrixSettings, referenceSettings, trainingSettings, verifiedSettings, viewsSettings, TRAINING_LABEL, type Schedule } from "../../src/cli/reproduce/reproducePlan.js";
import { jobFileText, type Job } from "../../src/training/loopJob.js";
import { trainLoopCommand } from "../../src/cli/train-loop/trainLoop.js";
import { reportCommand } from "../../src/cli/report/report.js";
import { runCommand } from "../../src/cli/run/run.js";
import { tempDir } from "../analysis/helpers.js";

const TINY: Schedule = { name: "quick", exploreEpisodes: 1, checkpointEvery: 1, evalEpisodes: 1, maxSteps: 3, trainingRounds: 1, loopExploreEpisodes: 1, trainingEvalEpisodes: 1, learnerRunSeeds: 1 };

const sink = { write: () => true };

/** `--job FILE --progress off`, as reproduce starts its children, the file written in a folder of its own. */
function jobArgs(job: Job): string[] {
  const file = join(tempDir("s3gym-repro-job-"), "job.json");
  writeFileSync(file, jobFileText(job));
  return ["--job", file, "--progress", "off"];
}

async function pass(data: string, out: string): Promise<Map<string, string>> {
  for (const settings of [matrixSettings(TINY, data), referenceSettings(TINY, data), viewsSettings(TINY, data), verifiedSettings(TINY, data)]) {
    expect(await runCommand(jobArgs({ name: "t", command: "run", settings }), { stdout: sink, stderr: sink })).toBe(0);
  }
  expect(await trainLoopCommand(jobArgs({ name: "t", command: "train-loop", settings: trainingSettings(TINY, data) }), { stdout: sink, stderr: sink as never })).toBe(0);
  const quiet = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    expect(await reportCommand(["--data", data, "--out", out, "--bootstrap", "50"])).toBe(0);
  } finally {
    quiet.mockRestore();
  }
  return new Map(readdirSync(join(out, "tables")).map((f) => [f, readFileSync(join(out, "tables", f), "utf8")]));
}

describe("reproduce's runs", () => {
  it("matrix + training through s3gym run give every table; a rerun resumes to the same bytes", async () => {
    const data = tempDir("s3gym-repro-flow-");
    const first = await pass(data, tempDir("s3gym-repro-out1-"));
    expect(readdirSync(join(data, "runs"))).toHaveLength(105 + 7 + 7);
    const csv = (name: string) => first.get(`${name}.csv`)!.trim().split("\n").slice(1);
    expect(csv("main_results")).toHaveLength(105 + 7);
    // The verified tables: one reliability row per game; per game the learner and the mean in each dNABA table.
    expect(csv("verifier_reliability")).toHaveLength(7);
    expect(csv("verified_vs_memory")).toHaveLength(14);
    expect(csv("verified_vs_history")).toHaveLength(14);
    expect(csv("tokens_by_pathway")).toHaveLength(7 * 4);
    // The learner's 21 runs played the views (issue 17): every views table has rows, cost has every run.
    expect(csv("views").length).toBeGreaterThan(0);
    expect(new Set(csv("views").map((r) => r.split(",")[0]))).toEqual(new Set(["builtin:learner"]));
    expect(csv("forgetting")).toHaveLength(21);
    expect(new Set(csv("cost_runs").map((r) => r.split(",").slice(0, 3).join(","))).size).toBe(105 + 7);
    const training = csv("training");
    expect(training).toHaveLength(7);
    for (const row of training) expect(row.startsWith(`${TRAINING_LABEL},`)).toBe(true);
    const steps = readdirSync(join(data, "runs")).map((r) => readFileSync(join(data, "runs", r, "steps.jsonl"), "utf8").length);

    const second = await pass(data, tempDir("s3gym-repro-out2-"));
    expect(readdirSync(join(data, "runs")).map((r) => readFileSync(join(data, "runs", r, "steps.jsonl"), "utf8").length)).toEqual(steps);
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [f, text] of first) expect(second.get(f), f).toBe(text);
  }, 300_000);
});
