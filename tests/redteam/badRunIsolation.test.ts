/**
 * Red team, issue 32 cases 9 (analysis side) and 11: one bad run never takes the others down.
 *
 * Before: one bad line in a run's calls.jsonl made `report` and `view` exit 1 for the whole data
 * directory; with an every-call-502 run beside complete ones, `compare` failed with "the pairs use 2
 * different seed lists (several run seeds)" although all runs shared seed 0 and the evaluation seeds.
 * Now the analysis leaves that run out with a warning that names it, and computes the rest.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareTable } from "../../src/analysis/stats/compare.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { getGame } from "../../src/games/registry.js";
import { runDir } from "../../src/logs/runDir.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { FaultyModel, factory, small } from "../runner/helpers.js";

const settings = small({ exploreEpisodes: 2, checkpointEvery: 1, evalEpisodes: 3, maxSteps: 6 });

async function data(): Promise<{ dir: string; failedRun: string; goodRun: string }> {
  const dir = mkdtempSync(join(tmpdir(), "s3isolate-"));
  const entries = buildMatrix(["builtin:heuristic", "builtin:random"], ["snake"], ["history", "memory"], 0);
  // builtin:random's memory run: every call fails as a 502 would after its retries.
  const make = factory((name, m) => new FaultyModel(m, (r) => name === "builtin:random" && r.identity.runId.includes("memory")));
  const outcomes = await runMatrix({ dataDir: dir, entries, settings, game: getGame, createModel: make });
  const failed = outcomes.find((o) => o.status !== "complete")!;
  expect(outcomes.filter((o) => o.status === "complete")).toHaveLength(3);
  return { dir, failedRun: failed.runId, goodRun: outcomes.find((o) => o.status === "complete")!.runId };
}

describe("one bad run among good ones", () => {
  it("compare pairs the complete runs and names the failed one it left out", async () => {
    const d = await data();
    const ds = await loadDataset(d.dir);
    const table = compareTable(ds, { a: { pathway: "memory" }, b: { pathway: "history" }, B: 200, seed: 0 });
    expect(table.rows.length).toBeGreaterThan(0);
    expect(table.rows.every((r) => r.n_seeds === settings.evalEpisodes)).toBe(true);
    expect(table.notes.join("\n")).toContain(`Left out: ${d.failedRun}`);
  }, 60_000);

  it("a run with an unreadable line is left out of the data set by name; the others load", async () => {
    const d = await data();
    const calls = join(runDir(d.dir, d.goodRun), "steps.jsonl");
    const lines = readFileSync(calls, "utf8").split("\n").filter(Boolean);
    // A line that parses but breaks the schema: no writer of the kit can make it, the run is left out.
    lines[1] = JSON.stringify({ ...JSON.parse(lines[1]!), reward: "lots" });
    writeFileSync(calls, lines.map((l) => `${l}\n`).join(""));
    const ds = await loadDataset(d.dir);
    expect(ds.runs.map((r) => r.run_id)).not.toContain(d.goodRun);
    expect(ds.runs).toHaveLength(3);
    expect(ds.warnings.some((w) => w.startsWith(`left out run ${d.goodRun}:`) && w.includes("steps.jsonl:2") && w.includes("reward"))).toBe(true);
  }, 60_000);
});
