/**
 * The memory_probes table on a tiny hand-made data set: a none run, a memory run (intact), and its
 * probes empty, shuffled and transplant, two evaluation seeds, checkpoints 0, 3, 6. Every number
 * below is computed by hand from the scores.
 */
import { describe, expect, it } from "vitest";
import type { CheckpointData, Dataset, RunData } from "../../src/analysis/load/dataset.js";
import { isJudgeSwapRun } from "../../src/analysis/load/judgeSwapRuns.js";
import { isProbeRun, memoryProbeCheck, memoryProbesTable, type MemoryProbeRow } from "../../src/analysis/probe/memoryProbes.js";
import { reportParts } from "../../src/analysis/tables/reportParts.js";

const SEEDS = [10, 11];
function cps(byX: Record<number, [number, number]>): CheckpointData[] {
  return Object.entries(byX).map(([x, s]) => ({ x: Number(x), status: "ok", valid: true, scores: [...s], seeds: [...SEEDS], reason: null }));
}
function run(id: string, model: string, pathway: string, byX: Record<number, [number, number]>, probe?: { kind: string; donorModel?: string }): RunData {
  return {
    run_id: id,
    model,
    game: "g",
    pathway,
    sources: [],
    views: {},
    cost: null,
    explore: null,
    counts: { steps: 0, exploreSteps: 0, evalSteps: 0, episodes: 0, leftOutSteps: 0 },
    manifest: {
      run_seed: 0,
      config: { protocol: {} },
      ...(probe
        ? { rejudged_from: { run_id: "intact", dir: "x" }, probe: { kind: probe.kind, ...(probe.donorModel ? { donor: { run_id: "d", dir: "d", model: probe.donorModel, run_seed: 0 } } : {}) } }
        : {}),
    } as never,
    checkpoints: cps(byX),
  };
}

const M = "some-model";
const none = run("none", M, "none", { 0: [0, 0], 3: [1, 2], 6: [1, 1] });
const intact = run("intact", M, "memory", { 0: [0, 0], 3: [3, 2], 6: [4, 2] });
const empty = run("intact__probe-empty", M, "memory", { 0: [0, 0], 3: [1, 2], 6: [2, 1] }, { kind: "empty" });
const shuffled = run("intact__probe-shuffled", M, "memory", { 0: [0, 0], 3: [2, 2], 6: [3, 1] }, { kind: "shuffled" });
const transplant = run("intact__probe-transplant-x", M, "memory", { 0: [0, 0], 3: [5, 3], 6: [4, 3] }, { kind: "transplant", donorModel: "other" });
const ds: Dataset = { dataDirs: [], runs: [none, intact, empty, shuffled, transplant], warnings: [] };
const cfg = { B: 200, seed: 0, level: 0.95 };

function find(rows: readonly MemoryProbeRow[], quantity: string, arm: string): MemoryProbeRow {
  const r = rows.find((x) => x.quantity === quantity && x.arm === arm);
  if (!r) throw new Error(`no row ${quantity} ${arm}`);
  return r;
}

describe("memory_probes", () => {
  const t = memoryProbesTable(ds.runs, cfg);

  it("gain_vs_none per arm: mean over x >= 3 of y_arm(x) - y_none(x), over the seeds", () => {
    // intact: seed 10 ((3-1)+(4-1))/2 = 2.5, seed 11 ((2-2)+(2-1))/2 = 0.5 -> 1.5
    expect(find(t.rows, "gain_vs_none", "intact").estimate.point).toBeCloseTo(1.5, 12);
    // empty: seed 10 ((1-1)+(2-1))/2 = 0.5, seed 11 ((2-2)+(1-1))/2 = 0 -> 0.25
    expect(find(t.rows, "gain_vs_none", "empty").estimate.point).toBeCloseTo(0.25, 12);
    // transplant: seed 10 ((5-1)+(4-1))/2 = 3.5, seed 11 ((3-2)+(3-1))/2 = 1.5 -> 2.5
    expect(find(t.rows, "gain_vs_none", "transplant:other").estimate.point).toBeCloseTo(2.5, 12);
    expect(t.rows.map((r) => `${r.quantity} ${r.arm}`)).toEqual([
      "gain_vs_none intact",
      "gain_vs_none empty",
      "gain_vs_none shuffled",
      "gain_vs_none transplant:other",
      "probe_effect empty - intact",
      "probe_effect shuffled - intact",
      "probe_effect transplant:other - intact",
    ]);
  });

  it("each probe's effect pairs it with the intact memory seed by seed, with the exact sign-flip p", () => {
    const e = find(t.rows, "probe_effect", "empty - intact");
    // seed 10 ((1-3)+(2-4))/2 = -2, seed 11 ((2-2)+(1-2))/2 = -0.5 -> -1.25 = 0.25 - 1.5
    expect(e.estimate.point).toBeCloseTo(-1.25, 12);
    // Two seeds, both negative: 2 of the 4 sign patterns reach |-1.25| -> p = 0.5.
    expect(e.p_sign_flip).toBeCloseTo(0.5, 12);
    // shuffled: seed 10 ((2-3)+(3-4))/2 = -1, seed 11 ((2-2)+(1-2))/2 = -0.5 -> -0.75
    expect(find(t.rows, "probe_effect", "shuffled - intact").estimate.point).toBeCloseTo(-0.75, 12);
    // transplant: seed 10 ((5-3)+(4-4))/2 = 1, seed 11 ((3-2)+(3-2))/2 = 1 -> 1
    expect(find(t.rows, "probe_effect", "transplant:other - intact").estimate.point).toBeCloseTo(1, 12);
    expect(t.rows.every((r) => r.runs === 1)).toBe(true);
  });

  it("the null check leaves out exact [0, 0] intervals; the positive control counts per learner", () => {
    const mk = (model: string, quantity: string, arm: string, lo: number, hi: number, game = "g"): MemoryProbeRow => ({
      model,
      game,
      pathway: "memory",
      quantity,
      arm,
      estimate: { point: (lo + hi) / 2, lo, hi },
      p_sign_flip: null,
      runs: 1,
    });
    const c = memoryProbeCheck([
      mk("builtin:random", "probe_effect", "empty - intact", 0, 0),
      mk("builtin:heuristic", "probe_effect", "empty - intact", 0, 0),
      mk("builtin:random?noise=independent", "probe_effect", "empty - intact", -1, 1),
      mk("builtin:heuristic?noise=independent", "probe_effect", "shuffled - intact", 0.1, 1),
      mk("builtin:random", "gain_vs_none", "intact", 0.1, 1),
      mk("builtin:learner", "gain_vs_none", "intact", 0.2, 1),
      mk("builtin:learner", "gain_vs_none", "intact", -1, 1, "h"),
      mk("builtin:learner", "gain_vs_none", "empty", -0.5, 0.5),
      mk("builtin:learner", "gain_vs_none", "empty", 0.1, 0.5, "h"),
      mk("builtin:learner", "probe_effect", "empty - intact", -2, -1),
    ]);
    expect(c.nullDegenerate).toBe(2);
    expect(c.nullIntervals).toBe(2);
    expect(c.nullExcluding).toBe(1);
    expect(c.learners).toEqual([{ model: "builtin:learner", pathway: "memory", games: 2, intactExcludes: 1, emptyGames: 2, emptyCovers: 1, emptyEffectExcludes: 1 }]);
    expect(t.notes.join("\n")).toMatch(/Estimand: the interval covers the evaluation seeds given THESE exploration runs/);
  });

  it("probe runs stay out of every other table, judge_swap included; memory_probes reads them", () => {
    expect(ds.runs.filter(isProbeRun).map((r) => r.run_id)).toEqual(["intact__probe-empty", "intact__probe-shuffled", "intact__probe-transplant-x"]);
    const p = reportParts(ds, { B: 0 });
    expect(p.ds.runs.map((r) => r.run_id).sort()).toEqual(["intact", "none"]);
    expect(p.judgeSwap.runs.some(isProbeRun)).toBe(false);
    expect(p.has.probes).toBe(true);
    expect(p.has.judge).toBe(false);
    expect(p.memoryProbes.runs.filter(isProbeRun).length).toBe(3);
    // A probe run is a replay, so the judge swap's own test for one holds too (it is never a main-table run).
    expect(ds.runs.filter(isJudgeSwapRun).length).toBe(3);
  });
});
