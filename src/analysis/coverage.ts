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
import { methodOf, type IntervalMethod } from "./bootstrap.js";

/** The interval method of every table, chosen from the measured coverage (docs/analysis.md). */
export const DEFAULT_METHOD: IntervalMethod = methodOf({ B: 0, seed: 0 });

/** The table metrics the coverage bench measures, with the unit they resample. */
export type CoverageMetric =
  | "avg"
  | "max"
  | "auc_plus"
  | "naba"
  | "dnaba"
  | "agree"
  | "agree_pooled"
  | "nmae"
  | "nmae_pooled"
  | "rho_agree"
  | "pearson_cells";

/** Unit sizes the bench measures. */
export const COVERAGE_UNITS = [3, 5, 10, 30] as const;

/**
 * Coverage (in %) of the 95% interval the tables use for each metric at each unit size, from
 * `npm run bench:coverage` (docs/analysis.md has every method, the widths and the data-set counts;
 * each figure is known to about +-2 points): the bootstrap-t for single-stage designs, BCa for the
 * two-stage pooled rows. Where the bench has two scenarios (improving and flat curves) the lower
 * coverage is kept.
 */
export const MEASURED_COVERAGE: Record<CoverageMetric, { unit: string; coverage: Record<(typeof COVERAGE_UNITS)[number], number> }> = {
  avg: { unit: "evaluation seeds", coverage: { 3: 82.9, 5: 91.6, 10: 92.8, 30: 93.4 } },
  max: { unit: "evaluation seeds", coverage: { 3: 79.8, 5: 90.0, 10: 87.6, 30: 88.2 } },
  auc_plus: { unit: "evaluation seeds", coverage: { 3: 84.6, 5: 94.0, 10: 95.6, 30: 95.3 } },
  naba: { unit: "evaluation seeds", coverage: { 3: 83.1, 5: 92.1, 10: 93.1, 30: 95.6 } },
  dnaba: { unit: "evaluation seeds (paired)", coverage: { 3: 78.8, 5: 89.1, 10: 89.6, 30: 91.0 } },
  agree: { unit: "episodes per run", coverage: { 3: 88.1, 5: 93.0, 10: 94.0, 30: 94.0 } },
  agree_pooled: { unit: "runs", coverage: { 3: 73.9, 5: 87.4, 10: 92.9, 30: 95.8 } },
  nmae: { unit: "episodes per run", coverage: { 3: 87.9, 5: 92.2, 10: 93.6, 30: 93.8 } },
  nmae_pooled: { unit: "runs", coverage: { 3: 74.5, 5: 86.1, 10: 92.6, 30: 94.8 } },
  rho_agree: { unit: "runs", coverage: { 3: 84.1, 5: 93.8, 10: 93.5, 30: 94.8 } },
  pearson_cells: { unit: "model x game cells", coverage: { 3: 75.4, 5: 95.7, 10: 94.3, 30: 94.7 } },
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
export function smallNNote(
  rows: readonly object[],
  columns: readonly { key: string; metric: CoverageMetric | ((row: object) => CoverageMetric) }[],
): string[] {
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
