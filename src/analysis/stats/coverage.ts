/**
 * What bench/coverage measured, as data the tables use (metrics.md, "Uncertainty"): for every table
 * metric, the empirical coverage of the default interval method at 3, 5, 10 and 30 resampling units,
 * and the fewest units at which it covered 95% +- 3 points. A number resting on fewer units is printed
 * with `n=K` beside its interval and a note under the table, never as a confident interval.
 *
 * The numbers are copied from `npm run bench:coverage` (docs/analysis.md has the full table with
 * every method and the widths); rerun the bench and update both when the resampling changes.
 */
import type { Estimate } from "./bootstrap.js";
import { DEFAULT_METHODS, type IntervalMethod, type MethodFamily } from "./bootstrap.js";

/**
 * The interval method of each family of tables, chosen by coverage, width tail and range together
 * (docs/analysis.md): percentile for curve metrics, the bootstrap-t from 10 units for judging and
 * correlations (BCa for pooled rows, percentile below 10 units or out of range).
 */
export const DEFAULT_METHOD: Readonly<Record<MethodFamily, IntervalMethod>> = DEFAULT_METHODS;

/** The table metrics the coverage bench measures, with the unit they resample. */
export type CoverageMetric =
  | "avg"
  | "avg_hull"
  | "avg_runs"
  | "auc_plus_runs"
  | "gain"
  | "gain_runs"
  | "max"
  | "auc_plus"
  | "naba"
  | "dnaba"
  | "agree"
  | "agree_pooled"
  | "nmae"
  | "nmae_pooled"
  | "rho_agree"
  | "pearson_cells"
  | "balanced_accuracy"
  | "auroc";

/** Unit sizes the bench measures. */
export const COVERAGE_UNITS = [3, 5, 10, 30] as const;

/**
 * Coverage (in %) of the 95% interval the tables print for each metric at each unit size, in the
 * WORST outcome shape the bench simulates (continuous, heavy-tailed, binary, count, negative start,
 * flat), from `npm run bench:coverage` (400 data sets per cell: about +-2 points near 95%;
 * docs/analysis.md has every method, the width tail and the out-of-range share). Curve metrics: the
 * percentile interval; judging and correlations: the `table` column (percentile below 10 units, the
 * bootstrap-t from 10, BCa for pooled rows, percentile where an interval would leave the range).
 * The fewest units that reach 95 +- 3 here are also where the width tail (99th percentile <= 3 times
 * the true spread) and the range (0 out) held, so minSupportedUnits is the bench's K.
 */
export const MEASURED_COVERAGE: Record<CoverageMetric, { unit: string; coverage: Record<(typeof COVERAGE_UNITS)[number], number> }> = {
  // A mean of scores by the percentile bootstrap (the view tables, the training seeds).
  avg: { unit: "evaluation seeds", coverage: { 3: 68.3, 5: 77.0, 10: 85.0, 30: 90.0 } },
  // main_results' Avg at one run: the bootstrap-t hull (intervals.ts studentizedHullInterval), lowest
  // shape of 8 (bench/coverage: 400 data sets at 3, 5 and 30; n = 10 from the default-design table, 800).
  avg_hull: { unit: "evaluation seeds", coverage: { 3: 91.5, 5: 95.0, 10: 94.3, 30: 93.8 } },
  // Several runs (the model as estimand: its expected statistic over run seeds and evaluation seeds,
  // run-to-run variance in the simulation). Avg: the t interval over the runs' Avgs cut at the scores
  // observed; AUC+: its hull with the two-stage percentile interval (intervals.ts runsHullInterval).
  // Lowest shape of 8 with run-to-run variance at 3 runs x 10 evaluation seeds (bench/coverage's
  // default-design table, 800 data sets per cell); at 5 runs the continuous shape. 10 and 30 runs are
  // not simulated: they carry the 5-run value (the t part only tightens toward normal as runs grow).
  // NABA has no entry: no method covered it in every shape, so rows of several runs print its point.
  avg_runs: { unit: "runs", coverage: { 3: 94.3, 5: 94.9, 10: 94.9, 30: 94.9 } },
  auc_plus_runs: { unit: "runs", coverage: { 3: 95.0, 5: 98.0, 10: 98.0, 30: 98.0 } },
  // gain_vs_none and gain_vs_y0 at one run (or runs kept): the inverted sign-flip test. At 3 and 5
  // seeds the test cannot reject at 5%, so no interval is printed (nothing to flag); lowest shape.
  gain: { unit: "evaluation seeds (paired)", coverage: { 3: 100, 5: 100, 10: 93.9, 30: 93.9 } },
  gain_runs: { unit: "runs", coverage: { 3: 95.0, 5: 95.4, 10: 95.4, 30: 95.4 } },
  max: { unit: "evaluation seeds", coverage: { 3: 1.5, 5: 6.5, 10: 10.8, 30: 32.3 } },
  auc_plus: { unit: "evaluation seeds", coverage: { 3: 71.3, 5: 78.5, 10: 87.0, 30: 91.3 } },
  naba: { unit: "evaluation seeds", coverage: { 3: 72.3, 5: 82.8, 10: 89.5, 30: 93.3 } },
  dnaba: { unit: "evaluation seeds (paired)", coverage: { 3: 71.5, 5: 82.5, 10: 89.8, 30: 92.5 } },
  agree: { unit: "episodes per run", coverage: { 3: 81.8, 5: 88.3, 10: 94.5, 30: 91.8 } },
  agree_pooled: { unit: "models", coverage: { 3: 73.5, 5: 87.3, 10: 92.3, 30: 95.5 } },
  nmae: { unit: "episodes per run", coverage: { 3: 76.3, 5: 87.5, 10: 92.8, 30: 95.8 } },
  nmae_pooled: { unit: "models", coverage: { 3: 75.5, 5: 89.3, 10: 93.3, 30: 96.5 } },
  rho_agree: { unit: "runs", coverage: { 3: 70.8, 5: 86.8, 10: 93.8, 30: 92.3 } },
  pearson_cells: { unit: "model x game cells", coverage: { 3: 93.3, 5: 92.3, 10: 92.3, 30: 96.3 } },
  // Model rows only (`npm run bench:coverage -- --only balanced_accuracy,auroc`); pooled rows use agree_pooled's.
  balanced_accuracy: { unit: "episodes per run", coverage: { 3: 82.5, 5: 88.3, 10: 94.3, 30: 95.8 } },
  auroc: { unit: "episodes per run", coverage: { 3: 82.5, 5: 88.0, 10: 95.0, 30: 94.8 } },
};

/** The target: 95% +- 3 points (metrics.md). */
export const COVERAGE_TOLERANCE = 3;

/**
 * The fewest units at which the default method covered within tolerance, and kept doing so at every
 * larger size measured; null when no measured size did (the interval is then always indicative).
 */
export function minSupportedUnits(metric: CoverageMetric): number | null {
  const cov = MEASURED_COVERAGE[metric].coverage;
  let min: number | null = null;
  for (let i = COVERAGE_UNITS.length - 1; i >= 0; i--) {
    const u = COVERAGE_UNITS[i] as (typeof COVERAGE_UNITS)[number];
    if (Math.abs(cov[u] - 95) <= COVERAGE_TOLERANCE) min = u;
    else break;
  }
  return min;
}

/** The coverage measured at the largest measured size not above n (null below the smallest). */
export function coverageAt(metric: CoverageMetric, n: number): number | null {
  let out: number | null = null;
  for (const u of COVERAGE_UNITS) if (u <= n) out = MEASURED_COVERAGE[metric].coverage[u];
  return out;
}

/** Marks an estimate indicative when its unit count is below what the coverage table supports. */
export function flagEstimate(e: Estimate, metric: CoverageMetric): Estimate {
  if (e.point === null || e.lo === null || e.n === undefined) return e;
  const min = minSupportedUnits(metric);
  return min === null || e.n < min ? { ...e, indicative: true } : e;
}

/**
 * The note under a table that has indicative intervals: which metric, how many units, the coverage
 * measured there and the size it needs. Empty when no estimate of `columns` is indicative.
 */
export function smallNNote(rows: readonly object[], columns: readonly { key: string; metric: CoverageMetric | ((row: object) => CoverageMetric) }[]): string[] {
  const parts: string[] = [];
  for (const col of columns) {
    const byMetric = new Map<CoverageMetric, Set<number>>();
    for (const row of rows) {
      const e = (row as Record<string, unknown>)[col.key] as Estimate | undefined;
      if (e?.indicative !== true || e.n === undefined) continue;
      const metric = typeof col.metric === "function" ? col.metric(row) : col.metric;
      const ns = byMetric.get(metric) ?? new Set<number>();
      ns.add(e.n);
      byMetric.set(metric, ns);
    }
    for (const [metric, ns] of byMetric) parts.push(describe(col.key, metric, ns));
  }
  if (parts.length === 0) return [];
  return [
    `n=K beside an interval: it rests on K resampling units, fewer than bench/coverage showed the 95% interval needs, so it is indicative only (its real coverage is lower): ${parts.join("; ")}.`,
  ];
}

function describe(key: string, metric: CoverageMetric, ns: Set<number>): string {
  {
    const min = minSupportedUnits(metric);
    const sizes = [...ns].sort((a, b) => a - b);
    const cov = sizes.map((n) => {
      const c = coverageAt(metric, n);
      return c === null ? `n=${n}: below the smallest size measured` : `n=${n}: ${c.toFixed(0)}% measured`;
    });
    const need = min === null ? "no size up to 30 reached 95% +- 3" : `${min} or more ${MEASURED_COVERAGE[metric].unit} are needed for 95% +- 3`;
    return `${key}${metric !== key ? ` [${metric}]` : ""} (${cov.join(", ")}; ${need})`;
  }
}
