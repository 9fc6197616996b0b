/**
 * Signed improvement (metrics.md, "Improvement against the control"):
 * - gain_vs_y0 = mean over checkpoints x >= GAIN_FROM_X of (y(x) - y0);
 * - gain_vs_none = mean over x >= GAIN_FROM_X of (y_P(x) - y_none(x)), the none run being the same
 *   model's no-experience pathway on the same evaluation seeds.
 * Unlike NABA neither is clipped nor divided, so noise averages to 0 and a loss reads as a loss.
 *
 * Two levels: the curve functions (gainVsY0, gainVsNone) work on mean curves; the seed-level
 * GainData (a checkpoint x seed matrix of paired differences) is what the bootstrap resamples and
 * the sign-flip test flips. On complete data both levels agree (a test checks it).
 */
import type { Rng } from "../../util/rng.js";
import type { CurvePoint } from "./curves.js";
import type { SeedCurve } from "../stats/seedCurves.js";
import { sameSeeds } from "../stats/seedCurves.js";
import { signFlipInversion, signFlipTest, type SignFlipInterval, type SignFlipResult } from "../stats/signFlip.js";

/** The first checkpoint a gain averages over (metrics.md: x >= 3, after a few experiences). */
export const GAIN_FROM_X = 3;

function validFrom(curve: readonly CurvePoint[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of curve) if (p.y !== null && p.x >= GAIN_FROM_X) out.set(p.x, p.y);
  return out;
}

/** gain_vs_y0 of a mean curve: null without y0 or without a valid checkpoint x >= 3. */
export function gainVsY0(curve: readonly CurvePoint[]): number | null {
  const y0 = curve.find((p) => p.x === 0)?.y ?? null;
  if (y0 === null) return null;
  const ys = [...validFrom(curve).values()];
  return ys.length === 0 ? null : ys.reduce((a, y) => a + (y - y0), 0) / ys.length;
}

/** gain_vs_none of two mean curves, over the checkpoints x >= 3 valid in both; null when there is none. */
export function gainVsNone(curveP: readonly CurvePoint[], curveNone: readonly CurvePoint[]): number | null {
  const p = validFrom(curveP);
  const n = validFrom(curveNone);
  const diffs: number[] = [];
  for (const [x, y] of p) {
    const yn = n.get(x);
    if (yn !== undefined) diffs.push(y - yn);
  }
  return diffs.length === 0 ? null : diffs.reduce((a, d) => a + d, 0) / diffs.length;
}

/**
 * Paired differences, unit by unit: d[r * n + k] is unit k's difference at row r (a checkpoint
 * x >= 3), NaN where a side is missing. Units are evaluation seeds, grouped in clusters (one per
 * run, or per pair of runs, when a row holds several run seeds): `sizes` are the clusters' unit
 * counts, in unit order.
 */
export interface GainData {
  rows: number;
  n: number;
  d: Float64Array;
  sizes: number[];
}

/** The row index of x in a SeedCurve, or -1. */
function rowOf(sc: SeedCurve, x: number): number {
  return sc.xs.indexOf(x);
}

/** Seed-level gain_vs_y0 data of a run: y_k(x) - y_k(0) for x >= 3; null without a checkpoint 0 or x >= 3. */
export function gainVsY0Data(sc: SeedCurve): GainData | null {
  const c0 = rowOf(sc, 0);
  const xs = sc.xs.filter((x) => x >= GAIN_FROM_X);
  if (c0 < 0 || xs.length === 0) return null;
  const K = sc.keys.length;
  const d = new Float64Array(xs.length * K);
  xs.forEach((x, r) => {
    const c = rowOf(sc, x);
    for (let k = 0; k < K; k++) d[r * K + k] = (sc.scores[c * K + k] as number) - (sc.scores[c0 * K + k] as number);
  });
  return { rows: xs.length, n: K, d, sizes: [K] };
}

/**
 * Seed-level gain_vs_none data of a run of pathway P and its none run: y_P,k(x) - y_none,k(x) on the
 * checkpoints x >= 3 both have. Null when they were not evaluated on the same seeds (no pairing) or
 * share no such checkpoint.
 */
export function gainVsNoneData(scP: SeedCurve, scNone: SeedCurve): GainData | null {
  if (!sameSeeds(scP, scNone)) return null;
  const xs = scP.xs.filter((x) => x >= GAIN_FROM_X && rowOf(scNone, x) >= 0);
  if (xs.length === 0) return null;
  const K = scP.keys.length;
  const d = new Float64Array(xs.length * K);
  xs.forEach((x, r) => {
    const a = rowOf(scP, x);
    const b = rowOf(scNone, x);
    for (let k = 0; k < K; k++) d[r * K + k] = (scP.scores[a * K + k] as number) - (scNone.scores[b * K + k] as number);
  });
  return { rows: xs.length, n: K, d, sizes: [K] };
}

/** Several runs' data as one, each run a cluster (its rows padded with NaN to the longest). */
export function concatGain(parts: readonly GainData[]): GainData | null {
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0] as GainData;
  const rows = Math.max(...parts.map((p) => p.rows));
  const n = parts.reduce((a, p) => a + p.n, 0);
  const d = new Float64Array(rows * n).fill(Number.NaN);
  let o = 0;
  for (const p of parts) {
    for (let r = 0; r < p.rows; r++) for (let k = 0; k < p.n; k++) d[r * n + o + k] = p.d[r * p.n + k] as number;
    o += p.n;
  }
  return { rows, n, d, sizes: parts.flatMap((p) => p.sizes) };
}

/**
 * The gain of one cluster's units [o, o + size) under weights w and signs: per row, the weighted
 * mean of the present differences (sign -1 = that unit's sides swapped), then the mean over rows
 * that have one. NaN when no row has a weighted unit.
 */
function clusterGain(g: GainData, o: number, size: number, w: ArrayLike<number>, flip: ArrayLike<number> | null): number {
  let total = 0;
  let rowsUsed = 0;
  for (let r = 0; r < g.rows; r++) {
    let sum = 0;
    let W = 0;
    for (let k = o; k < o + size; k++) {
      const wk = w[k] as number;
      if (wk === 0) continue;
      const v = g.d[r * g.n + k] as number;
      if (Number.isNaN(v)) continue;
      sum += wk * (flip !== null && flip[k] ? -v : v);
      W += wk;
    }
    if (W === 0) continue;
    total += sum / W;
    rowsUsed++;
  }
  return rowsUsed === 0 ? Number.NaN : total / rowsUsed;
}

/**
 * The gain under unit weights (and optional sign flips): the mean over clusters of their gain, a
 * cluster counted as often as it was drawn (a two-stage draw adds exactly `size` to a cluster's
 * weight per draw, so weight / size is its multiplicity).
 */
export function gainUnderWeights(g: GainData, w: ArrayLike<number>, flip: ArrayLike<number> | null = null): number {
  let total = 0;
  let mult = 0;
  let o = 0;
  for (const size of g.sizes) {
    let wsum = 0;
    for (let k = o; k < o + size; k++) wsum += w[k] as number;
    if (wsum > 0) {
      const v = clusterGain(g, o, size, w, flip);
      if (!Number.isNaN(v)) {
        const m = wsum / size;
        total += m * v;
        mult += m;
      }
    }
    o += size;
  }
  return mult === 0 ? Number.NaN : total / mult;
}

/** The point gain (every unit once). */
export function gainPoint(g: GainData): number | null {
  const v = gainUnderWeights(g, new Int32Array(g.n).fill(1));
  return Number.isFinite(v) ? v : null;
}

/** The exact sign-flip p of a gain (signFlip.ts): flipping a unit negates its differences. */
export function gainSignFlipP(g: GainData, flips: number, rng: Rng): SignFlipResult {
  const ones = new Int32Array(g.n).fill(1);
  return signFlipTest(g.n, flips, rng, (flip) => gainUnderWeights(g, ones, flip));
}

/**
 * The gain as a linear statistic of its units (signFlip.ts, signFlipInversion): with every unit once,
 * the gain is sum_k u_k where u_k = sum_r c_rk d_rk and c_rk = 1 / (clusters with a value x rows the
 * unit's cluster uses x units present at that row of that cluster); c_k = sum_r c_rk (sum_k c_k = 1).
 * Flipping unit k negates its u_k, exactly as gainUnderWeights(g, ones, flip) does, so the test of
 * the shifted differences d - delta is the test of sum_k s_k (u_k - delta c_k).
 */
export function gainLinearForm(g: GainData): { u: Float64Array; c: Float64Array } {
  const u = new Float64Array(g.n);
  const c = new Float64Array(g.n);
  // Per cluster: the rows with a present unit, and each row's present count.
  const perCluster: { o: number; size: number; rowsUsed: number; present: Int32Array }[] = [];
  let o = 0;
  for (const size of g.sizes) {
    const present = new Int32Array(g.rows);
    let rowsUsed = 0;
    for (let r = 0; r < g.rows; r++) {
      for (let k = o; k < o + size; k++) if (!Number.isNaN(g.d[r * g.n + k] as number)) present[r] = (present[r] as number) + 1;
      if ((present[r] as number) > 0) rowsUsed++;
    }
    perCluster.push({ o, size, rowsUsed, present });
    o += size;
  }
  const clusters = perCluster.filter((pc) => pc.rowsUsed > 0).length;
  for (const pc of perCluster) {
    if (pc.rowsUsed === 0) continue;
    for (let r = 0; r < g.rows; r++) {
      const W = pc.present[r] as number;
      if (W === 0) continue;
      const crk = 1 / (clusters * pc.rowsUsed * W);
      for (let k = pc.o; k < pc.o + pc.size; k++) {
        const v = g.d[r * g.n + k] as number;
        if (Number.isNaN(v)) continue;
        u[k] = (u[k] as number) + crk * v;
        c[k] = (c[k] as number) + crk;
      }
    }
  }
  return { u, c };
}

/**
 * The gain's interval from inverting its sign-flip test (evaluation seeds flipped, every run kept):
 * the shifts delta the test of d - delta does not reject at 1 - level, with the test's p at 0. Covers
 * the expected gain of THESE runs over new evaluation seeds. Null without a defined gain.
 */
export function gainSignFlipInterval(g: GainData, flips: number, rng: Rng, level = 0.95): SignFlipInterval | null {
  const { u, c } = gainLinearForm(g);
  return signFlipInversion(u, c, flips, rng, level);
}

/** Each cluster's (run's) own gain, in cluster order (NaN for a cluster without a value). */
export function clusterGains(g: GainData): number[] {
  const out: number[] = [];
  const ones = new Int32Array(g.n).fill(1);
  let o = 0;
  for (const size of g.sizes) {
    out.push(clusterGain(g, o, size, ones, null));
    o += size;
  }
  return out;
}
