/**
 * bench/coverage's default-design table (`npm run bench:coverage`): coverage of the intervals the
 * tables print for gain_vs_none, gain_vs_y0 and Avg at the reproduction's default design (10
 * evaluation seeds per checkpoint, checkpoints x = 0, 3, ..., 30: src/cli/reproduce/reproducePlan.ts), in
 * every outcome shape, through the kit's own code (estimateGain of gainTables.ts; Avg's jackknife t of
 * intervals.ts), against KNOWN truth. Also:
 * - `null-indep`: the independent-noise null (no learning; every checkpoint's and pathway's draws
 *   independent given the seed's difficulty, as a sampled LLM's are): the share of gain intervals that
 *   exclude 0 beside the share of p < 0.05 (they must agree: one test behind both);
 * - run-to-run variance: each run's exploration shifts its learning curve by a run effect; with one
 *   run the interval is read against "this run" (its own expected gain) and against the model's; with
 *   3 and 5 runs the t over runs against the model's, beside the seed-level inversion that keeps the
 *   runs fixed (which does not carry that variance).
 * Avg's candidates are all measured (percentile and bootstrap-t bootstraps, jackknife t), the table's
 * column named. Every shape also gets a `+runs` twin played at the learner cells' 3 run seeds
 * (RUNS_SHAPES): there Avg, AUC+, NABA and dNABA (against the none run) are measured by the t over the
 * runs' values, the two-stage percentile bootstrap and their hull, against the model's expected
 * statistic at the design (modelTruth, Monte Carlo); RUNS_TABLE_METHOD says which one the tables print. Data sets per cell: COVERAGE_DATASETS (default 800: about +-1.5 points near 95%).
 */
import * as ss from "simple-statistics";
import { DEFAULT_LEVEL, percentileInterval, type BootstrapConfig } from "../src/analysis/stats/bootstrap.js";
import { curveMetricsSorted, type CurveMetrics } from "../src/analysis/metrics/curves.js";
import { concatGain, gainVsNoneData, gainVsY0Data, type GainData } from "../src/analysis/metrics/gain.js";
import { estimateGain, type GainEstimate } from "../src/analysis/tables/gainTables.js";
import {
  ANY_RANGE,
  NONNEGATIVE_RANGE,
  drawWeights,
  intervalInRange,
  jackknifeTInterval,
  observedRange,
  runsHullInterval,
  runsMeanInterval,
  simpleDesign,
  studentizedHullInterval,
  unitBootstrapMany,
} from "../src/analysis/stats/intervals.js";
import { curveBuffers, curveMetricsUnderWeights, type SeedCurve } from "../src/analysis/stats/seedCurves.js";
import { checkpointZeroScores, y0Unstable } from "../src/analysis/metrics/nabaStability.js";
import { DEFAULT_SCHEDULE } from "../src/cli/reproduce/reproducePlan.js";
import { Rng } from "../src/util/rng.js";

const K = DEFAULT_SCHEDULE.evalEpisodes;
/** Resamples of Avg's bootstrap-t hull (the tables use --bootstrap, default 2000). */
const AVG_B = Number(process.env.COVERAGE_AVG_B ?? 500);
const XS = Array.from({ length: Math.floor(DEFAULT_SCHEDULE.exploreEpisodes / DEFAULT_SCHEDULE.checkpointEvery) + 1 }, (_, i) => i * DEFAULT_SCHEDULE.checkpointEvery);
const rise = (x: number): number => 1 - Math.exp(-x / 10);

function normal(rng: Rng): number {
  const u = 1 - rng.float();
  const v = rng.float();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
function t3(rng: Rng): number {
  const z = normal(rng);
  let chi = 0;
  for (let i = 0; i < 3; i++) chi += normal(rng) ** 2;
  return z / Math.sqrt(chi / 3) / Math.sqrt(3);
}
function poisson(rng: Rng, lambda: number): number {
  const L = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  for (;;) {
    p *= rng.float();
    if (p <= L) return k;
    k++;
  }
}

/** An outcome shape: the learning pathway's mean curve, a seed's effect, an episode's score. */
export interface DesignShape {
  name: string;
  /** Mean of the learning pathway at x (none stays at mu(0)); `run` is the run's exploration effect. */
  mu: (x: number, run: number) => number;
  effect: (rng: Rng) => number;
  score: (rng: Rng, m: number, e: number) => number;
  /** The sd of a run's exploration effect (0: no run-to-run variance). */
  runSd: number;
}
const cont = (rng: Rng): number => 0.15 * (-Math.log(1 - rng.float()) - 1);
export const DESIGN_SHAPES: DesignShape[] = [
  { name: "continuous", mu: (x, r) => 0.4 + (0.18 + r) * rise(x), effect: cont, score: (rng, m, e) => m + e + 0.12 * normal(rng), runSd: 0 },
  { name: "heavy", mu: (x, r) => 0.4 + (0.18 + r) * rise(x), effect: (rng) => 0.15 * t3(rng), score: (rng, m, e) => m + e + 0.12 * t3(rng), runSd: 0 },
  { name: "binary", mu: (x, r) => 0.4 + (0.18 + r) * rise(x), effect: (rng) => -0.3 + 0.6 * rng.float(), score: (rng, m, e) => (rng.float() < m + e ? 1 : 0), runSd: 0 },
  { name: "count", mu: (x, r) => 2 + (3 + r) * rise(x), effect: (rng) => -0.5 + rng.float(), score: (rng, m, e) => poisson(rng, m * (1 + e)), runSd: 0 },
  { name: "negative", mu: (x, r) => -10 + (40 + r) * rise(x), effect: (rng) => 15 * normal(rng), score: (rng, m, e) => m + e + 20 * normal(rng), runSd: 0 },
  // The flat shapes ignore the run effect at runSd 0; with run-to-run variance a run's exploration
  // helps or hurts by r (mean 0: the model does not improve on average).
  { name: "flat", mu: (x, r) => 0.5 + r * rise(x), effect: cont, score: (rng, m, e) => m + e + 0.12 * normal(rng), runSd: 0 },
  // No learning, independent draws at every checkpoint and pathway (a seed keeps its difficulty).
  { name: "null-indep", mu: (x, r) => 0.5 + r * rise(x), effect: cont, score: (rng, m, e) => m + e + 0.12 * normal(rng), runSd: 0 },
  { name: "null-heavy", mu: (x, r) => 0.5 + r * rise(x), effect: (rng) => 0.15 * t3(rng), score: (rng, m, e) => m + e + 0.12 * t3(rng), runSd: 0 },
];
/** Run-to-run variance: a run's exploration scales its gain (sd 0.06 on a gain of 0.18 x rise). */
export const RUN_SHAPE: DesignShape = { ...(DESIGN_SHAPES[0] as DesignShape), name: "continuous+runs", runSd: 0.06 };
/**
 * Every shape with run-to-run variance, played at the learner cells' 3 run seeds: the run effect's sd
 * is a third of the shape's gain (0.06 on 0.18; count 1 on 3; negative start 13 on 40), and 0.06 for
 * the shapes that do not learn (a run's exploration helps or hurts, 0 on average).
 */
const RUN_SD: Readonly<Record<string, number>> = { count: 1, negative: 13 };
export const RUNS_SHAPES: DesignShape[] = DESIGN_SHAPES.map((s) => (s.name === "continuous" ? RUN_SHAPE : { ...s, name: `${s.name}+runs`, runSd: RUN_SD[s.name] ?? 0.06 }));
/** The learner cells' run seeds in the default reproduction. */
export const LEARNER_RUNS = 3;

/** A run seed's pair: the learning pathway's run and the none run on the same evaluation seeds. */
function simPair(rng: Rng, shape: DesignShape, runEffect: number): { p: SeedCurve; none: SeedCurve } {
  const eff = Array.from({ length: K }, () => shape.effect(rng));
  const one = (learn: boolean): SeedCurve => {
    const scores = new Float64Array(XS.length * K);
    for (let c = 0; c < XS.length; c++) {
      const m = learn ? shape.mu(XS[c] as number, runEffect) : shape.mu(0, 0);
      for (let k = 0; k < K; k++) scores[c * K + k] = shape.score(rng, m, eff[k] as number);
    }
    return { run_id: "sim", game: "sim", xs: XS, keys: Array.from({ length: K }, (_, k) => k), pairedBy: "seed", scores };
  };
  return { p: one(true), none: one(false) };
}

/** Run seeds simulated for the model's expected AUC+ and NABA (Monte Carlo: they have no closed form). */
const TRUTH_RUNS = Number(process.env.COVERAGE_TRUTH_RUNS ?? 40000);

/** The curve statistics measured at several runs: dNABA is the learning pathway's NABA minus its none run's (same seeds). */
const RUN_STATS = ["avg", "auc_plus", "naba", "dnaba"] as const;
type RunStat = (typeof RUN_STATS)[number];

/** The candidates measured at several runs, and the one the tables print per statistic (null: the point alone). */
type RunsMethod = "t over runs" | "hull of t over runs and two-stage percentile" | "two-stage percentile (before)";
export const RUNS_TABLE_METHOD: Readonly<Record<RunStat, RunsMethod | null>> = {
  avg: "t over runs",
  auc_plus: "hull of t over runs and two-stage percentile",
  naba: null,
  dnaba: null,
};

/** A run pair's four statistics at weights w (the same seed draw on both runs); null where undefined. */
function runStats(p: SeedCurve, none: SeedCurve, w: ArrayLike<number>, bp: ReturnType<typeof curveBuffers>, bn: ReturnType<typeof curveBuffers>): Record<RunStat, number | null> {
  const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  const n: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  curveMetricsUnderWeights(p, w, bp, m);
  curveMetricsUnderWeights(none, w, bn, n);
  return { avg: m.avg, auc_plus: m.auc_plus, naba: m.naba, dnaba: m.naba === null || n.naba === null ? null : m.naba - n.naba };
}

/**
 * The model's expected Avg, AUC+, NABA and dNABA (against the none run) at the design: the mean over
 * run seeds (exploration effect drawn) and evaluation seeds of a run's statistic of its 10-seed curve,
 * by Monte Carlo (AUC+ and NABA are not linear in the scores, so this is not the statistic of the mean
 * curve; it is what the t over the runs' values estimates). `se`: the Monte Carlo standard error (NABA's
 * is large where y0 can come near 0: its expectation then barely exists).
 */
export interface ModelTruth {
  mean: Record<RunStat, number>;
  se: Record<RunStat, number>;
}
const truthCache = new Map<string, ModelTruth>();
export function modelTruth(shape: DesignShape): ModelTruth {
  const hit = truthCache.get(shape.name);
  if (hit !== undefined) return hit;
  const rng = Rng.fromKey(`bench/coverage/design/${shape.name}/model-truth`);
  const ones = new Int32Array(K).fill(1);
  const acc: Record<RunStat, number[]> = { avg: [], auc_plus: [], naba: [], dnaba: [] };
  for (let i = 0; i < TRUTH_RUNS; i++) {
    const pair = simPair(rng, shape, shape.runSd * normal(rng));
    const v = runStats(pair.p, pair.none, ones, curveBuffers(pair.p), curveBuffers(pair.none));
    for (const k of RUN_STATS) acc[k].push(v[k] ?? Number.NaN);
  }
  const mean = {} as Record<RunStat, number>;
  const se = {} as Record<RunStat, number>;
  for (const k of RUN_STATS) {
    mean[k] = ss.mean(acc[k]);
    se[k] = ss.sampleStandardDeviation(acc[k]) / Math.sqrt(acc[k].length);
  }
  const out: ModelTruth = { mean, se };
  truthCache.set(shape.name, out);
  return out;
}

/**
 * What main_results and Table 7 printed for a cell of several runs before the t over runs: the
 * two-stage percentile bootstrap (runs drawn, then each drawn run's evaluation seeds, one draw for a
 * run and its none run; the replicate is the weighted mean of the drawn runs' statistics):
 * curveTables.ts bootstrapRowCurves.
 */
function twoStagePercentile(rng: Rng, pairs: readonly { p: SeedCurve; none: SeedCurve }[], B: number): Record<RunStat, { lo: number | null; hi: number | null }> {
  const R = pairs.length;
  const reps = Object.fromEntries(RUN_STATS.map((k) => [k, new Float64Array(B)])) as Record<RunStat, Float64Array>;
  const runW = new Int32Array(R);
  const w = new Int32Array(K);
  const bufs = pairs.map((p) => [curveBuffers(p.p), curveBuffers(p.none)] as const);
  for (let b = 0; b < B; b++) {
    drawWeights(rng, R, runW);
    const sum = { avg: 0, auc_plus: 0, naba: 0, dnaba: 0 };
    const ws = { avg: 0, auc_plus: 0, naba: 0, dnaba: 0 };
    for (let k = 0; k < R; k++) {
      drawWeights(rng, K, w);
      const mult = runW[k] as number;
      if (mult === 0) continue;
      const pr = pairs[k] as { p: SeedCurve; none: SeedCurve };
      const v = runStats(pr.p, pr.none, w, bufs[k]![0], bufs[k]![1]);
      for (const name of RUN_STATS) {
        const x = v[name];
        if (x === null) continue;
        sum[name] += mult * x;
        ws[name] += mult;
      }
    }
    for (const name of RUN_STATS) reps[name][b] = ws[name] > 0 ? sum[name] / ws[name] : Number.NaN;
  }
  return Object.fromEntries(RUN_STATS.map((k) => [k, percentileInterval(reps[k])])) as Record<RunStat, { lo: number | null; hi: number | null }>;
}

const meanFrom3 = (f: (x: number) => number): number => ss.mean(XS.filter((x) => x >= 3).map(f));
function avgOf(sc: SeedCurve, w: ArrayLike<number>, buf: ReturnType<typeof curveBuffers>, m: CurveMetrics): number {
  return curveMetricsUnderWeights(sc, w, buf, m).avg ?? Number.NaN;
}

export interface Tally {
  /** Coverage over the intervals printed (hits / defined), not over every data set. */
  conditional?: boolean;
  hits: number;
  excl: number;
  pRej: number;
  defined: number;
  width: number[];
}
const tally = (): Tally => ({ hits: 0, excl: 0, pRej: 0, defined: 0, width: [] });
function record(t: Tally, lo: number | null, hi: number | null, truth: number, p: number | null = null): void {
  if (p !== null && p < 0.05) t.pRej++;
  if (lo === null || hi === null) return;
  t.defined++;
  t.width.push(hi - lo);
  if (lo <= truth && truth <= hi) t.hits++;
  if (lo > 0 || hi < 0) t.excl++;
}

export interface DesignRow {
  shape: string;
  runs: number;
  quantity: string;
  method: string;
  estimand: string;
  coverage: number;
  exclude0: number | null;
  pBelow05: number | null;
  defined: number;
  medianWidth: number;
  /** The truth counted against, where it is a Monte Carlo estimate (AUC+, NABA), with its standard error. */
  truth?: number;
  truthSe?: number;
}

/** One cell: `runs` run seeds per row, N data sets. */
export function designCell(shape: DesignShape, runs: number, N: number): DesignRow[] {
  const rng = Rng.fromKey(`bench/coverage/design/${shape.name}/${runs}`);
  // Its own stream, so the cells' data sets are the ones measured before it existed.
  const twoStageRng = Rng.fromKey(`bench/coverage/design/${shape.name}/${runs}/two-stage`);
  const cfg: BootstrapConfig = { B: 400, seed: 7 };
  const gainTruth = meanFrom3((x) => shape.mu(x, 0)) - shape.mu(0, 0);
  const avgTruth = ss.mean(XS.map((x) => shape.mu(x, 0)));
  const T: Record<string, Tally> = {};
  const t = (name: string): Tally => (T[name] ??= tally());
  const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  for (let d = 0; d < N; d++) {
    const runEffects = Array.from({ length: runs }, () => shape.runSd * normal(rng));
    const pairs = runEffects.map((r) => simPair(rng, shape, r));
    // "This run" truth (one run): its own expected gain and Avg, its exploration effect included.
    const runGain = meanFrom3((x) => shape.mu(x, runEffects[0] as number)) - shape.mu(0, 0);
    const runAvg = ss.mean(XS.map((x) => shape.mu(x, runEffects[0] as number)));
    const y0 = concatGain(pairs.map((p) => gainVsY0Data(p.p)).filter((g): g is GainData => g !== null));
    const none = concatGain(pairs.map((p) => gainVsNoneData(p.p, p.none)).filter((g): g is GainData => g !== null));
    const key = [String(d)];
    const rec = (name: string, e: GainEstimate, truth: number): void => record(t(name), e.estimate.lo, e.estimate.hi, truth, e.p);
    const gv = estimateGain(none, cfg, ["none", ...key]);
    const gy = estimateGain(y0, cfg, ["y0", ...key]);
    rec("gain_vs_none|table|model", gv, gainTruth);
    rec("gain_vs_y0|table|model", gy, gainTruth);
    if (runs === 1 && shape.runSd > 0) {
      rec("gain_vs_none|table|this run", gv, runGain);
      rec("gain_vs_y0|table|this run", gy, runGain);
    }
    // (The seed-level comparison with the runs kept: on the continuous shape only, it is the slow part.)
    if (runs > 1 && shape === RUN_SHAPE) {
      rec("gain_vs_none|sign-flip, runs fixed|model", estimateGain(none, cfg, ["none", ...key], { runsFixed: true }), gainTruth);
      rec("gain_vs_y0|sign-flip, runs fixed|model", estimateGain(y0, cfg, ["y0", ...key], { runsFixed: true }), gainTruth);
    }
    // Avg of the learning pathway: the table's jackknife t (one run) or t over the runs' Avgs.
    if (runs === 1) {
      const sc = (pairs[0] as { p: SeedCurve }).p;
      const buf = curveBuffers(sc);
      const stat = (w: Int32Array): number => avgOf(sc, w, buf, m);
      const jt = jackknifeTInterval(simpleDesign(K), stat);
      const sym = studentizedHullInterval(simpleDesign(K), stat, AVG_B, rng);
      const truthOf =
        shape.runSd > 0
          ? ([
              ["model", avgTruth],
              ["this run", runAvg],
            ] as const)
          : ([["model", avgTruth]] as const);
      const [pc, st] = (["percentile", "studentized"] as const).map(
        (method) => unitBootstrapMany(simpleDesign(K), (w, out) => (out[0] = stat(w)), 1, method === "studentized" ? 200 : 400, rng, method)[0]!,
      ) as [ReturnType<typeof unitBootstrapMany>[number], ReturnType<typeof unitBootstrapMany>[number]];
      // The table's fallback: the percentile interval where the hull would leave the observed scores.
      const obs = observedRange(sc.scores);
      const table = sym !== null && intervalInRange({ lo: sym.lo, hi: sym.hi }, obs) ? { lo: sym.lo, hi: sym.hi } : pc.interval;
      for (const [est, truth] of truthOf) {
        record(t(`avg|table: bootstrap-t hull|${est}`), table.lo, table.hi, truth);
        record(t(`avg|jackknife t|${est}`), jt?.lo ?? null, jt?.hi ?? null, truth);
        record(t(`avg|percentile bootstrap|${est}`), pc.interval.lo, pc.interval.hi, truth);
        record(t(`avg|bootstrap-t|${est}`), st.interval.lo, st.interval.hi, truth);
      }
      void percentileInterval;
    } else {
      // Avg, AUC+, NABA and dNABA (against the none run) of the learning pathway, the model as
      // estimand, by three candidates: the t over the runs' own values (cut where it passes a bound the
      // expected value cannot cross: runsMeanInterval), the two-stage percentile bootstrap (runs, then
      // evaluation seeds: what the tables printed before) and the hull of the two. `table:` marks the
      // one the tables print (RUNS_TABLE_METHOD); NABA and dNABA print none. Truth: the model's
      // expected statistic at this design (Monte Carlo over run seeds).
      const truth = modelTruth(shape);
      const ones = new Int32Array(K).fill(1);
      const per = pairs.map((p) => runStats(p.p, p.none, ones, curveBuffers(p.p), curveBuffers(p.none)));
      const obs = observedRange(Float64Array.from(pairs.flatMap((p) => Array.from(p.p.scores))));
      const before = twoStagePercentile(twoStageRng, pairs, cfg.B);
      for (const name of RUN_STATS) {
        const values = per.map((v) => v[name]).filter((v): v is number => v !== null);
        const iv = runsMeanInterval(values, name === "avg" ? obs : name === "dnaba" ? ANY_RANGE : NONNEGATIVE_RANGE, DEFAULT_LEVEL);
        const hull = runsHullInterval(iv, before[name]);
        const truthModel = name === "avg" ? avgTruth : truth.mean[name];
        const label = (method: RunsMethod): string => `${name}|${RUNS_TABLE_METHOD[name] === method ? "table: " : ""}${method}|model`;
        record(t(label("t over runs")), iv?.lo ?? null, iv?.hi ?? null, truthModel);
        record(t(label("hull of t over runs and two-stage percentile")), hull.lo, hull.hi, truthModel);
        record(t(label("two-stage percentile (before)")), before[name].lo, before[name].hi, truthModel);
        // NABA and dNABA with the point alone where the row's y0 is unstable (nabaStability.ts: the
        // runs' checkpoint-0 scores pooled; dNABA: either pathway's), the hull elsewhere: does the
        // mark rescue them? Coverage of the intervals printed (`defined` says how many were).
        if (name === "naba" || name === "dnaba") {
          const unstable = y0Unstable(checkpointZeroScores(pairs.map((p) => p.p))) || (name === "dnaba" && y0Unstable(checkpointZeroScores(pairs.map((p) => p.none))));
          const c = t(`${name}|hull, point only where y0 unstable|model (printed)`);
          c.conditional = true;
          if (!unstable) record(c, hull.lo, hull.hi, truthModel);
        }
      }
    }
  }
  void curveMetricsSorted;
  const mc = runs > 1 ? modelTruth(shape) : null;
  return Object.entries(T).map(([name, v]) => {
    const [quantity, method, estimand] = name.split("|") as [string, string, string];
    const q = quantity as "auc_plus" | "naba" | "dnaba";
    const truth = mc !== null && (quantity === "auc_plus" || quantity === "naba" || quantity === "dnaba") ? { truth: mc.mean[q], truthSe: mc.se[q] } : {};
    const isGain = quantity.startsWith("gain");
    const w = v.width.sort((a, b) => a - b);
    return {
      shape: shape.name,
      runs,
      quantity,
      method,
      estimand,
      coverage: (100 * v.hits) / (v.conditional === true ? Math.max(1, v.defined) : N),
      exclude0: isGain ? (100 * v.excl) / N : null,
      pBelow05: isGain ? (100 * v.pRej) / N : null,
      defined: (100 * v.defined) / N,
      medianWidth: w.length > 0 ? ss.quantileSorted(w, 0.5) : Number.NaN,
      ...truth,
    };
  });
}

/** Every cell of the default-design table. */
export function designCells(): [DesignShape, number][] {
  return [...DESIGN_SHAPES.map((s) => [s, 1] as [DesignShape, number]), [RUN_SHAPE, 1], [RUN_SHAPE, 2], ...RUNS_SHAPES.map((s) => [s, LEARNER_RUNS] as [DesignShape, number]), [RUN_SHAPE, 5]];
}

/**
 * The learner cells' summary: at LEARNER_RUNS run seeds, the worst coverage over the shapes of each
 * curve statistic's interval, the table's (t over runs) beside the one printed before (two-stage
 * percentile), against the model's expected statistic; and the Monte Carlo truths.
 */
function learnerRunsLines(rows: readonly DesignRow[]): string[] {
  const at = rows.filter((r) => r.runs === LEARNER_RUNS && r.shape.endsWith("+runs") && r.estimand.startsWith("model"));
  const worstRow = (q: string, method: string): DesignRow | null => {
    const rs = at.filter((r) => r.quantity === q && r.method.replace(/^table: /, "") === method);
    return rs.length === 0 ? null : rs.reduce((a, r) => (r.coverage < a.coverage ? r : a));
  };
  const worst = (q: string, method: string): string => {
    const w = worstRow(q, method);
    return w === null ? `${q} n/a` : `${q} ${w.coverage.toFixed(1)}% (${w.shape})`;
  };
  const methods: RunsMethod[] = ["t over runs", "hull of t over runs and two-stage percentile", "two-stage percentile (before)"];
  const table = RUN_STATS.map((q) => {
    const m = RUNS_TABLE_METHOD[q];
    if (m !== null) return `${worst(q, m)} [${m}]`;
    const best = methods
      .map((x) => worstRow(q, x))
      .filter((r): r is DesignRow => r !== null)
      .reduce<DesignRow | null>((a, r) => (a === null || r.coverage > a.coverage ? r : a), null);
    return `${q}: the point alone (the best candidate's worst shape ${best === null ? "n/a" : `${best.coverage.toFixed(1)}%, ${best.method.replace(/^table: /, "")} (${best.shape})`})`;
  });
  const cond = ["naba", "dnaba"].map((q) => {
    const w = worstRow(q, "hull, point only where y0 unstable");
    return w === null ? `${q} n/a` : `${q} ${w.coverage.toFixed(1)}% (${w.shape}; an interval in ${w.defined.toFixed(0)}% of data sets there)`;
  });
  const truths = at.filter((r) => r.method.endsWith("t over runs") && r.truth !== undefined).map((r) => `${r.shape} ${r.quantity} ${r.truth!.toPrecision(4)} +- ${(r.truthSe ?? 0).toPrecision(2)}`);
  return [
    `At ${LEARNER_RUNS} run seeds x ${K} evaluation seeds (the learner cells; covers = the model's expected statistic at this design), worst coverage over the ${RUNS_SHAPES.length} shapes with run-to-run variance, what the tables print: ${[...table, worst("gain_vs_none", "table"), worst("gain_vs_y0", "table")].join("; ")}.`,
    `  Each candidate's worst shape: ${methods.map((m) => `${m}: ${RUN_STATS.map((q) => worst(q, m)).join(", ")}`).join("; ")}.`,
    `  NABA and dNABA with the point alone where y0 is unstable (the †y0 unstable rule) and the hull elsewhere, coverage of the intervals printed: ${cond.join("; ")}.`,
    `  The model's expected AUC+, NABA and dNABA (the learning run's NABA minus its none run's on the same seeds; Monte Carlo over ${TRUTH_RUNS} run seeds, +- its standard error): ${truths.join("; ")}.`,
  ];
}

export function formatDesign(rows: readonly DesignRow[], N: number, wall: number): string {
  const f = (v: number | null, d = 1): string => (v === null ? "" : v.toFixed(d));
  const lines = [
    `bench/coverage, default design: ${K} evaluation seeds, checkpoints x = ${XS[0]}..${XS[XS.length - 1]} step ${DEFAULT_SCHEDULE.checkpointEvery}; ${N} data sets per cell (about +-${(196 * Math.sqrt((0.05 * 0.95) / N)).toFixed(1)} points near 95%); target >= 93%`,
    "excl0 = % of intervals that exclude 0; p<.05 = % of p below 0.05 (the test printed beside the interval): on the nulls (truth 0) both are the false-positive rate and must agree",
    "",
    "| shape | runs | quantity | method | covers | coverage % | excl0 % | p<.05 % | defined % | median width |",
    "| :-- | --: | :-- | :-- | :-- | --: | --: | --: | --: | --: |",
    ...rows.map(
      (r) => `| ${r.shape} | ${r.runs} | ${r.quantity} | ${r.method} | ${r.estimand} | ${f(r.coverage)} | ${f(r.exclude0)} | ${f(r.pBelow05)} | ${f(r.defined, 0)} | ${r.medianWidth.toPrecision(3)} |`,
    ),
  ];
  const judged = rows.filter((r) => r.method.startsWith("table") && !(r.runs === 1 && r.shape.endsWith("+runs") && r.estimand === "model"));
  const worst = (q: string): string => {
    const rs = judged.filter((r) => r.quantity === q && r.runs === 1 && !r.shape.endsWith("+runs"));
    if (rs.length === 0) return `${q}: n/a`;
    const w = rs.reduce((a, r) => (r.coverage < a.coverage ? r : a));
    return `${q} ${w.coverage.toFixed(1)}% (${w.shape})`;
  };
  const disagree = rows.filter((r) => r.exclude0 !== null && r.pBelow05 !== null && r.defined === 100 && Math.abs(r.exclude0 - r.pBelow05) > 1);
  lines.push(
    "",
    `Worst table coverage over the shapes at the default design (one run, "this run" = the model when runs do not vary): ${["gain_vs_none", "gain_vs_y0", "avg"].map(worst).join("; ")}.`,
    `Interval-excludes-0 vs p < 0.05, every gain cell: ${disagree.length === 0 ? "agree within 1 point everywhere" : `DISAGREE in ${disagree.map((r) => `${r.shape}/${r.quantity}/${r.method}`).join(", ")}`}.`,
    ...learnerRunsLines(rows),
    `wall ${wall.toFixed(1)} s`,
  );
  return lines.join("\n") + "\n";
}
