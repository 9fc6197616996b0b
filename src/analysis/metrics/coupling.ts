/**
 * Blockwise judgment-improvement coupling (metrics.md): does a block of exploration in which the model
 * judged itself better come with a larger improvement of its evaluation curve?
 */
import * as ss from "simple-statistics";
import { roundSig } from "../stats/bootstrap.js";
import type { CurvePoint } from "./curves.js";
import { MIN_SIDE_STEPS, addCounts, balancedAccuracy, emptyCounts, judgingStats, sideCounts, type JudgingCounts, type RewardRange } from "./judging.js";

/** Whether every value is the same (tested on the values: a centred sum of squares can be a crumb). */
function isConstant(v: readonly number[]): boolean {
  for (let i = 1; i < v.length; i++) if (v[i] !== v[0]) return false;
  return true;
}

/**
 * Pearson r; null when n < 2 or a variable is constant. Constancy is tested on the values, as
 * pearsonWeighted does: the mean of [0.1, 0.1, 0.1] is 0.10000000000000002, so simple-statistics
 * would return a rounding crumb (~1e-17, printed 0.000) instead of an undefined r.
 */
export function pearson(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError(`pearson: lengths differ (${x.length} vs ${y.length})`);
  if (x.length < 2 || isConstant(x) || isConstant(y)) return null;
  const r = ss.sampleCorrelation(x as number[], y as number[]);
  return Number.isFinite(r) ? r : null;
}

/**
 * Spearman rho with average ranks for ties (simple-statistics' sampleRankCorrelation: Pearson r of
 * the mid-ranks); null when n < 2 or a variable is constant. Values are compared after rounding to 12
 * significant digits (roundSig), so block errors equal in exact arithmetic but apart by floating-point
 * noise (0.20000000000000004 and 0.19999999999999998) tie instead of getting different ranks.
 */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError(`spearman: lengths differ (${x.length} vs ${y.length})`);
  if (x.length < 2) return null;
  const rx = x.map((v) => roundSig(v));
  const ry = y.map((v) => roundSig(v));
  if (isConstant(rx) || isConstant(ry)) return null;
  const r = ss.sampleRankCorrelation(rx, ry);
  return Number.isFinite(r) ? r : null;
}

/**
 * Pearson r of paired data where pair i counts `w[i]` times (a bootstrap resample expressed as
 * multiplicities), without building the resample. Null when fewer than two pairs carry weight or a
 * variable is constant over them. Agrees with simple-statistics' sampleCorrelation on the expanded
 * sample (a property test checks it); used in bootstrap loops, where allocation dominates.
 */
export function pearsonWeighted(x: ArrayLike<number>, y: ArrayLike<number>, w: ArrayLike<number>): number | null {
  let W = 0;
  let sx = 0;
  let sy = 0;
  let xmin = Infinity;
  let xmax = -Infinity;
  let ymin = Infinity;
  let ymax = -Infinity;
  for (let i = 0; i < w.length; i++) {
    const wi = w[i] as number;
    if (wi === 0) continue;
    const xi = x[i] as number;
    const yi = y[i] as number;
    W += wi;
    sx += wi * xi;
    sy += wi * yi;
    if (xi < xmin) xmin = xi;
    if (xi > xmax) xmax = xi;
    if (yi < ymin) ymin = yi;
    if (yi > ymax) ymax = yi;
  }
  // Constancy is tested on the values themselves: a centred sum of squares can be a rounding crumb.
  if (W < 2 || xmin === xmax || ymin === ymax) return null;
  const mx = sx / W;
  const my = sy / W;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < w.length; i++) {
    const wi = w[i] as number;
    if (wi === 0) continue;
    const dx = (x[i] as number) - mx;
    const dy = (y[i] as number) - my;
    sxx += wi * dx * dx;
    syy += wi * dy * dy;
    sxy += wi * dx * dy;
  }
  return sxy / Math.sqrt(sxx * syy);
}

/** Indices 0..n-1 sorted by value (stable). */
function argsort(v: ArrayLike<number>): Int32Array {
  return Int32Array.from(Array.from({ length: v.length }, (_, i) => i).sort((a, b) => (v[a] as number) - (v[b] as number) || a - b));
}

/** Mid-ranks (1-based, ties averaged) of a weighted sample, walking a precomputed sort order. */
function weightedMidranks(order: Int32Array, v: ArrayLike<number>, w: ArrayLike<number>, out: Float64Array): Float64Array {
  let below = 0;
  let i = 0;
  const n = order.length;
  while (i < n) {
    const value = v[order[i] as number] as number;
    let j = i;
    let W = 0;
    while (j < n && v[order[j] as number] === value) W += w[order[j++] as number] as number;
    const rank = below + (W + 1) / 2;
    for (let k = i; k < j; k++) out[order[k] as number] = rank;
    below += W;
    i = j;
  }
  return out;
}

/**
 * Spearman rho (average ranks) of fixed paired data under many resampling weight vectors: the sort
 * orders are computed once, each `rho(w)` is O(n) and allocation-free. Equal to sampleRankCorrelation
 * on the expanded resample (a property test checks it).
 */
export class WeightedSpearman {
  private readonly ox: Int32Array;
  private readonly oy: Int32Array;
  private readonly rx: Float64Array;
  private readonly ry: Float64Array;

  private readonly x: Float64Array;
  private readonly y: Float64Array;

  constructor(x: ArrayLike<number>, y: ArrayLike<number>) {
    if (x.length !== y.length) throw new RangeError(`WeightedSpearman: lengths differ (${x.length} vs ${y.length})`);
    // Ties after rounding to 12 significant digits, as spearman().
    this.x = Float64Array.from(x, (v) => roundSig(v));
    this.y = Float64Array.from(y, (v) => roundSig(v));
    this.ox = argsort(this.x);
    this.oy = argsort(this.y);
    this.rx = new Float64Array(x.length);
    this.ry = new Float64Array(x.length);
  }

  /** rho of the sample in which pair i appears w[i] times; null when undefined. */
  rho(w: ArrayLike<number>): number | null {
    weightedMidranks(this.ox, this.x, w, this.rx);
    weightedMidranks(this.oy, this.y, w, this.ry);
    return pearsonWeighted(this.rx, this.ry, w);
  }
}

/** Resampling weights: n draws with replacement from 0..n-1, as multiplicities (reuses `w`). */
export function resampleWeights(rng: { int(n: number): number }, n: number, w: Int32Array): Int32Array {
  w.fill(0);
  for (let i = 0; i < n; i++) {
    const k = rng.int(n);
    w[k] = (w[k] as number) + 1;
  }
  return w;
}

/**
 * Tertile gap: mean g over the top third of blocks ranked by `key` minus mean g over the bottom third.
 * Each third has floor(n / 3) blocks (the middle one takes the remainder); null when n < 3. Blocks
 * tied on the key at a third's edge share its last places: the group contributes its mean g for each
 * place it fills, so the gap does not depend on the order the blocks (runs) come in (breaking ties
 * by block order gave nullify 0.081 or 0.061 depending on how runs were sorted).
 */
export function tertileGap(key: readonly number[], g: readonly number[]): number | null {
  if (key.length !== g.length) throw new RangeError(`tertileGap: lengths differ (${key.length} vs ${g.length})`);
  const n = key.length;
  const k = Math.floor(n / 3);
  if (k === 0) return null;
  // Keys rounded to 12 significant digits, so floating-point crumbs do not order tied blocks.
  const rk = key.map((v) => roundSig(v));
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (rk[a] as number) - (rk[b] as number));
  // Tied groups in ascending key order, each with its size and sum of g.
  const groups: { size: number; sum: number }[] = [];
  for (let i = 0; i < n; i++) {
    const idx = order[i] as number;
    const last = groups[groups.length - 1];
    if (last !== undefined && i > 0 && rk[order[i - 1] as number] === rk[idx]) {
      last.size++;
      last.sum += g[idx] as number;
    } else groups.push({ size: 1, sum: g[idx] as number });
  }
  const third = (gs: readonly { size: number; sum: number }[]): number => {
    let left = k;
    let total = 0;
    for (const grp of gs) {
      if (left === 0) break;
      const take = Math.min(left, grp.size);
      total += (take * grp.sum) / grp.size;
      left -= take;
    }
    return total / k;
  };
  return third([...groups].reverse()) - third(groups);
}

/** One coupling block of a run. */
export interface Block {
  /** The block's left checkpoint s (the previous checkpoint of the run's schedule). */
  s: number;
  /** The block's right checkpoint t: exploration episodes in (s, t]. */
  t: number;
  /** Agree over the block's scored steps. */
  A: number;
  /** NMAE over the block's scored steps (game-level range); null when the game's reward is constant. */
  E: number | null;
  /** Normalised improvement (y(t) - y(s)) / (max y - min y); 0 for a flat curve. */
  g: number;
  /** Scored steps in the block. */
  nScored: number;
  /**
   * Balanced accuracy over the block's scored steps; null when the block has fewer than
   * MIN_SIDE_STEPS scored steps with r > 0 or with r <= 0 (self_judging's "not estimable" rule).
   */
  BA: number | null;
}

/** Greatest common divisor of non-negative integers (0 for none). */
function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** The checkpoint spacing of a curve: the gcd of its positive x values (3 in the paper); 0 if none. */
export function checkpointSpacing(curve: readonly CurvePoint[]): number {
  let s = 0;
  for (const p of curve) if (p.x > 0) s = gcd(s, p.x);
  return s;
}

/**
 * The blocks of one history/memory run. `episodes` maps an exploration episode index to the counts of
 * its steps; `range` is the game-level reward range. Block t is the exploration between two ADJACENT
 * checkpoints s < t of the run's schedule (every checkpoint recorded, valid or failed), episodes in
 * (s, t]; any spacing works (0, 3, ..., 27, 29 gives ten blocks, the last one two episodes wide). It
 * exists when s and t are both valid and its episodes have at least one scored step. Blocks come in t
 * order.
 */
export function runBlocks(curve: readonly CurvePoint[], episodes: ReadonlyMap<number, JudgingCounts>, range: RewardRange | null): Block[] {
  const y = new Map<number, number>();
  for (const p of curve) if (p.y !== null) y.set(p.x, p.y);
  if (y.size === 0) return [];
  const ys = [...y.values()];
  const spread = Math.max(...ys) - Math.min(...ys);
  const schedule = [...new Set(curve.map((p) => p.x))].sort((a, b) => a - b);
  const blocks: Block[] = [];
  for (let i = 1; i < schedule.length; i++) {
    const s = schedule[i - 1] as number;
    const t = schedule[i] as number;
    const yt = y.get(t);
    const ys0 = y.get(s);
    if (yt === undefined || ys0 === undefined) continue;
    const acc = emptyCounts();
    for (const [e, c] of episodes) if (e > s && e <= t) addCounts(acc, c);
    const stats = judgingStats(acc, range);
    if (stats.agree === null) continue; // no scored step
    const sides = sideCounts(acc);
    const BA = sides.pos >= MIN_SIDE_STEPS && sides.neg >= MIN_SIDE_STEPS ? balancedAccuracy(acc) : null;
    blocks.push({ s, t, A: stats.agree, E: stats.nmae, g: spread > 0 ? (yt - ys0) / spread : 0, nScored: acc.n - acc.unscored, BA });
  }
  return blocks;
}

/** Pooled coupling statistics of a list of blocks (in block order). */
export interface CouplingStats {
  n_blocks: number;
  rho_agree: number | null;
  rho_neg_err: number | null;
  tertile_gap_agree: number | null;
  tertile_gap_neg_err: number | null;
  /** Blocks with a balanced accuracy, and rho(BA, g) and its tertile gap over them. */
  n_blocks_ba: number;
  rho_ba: number | null;
  tertile_gap_ba: number | null;
}

/**
 * Spearman rho(A, g) and rho(-E, g), and the tertile gaps, over blocks. The -E statistics use the
 * blocks whose E is defined (all of them unless the game's reward is constant).
 */
export function couplingStats(blocks: readonly (Pick<Block, "A" | "E" | "g"> & { BA?: number | null })[]): CouplingStats {
  const A = blocks.map((b) => b.A);
  const g = blocks.map((b) => b.g);
  const withE = blocks.filter((b) => b.E !== null);
  const negE = withE.map((b) => -(b.E as number));
  const gE = withE.map((b) => b.g);
  const withBA = blocks.filter((b) => b.BA !== null && b.BA !== undefined);
  const ba = withBA.map((b) => b.BA as number);
  const gBA = withBA.map((b) => b.g);
  return {
    n_blocks: blocks.length,
    rho_agree: spearman(A, g),
    rho_neg_err: spearman(negE, gE),
    tertile_gap_agree: tertileGap(A, g),
    tertile_gap_neg_err: tertileGap(negE, gE),
    n_blocks_ba: withBA.length,
    rho_ba: spearman(ba, gBA),
    tertile_gap_ba: tertileGap(ba, gBA),
  };
}
