/**
 * Seeded percentile bootstrap (metrics.md, "Uncertainty").
 *
 * Reproducibility: every resampling stream is its own generator derived from (seed, purpose, unit key)
 * with the kit's Rng (FNV-1a -> splitmix32 -> xoshiro128**), never Math.random and never a stream
 * shared across rows. So a row's interval depends only on the seed and that row's data: filtering
 * models (--models) or adding a game leaves the other rows' digits unchanged.
 */
import * as ss from "simple-statistics";
import { Rng } from "../util/rng.js";

/** How intervals are made; printed under every table. */
export interface BootstrapConfig {
  /** Resamples (default 2000). */
  B: number;
  /** Seed of every resampling stream. */
  seed: number;
  /** Central coverage (default 0.95). */
  level?: number;
}

export const DEFAULT_B = 2000;
export const DEFAULT_LEVEL = 0.95;

/** A percentile interval; both ends null when no replicate was defined. */
export interface Interval {
  lo: number | null;
  hi: number | null;
}

/** A point estimate with its interval (all null when the statistic is missing). */
export interface Estimate {
  point: number | null;
  lo: number | null;
  hi: number | null;
}

/** The estimate with no interval (a statistic that is not bootstrapped, or is missing). */
export function pointOnly(point: number | null): Estimate {
  return { point, lo: null, hi: null };
}

/** The generator of one resampling stream: the same (seed, key parts) always gives the same draws. */
export function bootstrapRng(seed: number, ...key: readonly string[]): Rng {
  return Rng.fromKey(`s3gym/bootstrap/${seed}/${key.join("/")}`);
}

/**
 * Percentile interval of bootstrap replicates: the (1-level)/2 and (1+level)/2 quantiles (linear
 * interpolation, simple-statistics' quantileSorted, numpy's default). NaN replicates (the statistic
 * undefined on that resample) are left out; none left -> {null, null}.
 */
export function percentileInterval(replicates: ArrayLike<number>, level = DEFAULT_LEVEL): Interval {
  const vals: number[] = [];
  for (let i = 0; i < replicates.length; i++) {
    const v = replicates[i] as number;
    if (!Number.isNaN(v)) vals.push(v);
  }
  if (vals.length === 0) return { lo: null, hi: null };
  vals.sort((a, b) => a - b);
  const alpha = (1 - level) / 2;
  return { lo: ss.quantileSorted(vals, alpha), hi: ss.quantileSorted(vals, 1 - alpha) };
}

/** Combines a point and replicates into an Estimate (no interval when the point is missing). */
export function estimate(point: number | null, replicates: ArrayLike<number> | null, level = DEFAULT_LEVEL): Estimate {
  if (point === null || replicates === null) return pointOnly(point);
  return { point, ...percentileInterval(replicates, level) };
}

/** Mean of a resample (with replacement, same count) of `values`; NaN for an empty list. */
export function resampleMean(values: ArrayLike<number>, rng: Rng): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[rng.int(n)] as number;
  return sum / n;
}

/** Fills `out` (or a new array) with n indices drawn uniformly with replacement from 0..n-1. */
export function resampleIndices(rng: Rng, n: number, out?: Int32Array): Int32Array {
  const idx = out ?? new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = rng.int(n);
  return idx;
}

/**
 * Generic nonparametric bootstrap: B replicates of `statistic` over resamples of `units` (with
 * replacement, same count). A null statistic becomes NaN. Returns the replicates in draw order.
 */
export function bootstrapReplicates<T>(
  units: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  B: number,
  rng: Rng,
): Float64Array {
  const out = new Float64Array(B);
  const n = units.length;
  if (n === 0) return out.fill(Number.NaN);
  const sample: T[] = new Array<T>(n);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < n; i++) sample[i] = units[rng.int(n)] as T;
    out[b] = statistic(sample) ?? Number.NaN;
  }
  return out;
}

/** Point estimate on `units` plus its percentile interval from bootstrapReplicates. */
export function bootstrapEstimate<T>(
  units: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  cfg: BootstrapConfig,
  rng: Rng,
): Estimate {
  const point = statistic(units);
  if (point === null) return pointOnly(null);
  return estimate(point, bootstrapReplicates(units, statistic, cfg.B, rng), cfg.level ?? DEFAULT_LEVEL);
}

/** The line printed under a table: method, level, B, seed and what was resampled. */
export function describeBootstrap(cfg: BootstrapConfig, unit: string): string {
  const level = Math.round((cfg.level ?? DEFAULT_LEVEL) * 100);
  return `Intervals: ${level}% percentile bootstrap, B = ${cfg.B}, seed = ${cfg.seed}; resampled: ${unit}.`;
}
