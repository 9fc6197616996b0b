/**
 * Bootstrap intervals over resampling UNITS (metrics.md, "Uncertainty"): a statistic is a function of
 * unit multiplicities w (unit i drawn w[i] times), so one code path serves every table (evaluation
 * seeds, episodes, runs, model x game cells) and bench/coverage, which measures how well each method
 * covers. Three candidate methods:
 * - percentile: the (1-level)/2 and (1+level)/2 quantiles of the replicates;
 * - BCa: percentile with bias correction z0 (share of replicates below the point) and acceleration a
 *   (from the leave-one-unit-out jackknife), Efron (1987);
 * - studentized (bootstrap-t): t*_b = (theta*_b - theta) / se*_b with se*_b the jackknife standard
 *   error of the resample, interval theta - t*_{hi} se .. theta - t*_{lo} se, se the jackknife se of
 *   the data. It needs n jackknife evaluations per replicate, so it is the expensive one.
 * Which one the tables use is decided by the measured coverage (bench/coverage.ts, docs/analysis.md).
 */
import * as ss from "simple-statistics";
import type { Rng } from "../../util/rng.js";
import { DEFAULT_LEVEL, percentileInterval, sortedReplicates, type Interval, type IntervalMethod } from "./bootstrap.js";

export type { IntervalMethod };
export const INTERVAL_METHODS: readonly IntervalMethod[] = ["percentile", "bca", "studentized"];

/** A statistic of weighted units: NaN when it is undefined on that resample. */
export type WeightedStatistic = (w: Int32Array) => number;

/**
 * Standard normal CDF from the complementary error function (Chebyshev fit, fractional error below
 * 1.2e-7 everywhere: Numerical Recipes' erfcc). simple-statistics' table-free erf is coarser in the
 * tails, where BCa reads it.
 */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/**
 * Standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9);
 * +-Infinity at 0 and 1.
 */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  const tail = (q: number): number => (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < lo) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - lo) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** Multiplicities of n draws with replacement from 0..n-1 (reuses `w`). */
export function drawWeights(rng: Rng, n: number, w: Int32Array): Int32Array {
  w.fill(0);
  for (let i = 0; i < n; i++) {
    const k = rng.int(n);
    w[k] = (w[k] as number) + 1;
  }
  return w;
}

/** Jackknife standard error from leave-one-out values with multiplicities; NaN when undefined. */
export function jackknifeSe(values: readonly number[], mult: readonly number[]): number {
  let n = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!Number.isFinite(v)) return Number.NaN;
    n += mult[i] as number;
    sum += (mult[i] as number) * v;
  }
  if (n < 2) return Number.NaN;
  const mean = sum / n;
  let ss2 = 0;
  for (let i = 0; i < values.length; i++) ss2 += (mult[i] as number) * ((values[i] as number) - mean) ** 2;
  return Math.sqrt(((n - 1) / n) * ss2);
}

/** BCa acceleration from jackknife values (with multiplicities); 0 when they do not vary. */
export function bcaAcceleration(values: readonly number[], mult: readonly number[]): number {
  let n = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    n += mult[i] as number;
    sum += (mult[i] as number) * (values[i] as number);
  }
  const mean = sum / n;
  let s2 = 0;
  let s3 = 0;
  for (let i = 0; i < values.length; i++) {
    const d = mean - (values[i] as number);
    s2 += (mult[i] as number) * d * d;
    s3 += (mult[i] as number) * d * d * d;
  }
  return s2 > 0 ? s3 / (6 * s2 ** 1.5) : 0;
}

/**
 * BCa interval from replicates, the point and the acceleration. z0 counts replicates below the point
 * (ties count half); a z0 at +-Infinity (every replicate on one side) gives the percentile interval's
 * end on that side, which is all the data can say.
 */
export function bcaInterval(point: number, replicates: ArrayLike<number>, accel: number, level = DEFAULT_LEVEL): Interval {
  const vals = sortedReplicates(replicates);
  if (vals.length === 0) return { lo: null, hi: null };
  let below = 0;
  for (const v of vals) below += v < point ? 1 : v === point ? 0.5 : 0;
  const z0 = normalQuantile(below / vals.length);
  const acc = Number.isFinite(accel) ? accel : 0;
  if (!Number.isFinite(z0)) return { lo: vals[0] as number, hi: vals[vals.length - 1] as number };
  const adj = (alpha: number): number => {
    const z = normalQuantile(alpha);
    const q = normalCdf(z0 + (z0 + z) / (1 - acc * (z0 + z)));
    return Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : alpha;
  };
  const a = (1 - level) / 2;
  return { lo: ss.quantileSorted(vals, adj(a)), hi: ss.quantileSorted(vals, adj(1 - a)) };
}

/** Studentized interval from t replicates (NaN ones left out), the point and its standard error. */
/**
 * Relative size below which a jackknife standard error is rounding noise, not spread: the jackknife
 * of a constant statistic leaves crumbs like 1.26e-15 that pass `se > 0` and make t* = d / se explode.
 */
export const SE_REL_TOL = 1e-9;

/** True when `se` is 0, NaN, or negligible against `scale` (the point's size or the data's se). */
export function seNegligible(se: number, scale: number): boolean {
  return !(se > SE_REL_TOL * Math.abs(scale)) || !(se > 0);
}

export function studentizedInterval(point: number, se: number, tReplicates: ArrayLike<number>, level = DEFAULT_LEVEL): Interval {
  // The statistic does not move when a unit is left out (or only by rounding noise).
  if (Number.isFinite(se) && seNegligible(se, point)) return { lo: point, hi: point };
  const vals = sortedReplicates(tReplicates, Number.isFinite);
  if (vals.length === 0 || !Number.isFinite(se)) return { lo: null, hi: null };
  const a = (1 - level) / 2;
  return { lo: point - ss.quantileSorted(vals, 1 - a) * se, hi: point - ss.quantileSorted(vals, a) * se };
}

/**
 * How units are drawn (metrics.md's resampling units). Flat units 0..n-1 (seeds, episodes, blocks)
 * belong to jackknife groups (`groups[i]`): the units a leave-one-out removes together.
 * - simpleDesign(n): n units drawn with replacement (evaluation seeds);
 * - clusterDesign(sizes): whole clusters drawn (runs with their blocks, cells with their runs);
 * - withinDesign(sizes): every cluster kept, its sub-units drawn (a model row's episodes per run);
 * - twoStageDesign(sizes): clusters drawn, then each draw's sub-units (pooled rows: runs, episodes).
 * `studentizable` is false for two-stage: a resample's sub-unit weights inside a cluster differ, so
 * "one copy of a cluster" has no weight vector to remove, and the bootstrap-t needs one.
 */
export interface Design {
  n: number;
  groups: Int32Array;
  nGroups: number;
  draw: (rng: Rng, w: Int32Array) => void;
  studentizable: boolean;
  /** The unit count a table prints as `n` (clusters for cluster designs, the smallest cluster's size within). */
  units: number;
  /** The flat units of each group (for the jackknife). */
  members: number[][];
}

function membersOf(groups: Int32Array, nGroups: number): number[][] {
  const members: number[][] = Array.from({ length: nGroups }, () => []);
  for (let i = 0; i < groups.length; i++) (members[groups[i] as number] as number[]).push(i);
  return members;
}

export function simpleDesign(n: number): Design {
  const groups = Int32Array.from({ length: n }, (_, i) => i);
  return { n, groups, nGroups: n, draw: (rng, w) => drawWeights(rng, n, w), studentizable: true, units: n, members: membersOf(groups, n) };
}

function offsets(sizes: readonly number[]): number[] {
  const out: number[] = [];
  let o = 0;
  for (const s of sizes) {
    out.push(o);
    o += s;
  }
  out.push(o);
  return out;
}

export function clusterDesign(sizes: readonly number[]): Design {
  const off = offsets(sizes);
  const n = off[sizes.length] as number;
  const C = sizes.length;
  const groups = new Int32Array(n);
  sizes.forEach((sz, c) => groups.fill(c, off[c] as number, (off[c] as number) + sz));
  const cw = new Int32Array(C);
  return {
    n,
    groups,
    nGroups: C,
    draw: (rng, w) => {
      drawWeights(rng, C, cw);
      for (let i = 0; i < n; i++) w[i] = cw[groups[i] as number] as number;
    },
    studentizable: true,
    units: C,
    members: membersOf(groups, C),
  };
}

export function withinDesign(sizes: readonly number[]): Design {
  const off = offsets(sizes);
  const n = off[sizes.length] as number;
  const groups = Int32Array.from({ length: n }, (_, i) => i);
  return {
    n,
    groups,
    nGroups: n,
    members: membersOf(groups, n),
    draw: (rng, w) => {
      w.fill(0);
      sizes.forEach((sz, c) => {
        const o = off[c] as number;
        for (let j = 0; j < sz; j++) {
          const k = o + rng.int(sz);
          w[k] = (w[k] as number) + 1;
        }
      });
    },
    studentizable: true,
    units: sizes.length === 0 ? 0 : Math.min(...sizes),
  };
}

/** Adds one draw with replacement of a cluster's `size` sub-units (flat units o..o+size-1) to w. */
function drawWithin(rng: Rng, w: Int32Array, o: number, size: number): void {
  for (let j = 0; j < size; j++) {
    const k = o + rng.int(size);
    w[k] = (w[k] as number) + 1;
  }
}

export function twoStageDesign(sizes: readonly number[]): Design {
  const off = offsets(sizes);
  const n = off[sizes.length] as number;
  const C = sizes.length;
  const groups = new Int32Array(n);
  sizes.forEach((sz, c) => groups.fill(c, off[c] as number, (off[c] as number) + sz));
  return {
    n,
    groups,
    nGroups: C,
    draw: (rng, w) => {
      w.fill(0);
      for (let d = 0; d < C; d++) {
        const c = rng.int(C);
        drawWithin(rng, w, off[c] as number, sizes[c] as number);
      }
    },
    studentizable: false,
    units: C,
    members: membersOf(groups, C),
  };
}

/**
 * Three stages (pooled judging rows, metrics.md): top clusters (models) drawn with replacement, then
 * each drawn model's runs, then each drawn run's sub-units (episodes). `sizes[c][r]` is the sub-unit
 * count of run r of model c; flat units go model by model, run by run. A model's runs are correlated
 * (one model), so drawing runs as if independent under-covers (87% measured). The
 * jackknife (BCa's acceleration) leaves one model out; `units` is the model count.
 */
export function threeStageDesign(sizes: readonly (readonly number[])[]): Design {
  const runSizes = sizes.flat();
  const off = offsets(runSizes);
  const n = off[runSizes.length] as number;
  const C = sizes.length;
  const firstRun = offsets(sizes.map((r) => r.length));
  const groups = new Int32Array(n);
  sizes.forEach((runs, c) => {
    const a = off[firstRun[c] as number] as number;
    const b = off[(firstRun[c] as number) + runs.length] as number;
    groups.fill(c, a, b);
  });
  return {
    n,
    groups,
    nGroups: C,
    draw: (rng, w) => {
      w.fill(0);
      for (let d = 0; d < C; d++) {
        const c = rng.int(C);
        const runs = sizes[c] as readonly number[];
        const r0 = firstRun[c] as number;
        for (let e = 0; e < runs.length; e++) {
          const r = r0 + rng.int(runs.length);
          drawWithin(rng, w, off[r] as number, runSizes[r] as number);
        }
      }
    },
    studentizable: false,
    units: C,
    members: membersOf(groups, C),
  };
}

/**
 * Several statistics of the same weighted units at once: fills out[j] with statistic j at w (NaN
 * where undefined). Must not keep `w` or `out`. Statistics that share work (one weighted curve, many
 * metrics of it) compute it once per weight vector.
 */
export type WeightedStatistics = (w: Int32Array, out: Float64Array) => void;

/** One statistic as a vector of one. */
function single(stat: WeightedStatistic): WeightedStatistics {
  return (w, out) => {
    out[0] = stat(w);
  };
}

/**
 * Leave-one-group-out values at weights w: for each group whose units all carry weight, one copy of
 * the group removed (every unit's weight minus one); multiplicity = the group's smallest weight.
 */
export function groupJackknife(design: Design, stat: WeightedStatistic, w: Int32Array): { values: number[]; mult: number[] } {
  const jk = groupJackknifeMany(design, single(stat), 1, w);
  return { values: jk.values[0] as number[], mult: jk.mult };
}

/** groupJackknife of m statistics at once: `values[j]` are statistic j's leave-one-out values. */
export function groupJackknifeMany(design: Design, stats: WeightedStatistics, m: number, w: Int32Array): { values: number[][]; mult: number[] } {
  const members = design.members;
  const values: number[][] = Array.from({ length: m }, () => []);
  const mult: number[] = [];
  const out = new Float64Array(m);
  for (const idx of members) {
    let mn = Infinity;
    for (const i of idx) mn = Math.min(mn, w[i] as number);
    if (!(mn > 0) || idx.length === 0) continue;
    for (const i of idx) w[i] = (w[i] as number) - 1;
    stats(w, out);
    for (let j = 0; j < m; j++) (values[j] as number[]).push(out[j] as number);
    for (const i of idx) w[i] = (w[i] as number) + 1;
    mult.push(mn);
  }
  return { values, mult };
}

/**
 * A faster leave-one-group-out for statistics that have one (judging's AUROC: a pair sum whose
 * leave-one-out follows from per-unit row sums in one sweep): must return what groupJackknifeMany
 * returns at `w` (same groups, same order, same multiplicities; values equal up to rounding), without
 * keeping or changing `w`. The interval method is unchanged; only the cost of its jackknife.
 */
export type GroupJackknife = (w: Int32Array) => { values: number[][]; mult: number[] };

/** What a unit bootstrap returns: the point, the interval, and the replicates (percentile scale). */
export interface UnitBootstrap {
  point: number;
  interval: Interval;
  replicates: Float64Array;
}

/**
 * The bootstrap of a statistic under a design with the given method. `stat` must not keep `w`. The
 * point is stat(all ones). B weight vectors are drawn from `rng`; BCa adds one group jackknife of the
 * data, studentized one per replicate (null interval for a design that is not studentizable).
 */
export function unitBootstrap(design: Design, stat: WeightedStatistic, B: number, rng: Rng, method: IntervalMethod = "percentile", level = DEFAULT_LEVEL): UnitBootstrap {
  return unitBootstrapMany(design, single(stat), 1, B, rng, method, level)[0] as UnitBootstrap;
}

/**
 * unitBootstrap of m statistics over ONE stream of draws: statistic j's result is exactly (bit for
 * bit) what unitBootstrap(design, statistic j, B, rng of the same key, method) returns, since the
 * weight vectors come from the rng alone and every statistic is evaluated at each of them; the work
 * the statistics share (drawing, a weighted curve) is done once per weight vector instead of m times.
 */
export function unitBootstrapMany(
  design: Design,
  stats: WeightedStatistics,
  m: number,
  B: number,
  rng: Rng,
  method: IntervalMethod = "percentile",
  level = DEFAULT_LEVEL,
  jackknife?: GroupJackknife,
): UnitBootstrap[] {
  const jk = jackknife ?? ((wt: Int32Array) => groupJackknifeMany(design, stats, m, wt));
  const ones = new Int32Array(design.n).fill(1);
  const points = new Float64Array(m);
  stats(ones, points);
  const replicates = Array.from({ length: m }, () => new Float64Array(B));
  const student = method === "studentized" && design.studentizable;
  const tReps = student ? Array.from({ length: m }, () => new Float64Array(B)) : null;
  const w = new Int32Array(design.n);
  const v = new Float64Array(m);
  const jkData = method === "percentile" ? null : jk(ones);
  // The scale below which a resample's standard error counts as 0 (seNegligible): the data's own.
  const seScale = Float64Array.from({ length: m }, (_, j) => (jkData === null ? 0 : Math.max(Math.abs(points[j] as number), jackknifeSe(jkData.values[j] as number[], jkData.mult) || 0)));
  for (let b = 0; b < B; b++) {
    design.draw(rng, w);
    stats(w, v);
    for (let j = 0; j < m; j++) (replicates[j] as Float64Array)[b] = v[j] as number;
    if (tReps !== null) {
      const jr = jk(w);
      for (let j = 0; j < m; j++) {
        const se = jackknifeSe(jr.values[j] as number[], jr.mult);
        const vj = v[j] as number;
        const point = points[j] as number;
        // A resample on which the statistic does not move (se ~0) at the point is t = 0, not undefined:
        // a constant statistic must give the interval [point, point], not none. Elsewhere a ~0 se
        // would make t explode (1.26e-15 was seen): that resample says nothing about t and is left out.
        (tReps[j] as Float64Array)[b] = !seNegligible(se, seScale[j] as number) ? (vj - point) / se : vj === point ? 0 : Number.NaN;
      }
    }
  }
  return replicates.map((reps, j) => {
    const point = points[j] as number;
    const none = { point, interval: { lo: null, hi: null }, replicates: reps };
    if (!Number.isFinite(point) || design.n === 0) return none;
    if (method === "percentile") return { point, interval: percentileInterval(reps, level), replicates: reps };
    if (method === "studentized" && !student) return none;
    const values = jkData!.values[j] as number[];
    const interval =
      method === "bca"
        ? bcaInterval(point, reps, bcaAcceleration(values, jkData!.mult), level)
        : studentizedInterval(point, jackknifeSe(values, jkData!.mult), (tReps as Float64Array[])[j] as Float64Array, level);
    return { point, interval, replicates: reps };
  });
}

/**
 * What a statistic can take (metrics.md: an interval never leaves it): correlations [-1, 1], rates
 * [0, 1], a mean within its units' observed [min, max], AUC+ and NABA [0, Infinity). Either end may be
 * infinite.
 */
export interface StatRange {
  lo: number;
  hi: number;
}

export const CORRELATION_RANGE: StatRange = { lo: -1, hi: 1 };
export const RATE_RANGE: StatRange = { lo: 0, hi: 1 };
export const NONNEGATIVE_RANGE: StatRange = { lo: 0, hi: Infinity };
export const ANY_RANGE: StatRange = { lo: -Infinity, hi: Infinity };

/** The [min, max] of the finite values (ANY_RANGE when none is finite). */
export function observedRange(values: ArrayLike<number>): StatRange {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi ? { lo, hi } : ANY_RANGE;
}

/**
 * True when an interval is usable for a statistic of `range`: both ends finite, lo <= hi, and inside
 * the range up to rounding (a relative 1e-9 of the range's finite size, so a mean of values that all
 * equal 0.7 may end at 0.7000000000000001).
 */
export function intervalInRange(iv: Interval, range: StatRange = ANY_RANGE): boolean {
  const { lo, hi } = iv;
  if (lo === null || hi === null || !Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) return false;
  const size = Number.isFinite(range.hi - range.lo) ? range.hi - range.lo : Math.max(Math.abs(lo), Math.abs(hi), 1);
  const eps = 1e-9 * Math.max(size, Number.MIN_VALUE);
  return lo >= range.lo - eps && hi <= range.hi + eps;
}

/**
 * The table interval (metrics.md: "the interval method is chosen by measured coverage, width and
 * range"): the configured method (default: coverage.ts DEFAULT_METHOD) where bench/coverage showed it
 * sound, else:
 * - a two-stage design (pooled rows): BCa, with the jackknife over clusters (no leave-one-cluster-out
 *   of a two-stage resample exists for the bootstrap-t);
 * - fewer than STUDENT_MIN_UNITS units: percentile. The bench measured the bootstrap-t's width tail
 *   there (a resample whose jackknife se is ~0 makes t* explode: intervals of 1e14 at 3 seeds); the
 *   tables mark such intervals `n=K` (indicative) anyway;
 * - more than STUDENT_MAX_UNITS units: percentile (a jackknife per replicate costs n evaluations, and
 *   from 30 units on the bench measured the methods alike);
 * - an interval that is not finite or leaves `range` (what the statistic can take): the percentile
 *   interval of the same replicates instead (inside the range whenever every replicate is), never a
 *   clipped one; `fellBack` says so and the table's note names it.
 * Returns the estimate's interval, the replicates (percentile scale: for bands and differences) and
 * the method used.
 */
export const STUDENT_MIN_UNITS = 10;
export const STUDENT_MAX_UNITS = 50;

/** A table interval: the bootstrap, the method actually used, and whether it replaced the asked one. */
export type TableInterval = UnitBootstrap & { method: IntervalMethod; fellBack?: boolean };

export function tableInterval(design: Design, stat: WeightedStatistic, B: number, rng: Rng, method: IntervalMethod, level = DEFAULT_LEVEL, range?: StatRange): TableInterval {
  return tableIntervalMany(design, single(stat), 1, B, rng, method, level, range)[0] as TableInterval;
}

/** The method tableInterval uses for a design when `method` is asked for (the fallbacks above). */
export function tableMethod(design: Design, method: IntervalMethod): IntervalMethod {
  if (method === "studentized" && !design.studentizable) return "bca";
  if (method === "studentized" && (design.units < STUDENT_MIN_UNITS || design.units > STUDENT_MAX_UNITS)) return "percentile";
  return method;
}

/**
 * tableInterval of m statistics over one stream of draws (unitBootstrapMany): the same method for all,
 * but each statistic falls back to percentile on its own when its interval leaves its range (`range`:
 * one for all, or one per statistic).
 */
export function tableIntervalMany(
  design: Design,
  stats: WeightedStatistics,
  m: number,
  B: number,
  rng: Rng,
  method: IntervalMethod,
  level = DEFAULT_LEVEL,
  range?: StatRange | readonly (StatRange | undefined)[],
  jackknife?: GroupJackknife,
): TableInterval[] {
  const used = tableMethod(design, method);
  return unitBootstrapMany(design, stats, m, B, rng, used, level, jackknife).map((r, j) => {
    const rj = (Array.isArray(range) ? (range as readonly (StatRange | undefined)[])[j] : (range as StatRange | undefined)) ?? ANY_RANGE;
    if (used === "percentile" || !Number.isFinite(r.point) || intervalInRange(r.interval, rj)) return { ...r, method: used };
    return { ...r, interval: percentileInterval(r.replicates, level), method: "percentile", fellBack: true };
  });
}

/**
 * Regularized incomplete beta I_x(a, b) by its continued fraction (modified Lentz), using the
 * symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly.
 */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (!(x > 0)) return 0;
  if (!(x < 1)) return 1;
  const front = Math.exp(ss.gammaln(a + b) - ss.gammaln(a) - ss.gammaln(b) + a * Math.log(x) + b * Math.log1p(-x));
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const tiny = 1e-300;
  let f = 1;
  let C = 1;
  let D = 0;
  for (let i = 0; i <= 400; i++) {
    const m = Math.floor(i / 2);
    let num: number;
    if (i === 0) num = 1;
    else if (i % 2 === 0) num = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    else num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    D = 1 + num * D;
    if (Math.abs(D) < tiny) D = tiny;
    D = 1 / D;
    C = 1 + num / C;
    if (Math.abs(C) < tiny) C = tiny;
    const cd = C * D;
    f *= cd;
    if (Math.abs(1 - cd) < 1e-15) break;
  }
  return (front * (f - 1)) / a;
}

/** P(T > t) for Student's t with df degrees of freedom (df > 0). */
export function studentTUpper(t: number, df: number): number {
  if (Number.isNaN(t)) return Number.NaN;
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? tail : 1 - tail;
}

/** The q-quantile of Student's t with df degrees of freedom (bisection on the CDF to 1e-12). */
export function studentTQuantile(q: number, df: number): number {
  if (q <= 0) return -Infinity;
  if (q >= 1) return Infinity;
  if (q < 0.5) return -studentTQuantile(1 - q, df);
  let lo = 0;
  let hi = 1;
  while (1 - studentTUpper(hi, df) < q) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (1 - studentTUpper(mid, df) < q) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * A t interval and its test: point +- t_{df, (1+level)/2} se, and the two-sided p of point / se
 * against t_df. The interval excludes 0 exactly when |point| / se exceeds the quantile, so the p is
 * compared with the same quantile (p < 1 - level iff the interval excludes 0, by construction). A zero
 * se gives [point, point] and p 1 (point 0) or 0.
 */
export interface TInterval {
  lo: number;
  hi: number;
  p: number;
  se: number;
  df: number;
}

export function tInterval(point: number, se: number, df: number, level = DEFAULT_LEVEL): TInterval | null {
  if (!Number.isFinite(point) || !Number.isFinite(se) || !(df >= 1)) return null;
  if (seNegligible(se, point)) return { lo: point, hi: point, p: point === 0 ? 1 : 0, se: 0, df };
  const q = studentTQuantile((1 + level) / 2, df);
  const t = Math.abs(point) / se;
  let p = Math.min(1, 2 * studentTUpper(t, df));
  // Rounding in the CDF must not let p and the interval disagree at the boundary.
  const excludes = t > q;
  if (excludes && p >= 1 - level) p = (1 - level) * (1 - 1e-9);
  if (!excludes && p < 1 - level) p = 1 - level;
  return { lo: point - q * se, hi: point + q * se, p, se, df };
}

/** The t interval of the mean of values (df = n - 1); null below 2 finite values. */
export function meanTInterval(values: readonly number[], level = DEFAULT_LEVEL): (TInterval & { point: number }) | null {
  const v = values.filter(Number.isFinite);
  if (v.length < 2) return null;
  const point = ss.mean(v);
  const r = tInterval(point, ss.sampleStandardDeviation(v) / Math.sqrt(v.length), v.length - 1, level);
  return r === null ? null : { ...r, point };
}

/**
 * A cell's interval over its runs (two or more run seeds: the model as estimand): the t interval of
 * the mean of the runs' own values of the statistic (df = runs - 1; a run's value carries its
 * exploration and its evaluation seeds, so the spread between runs is all the variance there is),
 * cut where it passes a bound the expected value cannot cross: `range` (AUC+ and NABA at 0, Avg at
 * the scores observed). The cut changes coverage only when the truth lies beyond the bound, which for
 * AUC+ and NABA (means of values >= 0) cannot happen; bench/coverage counts Avg's with the cut.
 * `cut` says whether an end moved. Null below 2 finite values.
 */
export function runsMeanInterval(values: readonly number[], range: StatRange = ANY_RANGE, level = DEFAULT_LEVEL): (TInterval & { point: number; cut: boolean }) | null {
  const t = meanTInterval(values, level);
  if (t === null) return null;
  const lo = Math.max(t.lo, range.lo);
  const hi = Math.min(t.hi, range.hi);
  // A point outside the range (values that are not the range's) gets no cut interval.
  if (!(lo <= t.point && t.point <= hi)) return null;
  return { ...t, lo, hi, cut: lo !== t.lo || hi !== t.hi };
}

/**
 * The interval of a curve statistic (Avg, AUC+, NABA) of a cell with two or more run seeds: the hull
 * of the cut t interval over the runs' values (runsMeanInterval) and the two-stage percentile
 * interval (runs drawn, then each drawn run's evaluation seeds). Each alone misses in one regime
 * (bench/coverage, 3 runs x 10 seeds): the t over 3 runs under-covers where a run's value is skewed
 * by seed noise (AUC+ and NABA of a model that does not improve: 81-87%), the percentile bootstrap
 * where runs differ more than seeds (AUC+ of counts 88%); the hull covers whenever either does.
 * Either part may be missing (null ends): the other stands alone; both missing: no interval.
 */
export function runsHullInterval(t: { lo: number; hi: number } | null, percentile: Interval): Interval {
  const ends = [t, percentile.lo === null || percentile.hi === null ? null : { lo: percentile.lo, hi: percentile.hi }].filter(
    (x): x is { lo: number; hi: number } => x !== null && Number.isFinite(x.lo) && Number.isFinite(x.hi),
  );
  if (ends.length === 0) return { lo: null, hi: null };
  return { lo: Math.min(...ends.map((e) => e.lo)), hi: Math.max(...ends.map((e) => e.hi)) };
}

/**
 * The jackknife t interval of a statistic of weighted units: point +- t_{G-1} se_jack, the jackknife
 * over the design's G groups (for a mean of units this is exactly the t interval of the mean). Null
 * when the point or the se is undefined or G < 2.
 */
export function jackknifeTInterval(design: Design, stat: WeightedStatistic, level = DEFAULT_LEVEL): (TInterval & { point: number }) | null {
  const ones = new Int32Array(design.n).fill(1);
  const point = stat(ones);
  const jk = groupJackknife(design, stat, ones);
  if (jk.values.length < 2) return null;
  const r = tInterval(point, jackknifeSe(jk.values, jk.mult), jk.values.length - 1, level);
  return r === null ? null : { ...r, point };
}

/**
 * What an interval covers, given the data behind it (metrics.md, "Which estimand"):
 * - `model`: two or more run seeds, resampled as runs (t over the runs' values, df = runs - 1): the
 *   model's expected result, run-to-run variance (exploration luck) included;
 * - `these runs`: several runs kept fixed (a rejudge's recorded exploration): their expected result
 *   over new evaluation seeds;
 * - `this run`: one run: its expected result over new evaluation seeds, NOT the model's (another run
 *   seed explores differently).
 */
export type Estimand = "model" | "these runs" | "this run";

export function estimandOf(runs: number, o: { runsFixed?: boolean } = {}): Estimand {
  if (runs >= 2) return o.runsFixed === true ? "these runs" : "model";
  return "this run";
}

/** The estimand in words, for notes and report.json. */
export const ESTIMAND_TEXT: Readonly<Record<Estimand, string>> = {
  model: "the model's expected result over run seeds and evaluation seeds (runs resampled: t over the runs)",
  "these runs": "these runs' expected result over new evaluation seeds (the runs kept)",
  "this run": "this run's expected result over new evaluation seeds (one run: not the model's, whose other run seeds explore differently)",
};

/**
 * Avg's interval at one run (metrics.md, "Avg"): the hull of two studentized bootstraps, never
 * narrower than the t interval. With se the group jackknife standard error and t*_b = (theta*_b -
 * theta) / se*_b over B resamples of the design:
 * - equal-tailed bootstrap-t: theta - t*_{(1+level)/2} se .. theta - t*_{(1-level)/2} se;
 * - symmetric bootstrap-t, floored at t: theta +- max(q_level(|t*|), t_{G-1, (1+level)/2}) se;
 * the interval runs from the lower of their lower ends to the higher of their upper ends.
 * bench/coverage measured, at the default design (10 evaluation seeds, 1,000 data sets per shape):
 * the t interval 91.0-92.3% and each bootstrap-t alone 93.0-94.5% in the skewed shapes, the hull
 * 94.3-95.5% (docs/analysis.md). Resamples whose se is ~0 count as t = 0 when they sit on the point
 * and are left out otherwise (as unitBootstrapMany). The p returned is the t test's, made to agree
 * with the interval at the edge.
 */
export function studentizedHullInterval(design: Design, stat: WeightedStatistic, B: number, rng: Rng, level = DEFAULT_LEVEL): (TInterval & { point: number }) | null {
  const ones = new Int32Array(design.n).fill(1);
  const point = stat(ones);
  const jk = groupJackknife(design, stat, ones);
  const G = jk.values.length;
  if (!Number.isFinite(point) || G < 2) return null;
  const se = jackknifeSe(jk.values, jk.mult);
  if (!Number.isFinite(se)) return null;
  const base = tInterval(point, se, G - 1, level);
  if (base === null || base.se === 0 || B <= 0) return base === null ? null : { ...base, point };
  const scale = Math.max(Math.abs(point), se);
  const w = new Int32Array(design.n);
  const t = new Float64Array(B);
  let n = 0;
  for (let b = 0; b < B; b++) {
    design.draw(rng, w);
    const v = stat(w);
    if (!Number.isFinite(v)) continue;
    const jr = groupJackknife(design, stat, w);
    const seb = jackknifeSe(jr.values, jr.mult);
    if (!seNegligible(seb, scale)) t[n++] = (v - point) / seb;
    else if (v === point) t[n++] = 0;
  }
  if (n === 0) return { ...base, point };
  const signed = Array.from(t.subarray(0, n).sort());
  const abs = signed.map(Math.abs).sort((a, b) => a - b);
  const a = (1 - level) / 2;
  const q = Math.max(studentTQuantile((1 + level) / 2, G - 1), ss.quantileSorted(abs, level));
  const lo = Math.min(point - ss.quantileSorted(signed, 1 - a) * se, point - q * se);
  const hi = Math.max(point - ss.quantileSorted(signed, a) * se, point + q * se);
  const excludes = lo > 0 || hi < 0;
  let p = base.p;
  if (excludes && p >= 1 - level) p = (1 - level) * (1 - 1e-9);
  if (!excludes && p < 1 - level) p = 1 - level;
  return { lo, hi, p, se, df: G - 1, point };
}
