/**
 * Seeded percentile bootstrap (metrics.md, "Uncertainty").
 *
 * Reproducibility: every resampling stream is its own generator derived from (seed, purpose, unit key)
 * with the kit's Rng (FNV-1a -> splitmix32 -> xoshiro128**), never Math.random and never a stream
 * shared across rows. So a row's interval depends only on the seed and that row's data: filtering
 * models (--models) or adding a game leaves the other rows' digits unchanged.
 */
import * as ss from "simple-statistics";
import { Rng } from "../../util/rng.js";
import type { OptionTable } from "../../util/options.js";

/** The interval methods bench/coverage compares (intervals.ts implements them). */
export type IntervalMethod = "percentile" | "bca" | "studentized";

/** How intervals are made; printed under every table. */
export interface BootstrapConfig {
  /**
   * The interval method (default DEFAULT_METHOD of coverage.ts: the one bench/coverage measured to
   * cover best). Tables fall back to percentile where the method is not defined (see tableInterval).
   */
  method?: IntervalMethod;
  /** Resamples (default 2000). */
  B: number;
  /** Seed of every resampling stream. */
  seed: number;
  /** Central coverage (default 0.95). */
  level?: number;
}

export const DEFAULT_B = 2000;
export const DEFAULT_LEVEL = 0.95;

/**
 * The bootstrap rows of the commands that draw intervals from the logs (`view`, `export --format
 * inspect`): the resamples per interval and the seed of the streams, as `report` defaults them.
 */
export const BOOTSTRAP_OPTIONS: OptionTable<{ bootstrap: number; seed: number }> = {
  bootstrap: {
    name: "bootstrap",
    kind: { type: "int", range: { min: 1, max: 1_000_000 } },
    arg: "B",
    default: DEFAULT_B,
    help: `bootstrap resamples per interval (default ${DEFAULT_B}, as report)`,
  },
  seed: { name: "seed", kind: { type: "int", range: { min: 0, max: 4_294_967_295 } }, default: 0, arg: "N", help: "seed of the bootstrap streams (default 0, as report)" },
};

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
  /**
   * How many resampling units (evaluation seeds, episodes, runs) the interval rests on; absent when
   * the number is not bootstrapped. Tables print it as `<key>_n` in CSV.
   */
  n?: number;
  /**
   * True when `n` is below what bench/coverage showed the interval method needs for this metric
   * (coverage.ts): Markdown and HTML then print `n=3` beside the interval and a note says why.
   */
  indicative?: boolean;
  /** A short mark printed after the cell (e.g. `to x=27` when a failed last checkpoint shortens AUC+). */
  mark?: string;
  /**
   * Why a missing point is missing (e.g. `not estimable`): Markdown and HTML print it in place of the
   * number; CSV leaves the cell empty, as for any missing value (the table's notes give the rule).
   */
  missing?: string;
}

/** The estimate with no interval (a statistic that is not bootstrapped, or is missing). */
export function pointOnly(point: number | null): Estimate {
  return { point, lo: null, hi: null };
}

/** The generator of one resampling stream: the same (seed, key parts) always gives the same draws. */
export function bootstrapRng(seed: number, ...key: readonly string[]): Rng {
  return Rng.fromKey(`s3gym/bootstrap/${seed}/${key.join("/")}`);
}

/** The replicates that `keep` accepts (default: every one but NaN, the statistic undefined there), ascending. */
export function sortedReplicates(replicates: ArrayLike<number>, keep: (v: number) => boolean = (v) => !Number.isNaN(v)): number[] {
  const vals = new Float64Array(replicates.length);
  let n = 0;
  for (let i = 0; i < replicates.length; i++) {
    const v = replicates[i] as number;
    if (keep(v)) vals[n++] = v;
  }
  // A typed array sorts numerically without a comparator call per pair (no NaN is left to place; a
  // -0 sorts before a +0, which no printed digit can tell apart).
  return Array.from(vals.subarray(0, n).sort());
}

/**
 * Percentile interval of bootstrap replicates: the (1-level)/2 and (1+level)/2 quantiles (linear
 * interpolation, simple-statistics' quantileSorted, numpy's default). NaN replicates (the statistic
 * undefined on that resample) are left out; none left -> {null, null}.
 */
export function percentileInterval(replicates: ArrayLike<number>, level = DEFAULT_LEVEL): Interval {
  const vals = sortedReplicates(replicates);
  if (vals.length === 0) return { lo: null, hi: null };
  const alpha = (1 - level) / 2;
  return { lo: ss.quantileSorted(vals, alpha), hi: ss.quantileSorted(vals, 1 - alpha) };
}

/**
 * Rounds to 12 significant digits: values equal in exact arithmetic but apart by floating-point noise
 * (0.1 + 0.2 vs 0.3) become equal, so they tie when ranked (metrics.md, ranks). NaN and infinities
 * pass through.
 */
export function roundSig(x: number, digits = 12): number {
  return Number.isFinite(x) && x !== 0 ? Number(x.toPrecision(digits)) : x;
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
export function bootstrapReplicates<T>(units: readonly T[], statistic: (sample: readonly T[]) => number | null, B: number, rng: Rng): Float64Array {
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
export function bootstrapEstimate<T>(units: readonly T[], statistic: (sample: readonly T[]) => number | null, cfg: BootstrapConfig, rng: Rng): Estimate {
  const point = statistic(units);
  if (point === null) return pointOnly(null);
  return estimate(point, bootstrapReplicates(units, statistic, cfg.B, rng), cfg.level ?? DEFAULT_LEVEL);
}

/**
 * Which measured default a table interval takes (bench/coverage, docs/analysis.md):
 * - curve: Avg, Max, AUC+, NABA, dNABA, view metrics and compare's paired differences, over evaluation
 *   seeds. The percentile interval: the bootstrap-t's width tail failed at every size measured (99th
 *   percentile width 4 to 1000 times the true spread at 10 seeds; AUC+ intervals below 0), and no
 *   method reached 95 +- 3 in every outcome shape, so these are always marked `n=K`.
 * - judging and correlation: the bootstrap-t from 10 units (met the rule for NMAE, coupling rho and
 *   the run-level correlation), BCa for multi-stage pooled rows, percentile below 10 units.
 */
export type MethodFamily = "curve" | "judging" | "correlation";

export const DEFAULT_METHODS: Readonly<Record<MethodFamily, IntervalMethod>> = { curve: "percentile", judging: "studentized", correlation: "studentized" };

/** The interval method a config asks for (the measured default of the family when it names none). */
export function methodOf(cfg: BootstrapConfig, family: MethodFamily = "judging"): IntervalMethod {
  return cfg.method ?? DEFAULT_METHODS[family];
}

/** How a method is named under a table. */
export function describeMethod(method: IntervalMethod): string {
  if (method === "percentile") return "percentile bootstrap";
  if (method === "bca") return "BCa bootstrap";
  return "studentized bootstrap (bootstrap-t, jackknife standard errors; BCa for multi-stage rows, percentile below 10 or above 50 units and where an interval would leave the statistic's range)";
}

/**
 * The methods a table's intervals actually used (metrics.md: "the method ... printed under every
 * table"), counted per estimate: the configured method falls back per cell (few units, multi-stage
 * rows, out of range), so naming the configured one would misstate most tables.
 */
/**
 * What a table's intervals were made by: a bootstrap method, or one of the tests the paired gains
 * invert (`signflip`: the exact sign-flip test over evaluation seeds; `truns`: the t test over runs).
 */
export type TallyMethod = IntervalMethod | "signflip" | "truns" | "runshull";

/** The tally key of a paired gain's interval, from the test its p came from (gainTables.ts estimateGain). */
export function gainTallyMethod(test: "sign-flip" | "t over runs" | undefined): TallyMethod {
  return test === "t over runs" ? "truns" : "signflip";
}

export class MethodTally {
  private readonly counts = new Map<string, number>();

  /** Counts one interval made with `method`; `fellBack`: the percentile replaced an out-of-range one. */
  add(method: TallyMethod, fellBack = false, times = 1): void {
    const key = fellBack ? "fallback" : method;
    this.counts.set(key, (this.counts.get(key) ?? 0) + times);
  }

  get size(): number {
    return this.counts.size;
  }

  /** E.g. "percentile bootstrap (24 intervals), studentized bootstrap (bootstrap-t) (4)". */
  describe(): string {
    const order = ["percentile", "bca", "studentized", "fallback", "signflip", "truns", "runshull"];
    const name: Record<string, string> = {
      percentile: "percentile bootstrap",
      bca: "BCa bootstrap",
      studentized: "studentized bootstrap (bootstrap-t, jackknife standard errors)",
      fallback: "percentile bootstrap in place of a bootstrap-t interval that left the statistic's range",
      signflip: "inversion of the exact sign-flip test",
      truns: "t interval over runs",
      runshull: "hull of the t interval over runs and the two-stage percentile interval (runs, then evaluation seeds)",
    };
    const parts = order.filter((k) => this.counts.has(k)).map((k, i) => `${name[k]} (${this.counts.get(k)}${i === 0 ? " intervals" : ""})`);
    return parts.join(", ");
  }
}

/**
 * The line printed under a table: method, level, B, seed and what was resampled. With a tally, the
 * methods its intervals actually used; without one (or an empty one) the configured method.
 */
export function describeBootstrap(cfg: BootstrapConfig, unit: string, used?: MethodTally): string {
  const level = Math.round((cfg.level ?? DEFAULT_LEVEL) * 100);
  // A tally that stayed empty: the table printed no interval, whatever the configured method.
  const method = used === undefined ? describeMethod(methodOf(cfg)) : used.size > 0 ? `intervals by ${used.describe()}` : "no intervals (no estimate was bootstrapped)";
  return `Intervals: ${level}% ${method}, B = ${cfg.B}, seed = ${cfg.seed}; resampled: ${unit}.`;
}

/**
 * The methods a table's first note (describeBootstrap's line) names, in short: "percentile",
 * "bootstrap-t", "BCa", "percentile fallback"; empty for a note that is not an interval line. For
 * the summaries (report.json, `s3gym report`, `s3gym reproduce`), which name the method per table.
 */
export function methodsNamed(note: string | undefined): string[] {
  // A table that resamples nothing (cost, training) or printed no interval names no method.
  if (note === undefined || !note.startsWith("Intervals:") || note.includes("resampled: nothing") || note.includes("no intervals")) return [];
  const head = note.slice(0, note.indexOf(", B = ") >= 0 ? note.indexOf(", B = ") : note.length);
  const out: string[] = [];
  if (/percentile bootstrap(?! in place)/.test(head)) out.push("percentile");
  if (head.includes("studentized bootstrap")) out.push("bootstrap-t");
  if (head.includes("BCa bootstrap")) out.push("BCa");
  if (head.includes("in place of")) out.push("percentile fallback");
  if (head.includes("inversion of the exact sign-flip test")) out.push("sign-flip inversion");
  if (/(?<!hull of the )t interval over runs/.test(head)) out.push("t over runs");
  if (head.includes("hull of the t interval over runs")) out.push("t over runs + two-stage percentile hull");
  return out;
}
