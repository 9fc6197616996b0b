/**
 * The judge_swap table on a tiny hand-made data set: a none run, a history run under `self`, and
 * its rejudges under `verifier`, `shuffled` and `none`, two evaluation seeds, checkpoints 0, 3, 6.
 * Every number below is computed by hand from the scores.
 */
import { describe, expect, it } from "vitest";
import type { CheckpointData, Dataset, RunData } from "../../src/analysis/load/dataset.js";
import { judgeSwapCheck, judgeSwapTable, nullBandTop, nullCheckNote, type JudgeSwapRow } from "../../src/analysis/tables/judgeSwapTables.js";
import { isJudgeSwapRun } from "../../src/analysis/load/judgeSwapRuns.js";
import { reportParts } from "../../src/analysis/tables/reportParts.js";

const SEEDS = [10, 11];
function cps(byX: Record<number, [number, number]>): CheckpointData[] {
  return Object.entries(byX).map(([x, s]) => ({ x: Number(x), status: "ok", valid: true, scores: [...s], seeds: [...SEEDS], reason: null }));
}
function run(id: string, model: string, pathway: string, byX: Record<number, [number, number]>, extra: { judge?: string; from?: string } = {}): RunData {
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
    manifest: { run_seed: 0, config: { protocol: extra.judge ? { judge: extra.judge } : {} }, ...(extra.from ? { rejudged_from: { run_id: extra.from, dir: "x" } } : {}) } as never,
    checkpoints: cps(byX),
  };
}

const M = "some-model";
const none = run("none", M, "none", { 0: [0, 0], 3: [1, 2], 6: [1, 1] });
const self = run("self", M, "history", { 0: [0, 0], 3: [2, 2], 6: [3, 1] });
const verifier = run("self__rejudge-verifier", M, "history", { 0: [0, 0], 3: [4, 3], 6: [5, 2] }, { judge: "verifier", from: "self" });
const shuffled = run("self__rejudge-shuffled", M, "history", { 0: [0, 0], 3: [2, 3], 6: [2, 1] }, { judge: "shuffled", from: "self" });
const noScores = run("self__rejudge-none", M, "history", { 0: [0, 0], 3: [1, 2], 6: [2, 1] }, { judge: "none", from: "self" });
const ds: Dataset = { dataDirs: [], runs: [none, self, verifier, shuffled, noScores], warnings: [] };
const cfg = { B: 200, seed: 0, level: 0.95 };

function find(rows: readonly JudgeSwapRow[], quantity: string, judge: string): JudgeSwapRow {
  const r = rows.find((x) => x.quantity === quantity && x.judge === judge);
  if (!r) throw new Error(`no row ${quantity} ${judge}`);
  return r;
}

describe("judge_swap", () => {
  const t = judgeSwapTable(ds, cfg);

  it("gain_vs_none per judge: mean over x >= 3 of y_judge(x) - y_none(x), over the seeds", () => {
    // self: seed 10 ((2-1)+(3-1))/2 = 1.5, seed 11 ((2-2)+(1-1))/2 = 0 -> 0.75
    expect(find(t.rows, "gain_vs_none", "self").estimate.point).toBeCloseTo(0.75, 12);
    // verifier: seed 10 ((4-1)+(5-1))/2 = 3.5, seed 11 ((3-2)+(2-1))/2 = 1 -> 2.25
    expect(find(t.rows, "gain_vs_none", "verifier").estimate.point).toBeCloseTo(2.25, 12);
    // shuffled: seed 10 ((2-1)+(2-1))/2 = 1, seed 11 ((3-2)+(1-1))/2 = 0.5 -> 0.75
    expect(find(t.rows, "gain_vs_none", "shuffled").estimate.point).toBeCloseTo(0.75, 12);
    // none: seed 10 ((1-1)+(2-1))/2 = 0.5, seed 11 ((2-2)+(1-1))/2 = 0 -> 0.25
    expect(find(t.rows, "gain_vs_none", "none").estimate.point).toBeCloseTo(0.25, 12);
    expect(t.rows.filter((r) => r.quantity === "gain_vs_none").map((r) => r.judge)).toEqual(["self", "verifier", "shuffled", "none"]);
  });

  it("the contrasts pair the judges seed by seed, with the exact sign-flip p", () => {
    const v = find(t.rows, "value_of_judging", "verifier - self");
    // seed 10 ((4-2)+(5-3))/2 = 2, seed 11 ((3-2)+(2-1))/2 = 1 -> 1.5 = 2.25 - 0.75
    expect(v.estimate.point).toBeCloseTo(1.5, 12);
    // Two seeds, both differences positive: 2 of the 4 flip patterns reach |1.5| -> p = 0.5.
    expect(v.p_sign_flip).toBeCloseTo(0.5, 12);
    const p = find(t.rows, "placebo", "shuffled - none");
    // seed 10 ((2-1)+(2-2))/2 = 0.5, seed 11 ((3-2)+(1-1))/2 = 0.5 -> 0.5
    expect(p.estimate.point).toBeCloseTo(0.5, 12);
    expect(t.rows.some((r) => r.quantity === "external")).toBe(false);
  });

  it("no none run on the same seeds: no gain, but the contrast between two judges still stands", () => {
    const t2 = judgeSwapTable({ ...ds, runs: ds.runs.filter((r) => r !== none) }, cfg);
    expect(find(t2.rows, "gain_vs_none", "self").estimate.point).toBeNull();
    expect(find(t2.rows, "value_of_judging", "verifier - self").estimate.point).toBeCloseTo(1.5, 12);
  });

  it("the null check counts the contrasts of models that cannot learn, the positive control the learners'", () => {
    const mk = (model: string, quantity: string, lo: number, hi: number, p: number | null = null, game = "g"): JudgeSwapRow => ({
      model,
      game,
      pathway: "history",
      form: "rejudge",
      quantity,
      judge: "",
      estimate: { point: (lo + hi) / 2, lo, hi },
      p_sign_flip: p,
      runs: 1,
    });
    const c = judgeSwapCheck([
      mk("builtin:random", "placebo", -1, 1),
      mk("builtin:heuristic", "value_of_judging", 0.1, 1),
      mk("builtin:learner", "value_of_judging", 0.2, 1, 0.01),
      // Above 0 by its interval, but the exact test does not reject: counted apart.
      mk("builtin:learner", "value_of_judging", 0.2, 1, 0.25, "h"),
      mk("builtin:learner", "placebo", -1, 1, 0.03),
      mk("builtin:learner", "gain_vs_none", 1, 2),
    ]);
    expect(c.nullIntervals).toBe(2);
    expect(c.nullExcluding).toBe(1);
    // Two contrasts cannot show a pass (and one exclusion of two is not enough to fail).
    expect(c.nullPass).toBeNull();
    expect(c.learners).toEqual([{ model: "builtin:learner", pathway: "history", valueAbove: 2, valueAboveBoth: 1, valueGames: 2, placeboExcluding: 0, placeboRejected: 1, placeboGames: 1 }]);
  });

  it("the null check counts the stochastic nulls' contrasts by interval and by p against the binomial band, leaves a deterministic null's exact zeros out, and can fail", () => {
    const mk = (model: string, lo: number, hi: number, p: number | null, game: string, n = 8): JudgeSwapRow => ({
      model,
      game,
      pathway: "memory",
      form: "rejudge",
      quantity: "placebo",
      judge: "",
      estimate: { point: lo === 0 && hi === 0 ? 0 : (lo + hi) / 2, lo, hi, n },
      p_sign_flip: p,
      runs: 2,
    });
    const R = "builtin:random?noise=independent";
    // The band for 20 contrasts at 5%: P(X >= 4) = 0.0159 >= 0.01, P(X >= 5) = 0.0026 < 0.01 (by hand), so at most 4.
    expect(nullBandTop(20)).toBe(4);
    // One contrast: P(X >= 1) = 0.05 >= 0.01, so one exclusion of one is within the band.
    expect(nullBandTop(1)).toBe(1);
    const covering = (k: number) => Array.from({ length: k }, (_, i) => mk(R, -1, 1, 0.5, `g${i}`));
    const excluding = (k: number, p: number) => Array.from({ length: k }, (_, i) => mk(R, 0.1, 1, p, `x${i}`));
    const zeros = Array.from({ length: 30 }, (_, i) => mk("builtin:random", 0, 0, 1, `z${i}`));
    // 19 covering + 1 excluding (p 0.03): passes; the 30 exact zeros of a deterministic null are counted apart.
    const ok = judgeSwapCheck([...covering(19), ...excluding(1, 0.03), ...zeros]);
    expect([ok.nullIntervals, ok.nullExcluding, ok.nullTested, ok.nullRejected, ok.nullDegenerate]).toEqual([20, 1, 20, 1, 30]);
    expect(ok.nullPass).toBe(true);
    expect(nullCheckNote(ok)).toMatch(/^Null check passed .*1 of 20 intervals exclude 0 \(band: at most 4,.*1 of 20 p < 0.05.*30 contrast\(s\) exactly 0 on every seed/);
    // 5 intervals of 20 exclude 0: above the band, FAILED (the p-values do not reject: the interval count alone fails it).
    const wide = judgeSwapCheck([...covering(15), ...excluding(5, 0.2)]);
    expect(wide.nullExcluding).toBe(5);
    expect(wide.nullRejected).toBe(0);
    expect(wide.nullIntervalTail).toBeCloseTo(0.002573, 5);
    expect(wide.nullPass).toBe(false);
    expect(nullCheckNote(wide)).toMatch(/^NULL CHECK FAILED/);
    // 5 p-values of 20 below 0.05 while every interval covers 0: the p count alone fails it.
    const tests = judgeSwapCheck([...covering(15), ...Array.from({ length: 5 }, (_, i) => mk(R, -0.1, 1, 0.01, `q${i}`))]);
    expect([tests.nullExcluding, tests.nullRejected]).toEqual([0, 5]);
    expect(tests.nullPass).toBe(false);
    // On 4 paired seeds the exact p cannot go below 0.125: those p-values are not counted (the intervals still are).
    const four = judgeSwapCheck([...Array.from({ length: 20 }, (_, i) => mk(R, -1, 1, 0.125, `f${i}`, 4))]);
    expect([four.nullIntervals, four.nullTested, four.nullRejectedTail]).toEqual([20, 0, null]);
    expect(four.nullPass).toBe(true);
    expect(nullCheckNote(four)).toMatch(/no sign-flip p counted/);
    // A deterministic null alone: nothing to count, and the note says so rather than "passed".
    const only = judgeSwapCheck(zeros);
    expect(only.nullIntervals).toBe(0);
    expect(only.nullPass).toBeNull();
    expect(nullCheckNote(only)).toMatch(/no contrast of a stochastic model that cannot learn.*30 contrast\(s\) exactly 0 on every seed/);
  });

  it("with several recorded runs, a rejudge row's interval and p are the t test over the runs' own contrasts (runs resampled)", () => {
    // Three recorded runs (run seeds 0, 1, 2), each on its own two evaluation seeds, checkpoints 0 and 3,
    // each rejudged under verifier, shuffled and none. Per run (mean over its seeds of y_A(3) - y_B(3)):
    //   value of judging (verifier - self, self [1, 1]): [2, 2] -> 1, [2, 3] -> 1.5, [3, 3] -> 2
    //   placebo (shuffled - none, none [1, 1]):          [2, 2] -> 1, [3, 3] -> 2,   [3, 5] -> 3
    const runsOf = (r: number, byJudge: Record<string, [number, number]>): RunData[] => {
      const seeds = [10 + 2 * r, 11 + 2 * r];
      const mk = (id: string, pathway: string, y3: [number, number], extra: { judge?: string; from?: string } = {}): RunData => {
        const base = run(id, M, pathway, { 0: [0, 0], 3: y3 }, extra);
        return { ...base, manifest: { ...(base.manifest as object), run_seed: r } as never, checkpoints: base.checkpoints.map((c) => ({ ...c, seeds: [...seeds] })) };
      };
      const self = `s${r}`;
      return [mk(self, "history", byJudge.self!), ...["verifier", "shuffled", "none"].map((j) => mk(`${self}__rejudge-${j}`, "history", byJudge[j]!, { judge: j, from: self }))];
    };
    const runs = [
      ...runsOf(0, { self: [1, 1], verifier: [2, 2], shuffled: [2, 2], none: [1, 1] }),
      ...runsOf(1, { self: [1, 1], verifier: [2, 3], shuffled: [3, 3], none: [1, 1] }),
      ...runsOf(2, { self: [1, 1], verifier: [3, 3], shuffled: [3, 5], none: [1, 1] }),
    ];
    const t3 = judgeSwapTable({ dataDirs: [], runs, warnings: [] }, cfg);
    // t over 3 runs, df 2, t_{0.975, 2} = 4.302653; two-sided p at df 2 = 1 - t / sqrt(2 + t^2).
    // value: mean 1.5, sd 0.5, se 0.5 / sqrt 3 = 0.288675, t = 5.196152 -> 1.5 -+ 1.242069, p = 1 - 5.196152 / sqrt 29 = 0.035098.
    const v = find(t3.rows, "value_of_judging", "verifier - self");
    expect([v.runs, v.test, v.estimate.n]).toEqual([3, "t over runs", 3]);
    expect(v.estimate.point).toBeCloseTo(1.5, 12);
    expect(v.estimate.lo).toBeCloseTo(0.257931, 5);
    expect(v.estimate.hi).toBeCloseTo(2.742069, 5);
    expect(v.p_sign_flip).toBeCloseTo(0.035098, 5);
    // placebo: mean 2, sd 1, se 0.577350, t = 3.464102 -> 2 -+ 2.484138, p = 1 - 3.464102 / sqrt 14 = 0.074180.
    // Pooling the 6 paired seeds within the runs (every difference > 0) would have excluded 0 (exact p = 2/64).
    const pl = find(t3.rows, "placebo", "shuffled - none");
    expect(pl.estimate.point).toBeCloseTo(2, 12);
    expect(pl.estimate.lo).toBeCloseTo(-0.484138, 5);
    expect(pl.estimate.hi).toBeCloseTo(4.484138, 5);
    expect(pl.p_sign_flip).toBeCloseTo(0.07418, 5);
    const c = judgeSwapCheck(t3.rows.map((r) => ({ ...r, model: "builtin:learner" })));
    expect(c.learners).toEqual([{ model: "builtin:learner", pathway: "history", valueAbove: 1, valueAboveBoth: 1, valueGames: 1, placeboExcluding: 0, placeboRejected: 0, placeboGames: 1 }]);
    // One recorded run: still the sign-flip test over its evaluation seeds.
    expect(find(t.rows, "value_of_judging", "verifier - self").test).toBe("sign-flip");
  });

  it("the null check counts a t test's p over two runs (its p is continuous), not only a sign-flip p on 6+ seeds", () => {
    const mk = (p: number, game: string): JudgeSwapRow => ({
      model: "builtin:random?noise=independent",
      game,
      pathway: "history",
      form: "rejudge",
      quantity: "placebo",
      judge: "",
      estimate: { point: 0.5, lo: p < 0.05 ? 0.1 : -1, hi: 1, n: 2 },
      p_sign_flip: p,
      runs: 2,
      test: "t over runs",
    });
    const c = judgeSwapCheck([mk(0.01, "a"), mk(0.4, "b"), mk(0.6, "c")]);
    expect([c.nullIntervals, c.nullExcluding, c.nullTested, c.nullRejected]).toEqual([3, 1, 3, 1]);
    // The same rows as sign-flip rows on 2 paired seeds: their p cannot fall below 0.05, so none is counted.
    const sf = judgeSwapCheck([mk(0.01, "a"), mk(0.4, "b")].map((r) => ({ ...r, test: "sign-flip" as const })));
    expect(sf.nullTested).toBe(0);
  });

  it("every other table leaves the judge-swap runs out; the judge_swap table reads them", () => {
    expect(ds.runs.filter(isJudgeSwapRun).map((r) => r.run_id)).toEqual(["self__rejudge-verifier", "self__rejudge-shuffled", "self__rejudge-none"]);
    const parts = reportParts(ds, { B: 0 });
    expect(parts.ds.runs.map((r) => r.run_id)).toEqual(["none", "self"]);
    expect(parts.judgeSwap.runs.length).toBe(5);
    expect(parts.has.judge).toBe(true);
    expect(reportParts({ ...ds, runs: [none, self] }, { B: 0 }).has.judge).toBe(false);
  });
});
