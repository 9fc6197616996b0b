/**
 * The evaluation-seed view of a run's curve, for the curve bootstrap (metrics.md, "Uncertainty"):
 * the evaluation seed list is the same at every checkpoint of a run (and for every pathway and model
 * of a game with the same run seed), so a resample draws SEED indices once and uses those seeds at every
 * checkpoint. A seed's effect (an easy or a hard board) then moves the whole resampled curve, as it
 * moves the real one, instead of being redrawn independently per checkpoint.
 *
 * Pairing: two runs with the same seed list draw from the same stream (its key is the game and the
 * seed list), so the b-th resample uses the same seeds on both sides: dNABA, pathway vs pathway and
 * model vs model contrasts are paired without either side knowing about the other.
 */
import type { Rng } from "../../util/rng.js";
import { bootstrapRng } from "./bootstrap.js";
import type { CurveMetrics } from "../metrics/curves.js";
import { curveMetricsSorted } from "../metrics/curves.js";
import type { RunData } from "../load/dataset.js";

/** A run's valid checkpoints as a checkpoint x seed matrix. */
export interface SeedCurve {
  run_id: string;
  game: string;
  /** Valid checkpoints, ascending. */
  xs: number[];
  /** The distinct evaluation seeds, ascending (or episode indices when the logs lack seeds). */
  keys: number[];
  /** "seed" normally; "episode" when some valid checkpoint has scores without seeds (record only). */
  pairedBy: "seed" | "episode";
  /** scores[c * keys.length + k]: the score of seed keys[k] at checkpoint xs[c]; NaN when absent. */
  scores: Float64Array;
}

/** Builds a run's SeedCurve from its valid checkpoints. A seed repeated within a checkpoint counts once (the last). */
export function seedCurve(run: RunData): SeedCurve {
  const valid = run.checkpoints.filter((c) => c.valid);
  const pairedBy = valid.every((c) => c.seeds !== null) ? "seed" : "episode";
  const keyOf = (c: (typeof valid)[number], i: number): number => (pairedBy === "seed" ? ((c.seeds as number[])[i] as number) : i);
  const keySet = new Set<number>();
  for (const c of valid) c.scores.forEach((_, i) => keySet.add(keyOf(c, i)));
  const keys = [...keySet].sort((a, b) => a - b);
  const index = new Map(keys.map((k, i) => [k, i]));
  const scores = new Float64Array(valid.length * keys.length).fill(Number.NaN);
  valid.forEach((c, ci) => c.scores.forEach((s, i) => (scores[ci * keys.length + (index.get(keyOf(c, i)) as number)] = s)));
  return { run_id: run.run_id, game: run.game, xs: valid.map((c) => c.x), keys, pairedBy, scores };
}

/** The stream a run's seed draws come from: the same for every run of the game with the same seed list. */
export function seedStream(seed: number, sc: SeedCurve): Rng {
  return bootstrapRng(seed, "curve", sc.game, sc.pairedBy, sc.keys.join(","));
}

/** Reusable buffers of curveUnderWeights. */
export interface CurveBuffers {
  xs: Float64Array;
  ys: Float64Array;
}

export function curveBuffers(sc: SeedCurve): CurveBuffers {
  return { xs: new Float64Array(sc.xs.length), ys: new Float64Array(sc.xs.length) };
}

/**
 * The curve when seed k counts w[k] times: y(x) = weighted mean of the scores present at x. A
 * checkpoint where no drawn seed has a score drops out of this resample (like a failed checkpoint).
 * Fills buf (first `n` entries) and returns n and whether x = 0 is among them.
 */
export function curveUnderWeights(sc: SeedCurve, w: ArrayLike<number>, buf: CurveBuffers): { n: number; hasY0: boolean } {
  const K = sc.keys.length;
  let n = 0;
  for (let c = 0; c < sc.xs.length; c++) {
    let sum = 0;
    let W = 0;
    for (let k = 0; k < K; k++) {
      const wk = w[k] as number;
      if (wk === 0) continue;
      const s = sc.scores[c * K + k] as number;
      if (Number.isNaN(s)) continue;
      sum += wk * s;
      W += wk;
    }
    if (W === 0) continue;
    buf.xs[n] = sc.xs[c] as number;
    buf.ys[n] = sum / W;
    n++;
  }
  return { n, hasY0: n > 0 && buf.xs[0] === 0 };
}

/** Avg, Max, AUC+ and NABA of the curve under seed weights w (into `out`). */
export function curveMetricsUnderWeights(sc: SeedCurve, w: ArrayLike<number>, buf: CurveBuffers, out: CurveMetrics): CurveMetrics {
  const { n, hasY0 } = curveUnderWeights(sc, w, buf);
  return curveMetricsSorted(buf.xs, buf.ys, n, hasY0, out);
}

/** Whether two runs were evaluated on the same seeds (the condition of every paired contrast). */
export function sameSeeds(a: SeedCurve, b: SeedCurve): boolean {
  return a.pairedBy === b.pairedBy && a.keys.length === b.keys.length && a.keys.every((k, i) => k === b.keys[i]);
}

/** One curve metric of a run as a statistic of seed weights (NaN where undefined), for intervals.ts. */
export function curveStatistic(sc: SeedCurve, name: keyof CurveMetrics): (w: ArrayLike<number>) => number {
  const buf = curveBuffers(sc);
  const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  return (w) => curveMetricsUnderWeights(sc, w, buf, m)[name] ?? Number.NaN;
}
