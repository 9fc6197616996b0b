/**
 * A curve metric of one run minus the same metric of a partner run evaluated on the same seeds
 * (metrics.md, "Null-calibrated AUC+ and Max"): AUC+ and Max are positive under pure noise (AUC+
 * integrates max(0, y - y0); a maximum over checkpoints picks the luckiest one), so a row's raw
 * value cannot say whether anything improved. Subtracting the same statistic of the `none` control
 * on the same evaluation seeds calibrates it against what noise alone gives: about 0 when nothing
 * was learned, with a paired interval (one seed draw shared by both sides) and the exact sign-flip p
 * (swapping a seed's two sides at every checkpoint is one flip).
 */
import { DEFAULT_LEVEL, bootstrapRng, methodOf, type BootstrapConfig, type Estimate } from "../stats/bootstrap.js";
import type { CurveMetrics } from "./curves.js";
import { curveMetricsSorted } from "./curves.js";
import { ANY_RANGE, simpleDesign, tableInterval } from "../stats/intervals.js";
import { sameSeeds, seedStream, type SeedCurve } from "../stats/seedCurves.js";
import { DEFAULT_FLIPS, signFlipTest } from "../stats/signFlip.js";

/** Two runs on the same seeds, restricted to the checkpoints valid in both: scores[c * K + k]. */
export interface PairedCurves {
  xs: number[];
  K: number;
  a: Float64Array;
  b: Float64Array;
  /** The first side, for its seed stream (the pairing draw every contrast of the game shares). */
  first: SeedCurve;
}

/** The pair, or null when the runs were not evaluated on the same seeds or share no checkpoint. */
export function pairCurves(a: SeedCurve, b: SeedCurve): PairedCurves | null {
  if (!sameSeeds(a, b)) return null;
  const xs = a.xs.filter((x) => b.xs.includes(x));
  if (xs.length === 0) return null;
  const K = a.keys.length;
  const sa = new Float64Array(xs.length * K);
  const sb = new Float64Array(xs.length * K);
  xs.forEach((x, r) => {
    const ca = a.xs.indexOf(x);
    const cb = b.xs.indexOf(x);
    for (let k = 0; k < K; k++) {
      sa[r * K + k] = a.scores[ca * K + k] as number;
      sb[r * K + k] = b.scores[cb * K + k] as number;
    }
  });
  return { xs, K, a: sa, b: sb, first: a };
}

/** metric(A) - metric(B) under seed weights w, and with seed k's sides swapped where flip[k] = 1. */
export function pairedStatistic(pc: PairedCurves, metric: keyof CurveMetrics): (w: ArrayLike<number>, flip?: ArrayLike<number> | null) => number {
  const R = pc.xs.length;
  const xb = new Float64Array(R);
  const yb = new Float64Array(R);
  const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  const side = (w: ArrayLike<number>, flip: ArrayLike<number> | null | undefined, first: boolean): number => {
    let n = 0;
    for (let r = 0; r < R; r++) {
      let sum = 0;
      let W = 0;
      for (let k = 0; k < pc.K; k++) {
        const wk = w[k] as number;
        if (wk === 0) continue;
        const swap = flip ? flip[k] === 1 : false;
        const v = (first !== swap ? pc.a : pc.b)[r * pc.K + k] as number;
        if (Number.isNaN(v)) continue;
        sum += wk * v;
        W += wk;
      }
      if (W === 0) continue;
      xb[n] = pc.xs[r] as number;
      yb[n] = sum / W;
      n++;
    }
    return curveMetricsSorted(xb, yb, n, n > 0 && xb[0] === 0, m)[metric] ?? Number.NaN;
  };
  return (w, flip) => side(w, flip, true) - side(w, flip, false);
}

/** A paired contrast with its interval and exact sign-flip p. */
export interface PairedEstimate {
  estimate: Estimate;
  p: number | null;
}

/**
 * metric(A) - metric(B) of a pair: the point, a paired interval over evaluation seeds (the curve
 * family's method, the seed stream of the game's seed list) and the two-sided sign-flip p.
 */
export function pairedMetricEstimate(pc: PairedCurves, metric: keyof CurveMetrics, cfg: BootstrapConfig, key: readonly string[]): PairedEstimate {
  const stat = pairedStatistic(pc, metric);
  const ones = new Int32Array(pc.K).fill(1);
  const point = stat(ones);
  if (!Number.isFinite(point)) return { estimate: { point: null, lo: null, hi: null }, p: null };
  const p = signFlipTest(pc.K, DEFAULT_FLIPS, bootstrapRng(cfg.seed, "paired-flips", metric, ...key), (flip) => stat(ones, flip)).p;
  if (cfg.B === 0) return { estimate: { point, lo: null, hi: null, n: pc.K }, p };
  const r = tableInterval(simpleDesign(pc.K), (w) => stat(w), cfg.B, seedStream(cfg.seed, pc.first), methodOf(cfg, "curve"), cfg.level ?? DEFAULT_LEVEL, ANY_RANGE);
  return { estimate: { point, lo: r.interval.lo, hi: r.interval.hi, n: pc.K }, p };
}
