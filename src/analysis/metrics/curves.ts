/**
 * Curve metrics (metrics.md, "Curves"): pure functions of a checkpoint curve y(x).
 * A curve is a list of points sorted by x; a point whose y is null has no value (a failed checkpoint)
 * and is left out of every metric, with AUC+ joining its valid neighbours.
 */
import * as ss from "simple-statistics";

/** One checkpoint of a curve: x, and y(x) or null when the checkpoint has no value. */
export interface CurvePoint {
  x: number;
  y: number | null;
}

/** Ties in dNABA: abs(delta) below this counts as a tie (metrics.md). */
export const TIE_EPS = 1e-9;

/** The valid points (y not null) in x order. */
function valid(curve: readonly CurvePoint[]): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  for (const p of curve) if (p.y !== null) out.push({ x: p.x, y: p.y });
  return out.sort((a, b) => a.x - b.x);
}

/** y0 = y(0): null when there is no checkpoint 0 or it has no value. */
export function curveY0(curve: readonly CurvePoint[]): number | null {
  const p = curve.find((q) => q.x === 0);
  return p?.y ?? null;
}

/** Avg: mean of y over the valid checkpoints (x = 0 included); null when none is valid. */
export function curveAvg(curve: readonly CurvePoint[]): number | null {
  return avgOf(valid(curve));
}

function avgOf(v: readonly { y: number }[]): number | null {
  return v.length === 0 ? null : ss.mean(v.map((p) => p.y));
}

/** Max: max of y over the valid checkpoints; null when none is valid. */
export function curveMax(curve: readonly CurvePoint[]): number | null {
  return maxOf(valid(curve));
}

function maxOf(v: readonly { y: number }[]): number | null {
  return v.length === 0 ? null : ss.max(v.map((p) => p.y));
}

/**
 * AUC+: the trapezoidal integral, in units of x, of c(x) = max(0, y(x) - y0) over the valid
 * checkpoints: sum over adjacent valid pairs (a, b) of (b.x - a.x) * (c(a) + c(b)) / 2.
 * Null (missing, never 0) when y0 has no value.
 */
export function aucPlus(curve: readonly CurvePoint[]): number | null {
  const y0 = curveY0(curve);
  return y0 === null ? null : areaOf(valid(curve), y0);
}

/** AUC+ of the valid points `v` (in x order) given y0. */
function areaOf(v: readonly { x: number; y: number }[], y0: number): number {
  let area = 0;
  for (let i = 1; i < v.length; i++) {
    const a = v[i - 1] as { x: number; y: number };
    const b = v[i] as { x: number; y: number };
    area += ((b.x - a.x) * (Math.max(0, a.y - y0) + Math.max(0, b.y - y0))) / 2;
  }
  return area;
}

/**
 * The NABA scale: |y0| if y0 != 0, else |first non-zero valid y(x)| in x order; 0 when every valid y
 * is zero; null without y0. Departure from metrics.md (which says "y0 if y0 > 0, else the first
 * non-zero valid y"): taken literally, a negative y0 (Trust scores run -40..120) would be its own
 * scale and flip NABA's sign, so an improvement would read as a loss. The absolute value keeps the
 * paper's meaning; for y0 >= 0 it is the same rule.
 */
export function nabaScale(curve: readonly CurvePoint[]): number | null {
  return curveY0(curve) === null ? null : scaleOf(valid(curve));
}

function scaleOf(v: readonly { y: number }[]): number {
  for (const p of v) if (p.y !== 0) return Math.abs(p.y);
  return 0;
}

/** NABA = AUC+ / scale (nabaScale); 0 when the curve is all zeros; null when y0 has no value. */
export function naba(curve: readonly CurvePoint[]): number | null {
  const area = aucPlus(curve);
  const scale = nabaScale(curve);
  if (area === null || scale === null) return null;
  return nabaFrom(area, scale);
}

/** NABA from its parts (exposed so a notebook can check the paper's numbers: 12.28 / 0.369 = 33.28). */
export function nabaFrom(auc: number, scale: number): number {
  return scale === 0 ? 0 : auc / scale;
}

/** The four per-run curve metrics at once (one pass over the points, as the bootstrap needs). */
export interface CurveMetrics {
  avg: number | null;
  max: number | null;
  auc_plus: number | null;
  naba: number | null;
}

/** Avg, Max, AUC+ and NABA of one curve. */
export function curveMetrics(curve: readonly CurvePoint[]): CurveMetrics {
  // The valid points once for all four (the same functions as curveAvg, curveMax, aucPlus and naba).
  const v = valid(curve);
  const y0 = curveY0(curve);
  const area = y0 === null ? null : areaOf(v, y0);
  return { avg: avgOf(v), max: maxOf(v), auc_plus: area, naba: area === null ? null : nabaFrom(area, scaleOf(v)) };
}

/** dNABA = NABA(memory) - NABA(history); null when either is missing. */
export function dNaba(memory: number | null, history: number | null): number | null {
  return memory === null || history === null ? null : memory - history;
}

/** Per-game summary of dNABA over models: mean, wins (> 0), losses (< 0), ties (|d| < 1e-9). */
export interface DeltaSummary {
  mean: number | null;
  wins: number;
  losses: number;
  ties: number;
  /** Models with a defined dNABA (missing ones are left out of the mean and the counts). */
  n: number;
}

/** Summarises dNABA values of one game; nulls are skipped (counted nowhere). */
export function summarizeDeltas(deltas: readonly (number | null)[]): DeltaSummary {
  const d = deltas.filter((v): v is number => v !== null);
  let wins = 0;
  let losses = 0;
  let ties = 0;
  for (const v of d) {
    if (Math.abs(v) < TIE_EPS) ties++;
    else if (v > 0) wins++;
    else losses++;
  }
  return { mean: d.length === 0 ? null : ss.mean(d), wins, losses, ties, n: d.length };
}

/** Training-curve metrics (metrics.md, "dFinal" and "Training Avg / Max / AUC+"). */
export interface TrainingMetrics {
  y0: number | null;
  /** y at the last recorded checkpoint (null when that checkpoint failed). */
  y_final: number | null;
  /** y_final - y0. */
  d_final: number | null;
  /** Mean of y over the valid UPDATED checkpoints (x > 0). */
  avg: number | null;
  /** Max of y over the valid updated checkpoints. */
  max: number | null;
  /** AUC+ on the epoch axis (spacing from the x values, normally 1). */
  auc_plus: number | null;
  /** Valid updated checkpoints with y > y0 (null without y0). */
  n_above: number | null;
  /** Valid updated checkpoints (the denominator of avg). */
  n_updated: number;
}

/**
 * Training metrics on the epoch axis: epoch 0 is the base model (y0), epochs 1..K-1 the updated ones.
 * dFinal uses the last RECORDED epoch; when that epoch failed, y_final and d_final are missing rather
 * than silently taken from an earlier epoch.
 */
export function trainingMetrics(curve: readonly CurvePoint[]): TrainingMetrics {
  const y0 = curveY0(curve);
  const sorted = [...curve].sort((a, b) => a.x - b.x);
  const last = sorted[sorted.length - 1];
  const yFinal = last !== undefined && last.x > 0 ? last.y : null;
  const updated = valid(curve).filter((p) => p.x > 0);
  return {
    y0,
    y_final: yFinal,
    d_final: yFinal === null || y0 === null ? null : yFinal - y0,
    avg: updated.length === 0 ? null : ss.mean(updated.map((p) => p.y)),
    max: updated.length === 0 ? null : ss.max(updated.map((p) => p.y)),
    auc_plus: aucPlus(curve),
    n_above: y0 === null ? null : updated.filter((p) => p.y > y0).length,
    n_updated: updated.length,
  };
}

/**
 * Avg, Max, AUC+ and NABA of a curve given only by its VALID points as parallel arrays sorted by x
 * (the first `n` entries are used), allocation-free for bootstrap loops. `hasY0` says whether the
 * first valid point is x = 0. Agrees with curveMetrics on the same curve (a property test checks it).
 */
export function curveMetricsSorted(xs: ArrayLike<number>, ys: ArrayLike<number>, n: number, hasY0: boolean, out: CurveMetrics): CurveMetrics {
  if (n === 0) {
    out.avg = out.max = out.auc_plus = out.naba = null;
    return out;
  }
  let sum = 0;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const y = ys[i] as number;
    sum += y;
    if (y > max) max = y;
  }
  out.avg = sum / n;
  out.max = max;
  if (!hasY0) {
    out.auc_plus = out.naba = null;
    return out;
  }
  const y0 = ys[0] as number;
  let area = 0;
  let prevC = 0;
  let scale = 0;
  for (let i = 1; i < n; i++) {
    const y = ys[i] as number;
    const c = y > y0 ? y - y0 : 0;
    area += (((xs[i] as number) - (xs[i - 1] as number)) * (prevC + c)) / 2;
    prevC = c;
  }
  // |first non-zero valid y| in x order: |y0| unless y0 = 0 (see nabaScale).
  for (let i = 0; i < n; i++) {
    const y = ys[i] as number;
    if (y !== 0) {
      scale = Math.abs(y);
      break;
    }
  }
  out.auc_plus = area;
  out.naba = nabaFrom(area, scale);
  return out;
}
