/**
 * Metrics of the evaluation views (views.md "Metrics"; SEAGym's lenses): pure functions of a view's
 * seed x checkpoint matrix (SeedCurve, seedCurves.ts: valid checkpoints only, NaN where a seed was not
 * played). The views' curve metrics (Avg, Max, AUC+, NABA) are curves.ts's on the view's curve.
 *
 * - transferGain: the gain at the last checkpoint over checkpoint 0 (IDG on `id`, OODG on `eval`), the
 *   best INTERMEDIATE snapshot (0 < x < last) with its gain and x, and how much of it was lost by the
 *   end (regression = max(0, best gain - final gain); SEAGym: useful snapshots regress later).
 * - updateGains: UVG(x) = y(x) - y(previous valid checkpoint), over the seeds played at both (for a
 *   view with one seed list, exactly the difference of the curve; the replay view adds seeds as they
 *   are explored, so its UVG compares like with like).
 * - disagreement: how often an update helps one view (UVG > 0) and hurts another (UVG < 0).
 * - forgetting: per replayed seed, solved at its first replay vs at the last checkpoint: fixed,
 *   forgotten, kept, never; FR = max(0, y(first) - y(last)) over those seeds.
 */
import { TIE_EPS, type CurvePoint } from "./curves.js";
import type { SeedCurve } from "../stats/seedCurves.js";
import { isSolved } from "../../games/successThreshold.js";

/** Weight vector of all ones (the point estimate) for a SeedCurve. */
export function unitWeights(sc: SeedCurve): Int32Array {
  return new Int32Array(sc.keys.length).fill(1);
}

/** The view's curve y(x) under seed weights `w` (a checkpoint with no weighted seed has y = null). */
export function weightedCurve(sc: SeedCurve, w: ArrayLike<number> = unitWeights(sc)): CurvePoint[] {
  const K = sc.keys.length;
  return sc.xs.map((x, c) => {
    let sum = 0;
    let W = 0;
    for (let k = 0; k < K; k++) {
      const s = sc.scores[c * K + k] as number;
      const wk = w[k] as number;
      if (wk === 0 || Number.isNaN(s)) continue;
      sum += wk * s;
      W += wk;
    }
    return { x, y: W === 0 ? null : sum / W };
  });
}

export interface TransferGain {
  /** y(0); null when checkpoint 0 has no value. */
  y0: number | null;
  /** The last checkpoint of the view's schedule (the largest x recorded). */
  last_x: number | null;
  /** y(last) - y(0): IDG on the id view, OODG on the eval view; null when either is missing. */
  final_gain: number | null;
  /** The best intermediate snapshot (0 < x < last, valid): its x (earliest on ties) and gain y(x) - y0. */
  best_x: number | null;
  best_gain: number | null;
  /** max(0, best_gain - final_gain): what the end gave back of the best snapshot's gain. */
  regression: number | null;
}

/**
 * Transfer gain of a curve. `lastX` is the schedule's last checkpoint (default: the curve's largest
 * x): when it failed, the final gain is missing rather than taken from an earlier checkpoint.
 */
export function transferGain(curve: readonly CurvePoint[], lastX?: number): TransferGain {
  const sorted = [...curve].sort((a, b) => a.x - b.x);
  const y0 = sorted.find((p) => p.x === 0)?.y ?? null;
  const last = lastX ?? (sorted.length > 0 ? (sorted[sorted.length - 1] as CurvePoint).x : null);
  const yLast = last === null ? null : (sorted.find((p) => p.x === last)?.y ?? null);
  const final = y0 === null || yLast === null ? null : yLast - y0;
  let bestX: number | null = null;
  let bestGain: number | null = null;
  if (y0 !== null && last !== null) {
    for (const p of sorted) {
      if (p.x <= 0 || p.x >= last || p.y === null) continue;
      const g = p.y - y0;
      if (bestGain === null || g > bestGain + TIE_EPS) [bestX, bestGain] = [p.x, g];
    }
  }
  const regression = bestGain === null || final === null ? null : Math.max(0, bestGain - final);
  return { y0, last_x: last, final_gain: final, best_x: bestX, best_gain: bestGain, regression };
}

/** UVG at one checkpoint: the update between the previous valid checkpoint and this one. */
export interface UpdateGain {
  x: number;
  /** The previous valid checkpoint. */
  from: number;
  /** Mean over the seeds played at both of score(x) - score(from); null when no seed was. */
  uvg: number | null;
  /** Seeds behind it. */
  n: number;
}

/** UVG(x) for every valid checkpoint after the first (seed weights `w`, default all ones). */
export function updateGains(sc: SeedCurve, w: ArrayLike<number> = unitWeights(sc)): UpdateGain[] {
  const K = sc.keys.length;
  const out: UpdateGain[] = [];
  for (let c = 1; c < sc.xs.length; c++) {
    let sum = 0;
    let W = 0;
    let n = 0;
    for (let k = 0; k < K; k++) {
      const a = sc.scores[(c - 1) * K + k] as number;
      const b = sc.scores[c * K + k] as number;
      const wk = w[k] as number;
      if (wk === 0 || Number.isNaN(a) || Number.isNaN(b)) continue;
      sum += wk * (b - a);
      W += wk;
      n++;
    }
    out.push({ x: sc.xs[c] as number, from: sc.xs[c - 1] as number, uvg: W === 0 ? null : sum / W, n });
  }
  return out;
}

export interface Disagreement {
  /** Updates (checkpoints x) where at least two views have a UVG. */
  n_updates: number;
  /** Of those, updates where one view gained (UVG > 1e-9) and another lost (UVG < -1e-9). */
  n_disagree: number;
  /** n_disagree / n_updates; null without updates. */
  rate: number | null;
}

/** The sign disagreement between views' update gains, matched by checkpoint x. */
export function disagreement(perView: ReadonlyArray<readonly UpdateGain[]>): Disagreement {
  const byX = new Map<number, number[]>();
  for (const gains of perView)
    for (const g of gains) {
      if (g.uvg === null) continue;
      const list = byX.get(g.x) ?? [];
      list.push(g.uvg);
      byX.set(g.x, list);
    }
  let n = 0;
  let d = 0;
  for (const list of byX.values()) {
    if (list.length < 2) continue;
    n++;
    if (list.some((v) => v > TIE_EPS) && list.some((v) => v < -TIE_EPS)) d++;
  }
  return { n_updates: n, n_disagree: d, rate: n === 0 ? null : d / n };
}

/** One replayed seed: first replay vs the last checkpoint. */
export interface ReplaySeed {
  seed: number;
  first_x: number;
  first_score: number;
  last_score: number;
  outcome: "fixed" | "forgotten" | "kept" | "never";
}

export interface Forgetting {
  /** The view's last checkpoint (every counted seed has a score there). */
  last_x: number | null;
  seeds: ReplaySeed[];
  fixed: number;
  forgotten: number;
  kept: number;
  never: number;
  /** Mean first-replay score and mean last score over the counted seeds. */
  y_first: number | null;
  y_last: number | null;
  /** FR = max(0, y_first - y_last). */
  fr: number | null;
}

/**
 * Forgetting on replay with success threshold `threshold` (solved = score >= threshold, see
 * games/successThreshold.ts). Seeds never played at the last valid checkpoint are not counted.
 * `w` weights the seeds (the bootstrap); the per-seed list is always unweighted.
 */
export function forgetting(sc: SeedCurve, threshold: number, w: ArrayLike<number> = unitWeights(sc)): Forgetting {
  const K = sc.keys.length;
  const C = sc.xs.length;
  const empty: Forgetting = { last_x: null, seeds: [], fixed: 0, forgotten: 0, kept: 0, never: 0, y_first: null, y_last: null, fr: null };
  if (C === 0) return empty;
  const last = C - 1;
  const out: Forgetting = { ...empty, last_x: sc.xs[last] as number, seeds: [] };
  let sumF = 0;
  let sumL = 0;
  let W = 0;
  for (let k = 0; k < K; k++) {
    const lastScore = sc.scores[last * K + k] as number;
    if (Number.isNaN(lastScore)) continue;
    let c = 0;
    while (Number.isNaN(sc.scores[c * K + k] as number)) c++;
    const firstScore = sc.scores[c * K + k] as number;
    const a = isSolved(firstScore, threshold);
    const b = isSolved(lastScore, threshold);
    const outcome = !a && b ? "fixed" : a && !b ? "forgotten" : a && b ? "kept" : "never";
    out[outcome]++;
    out.seeds.push({ seed: sc.keys[k] as number, first_x: sc.xs[c] as number, first_score: firstScore, last_score: lastScore, outcome });
    const wk = w[k] as number;
    sumF += wk * firstScore;
    sumL += wk * lastScore;
    W += wk;
  }
  if (W > 0) {
    out.y_first = sumF / W;
    out.y_last = sumL / W;
    out.fr = Math.max(0, out.y_first - out.y_last);
  }
  return out;
}
