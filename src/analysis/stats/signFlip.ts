/**
 * The exact sign-flip permutation test (metrics.md, "Comparisons and power"), shared by `compare`
 * and the gain columns of main_results: under "no difference" the two sides of every unit (an
 * evaluation seed) are exchangeable, so every pattern of swapping them is as likely as the data.
 * p = share of patterns whose |T| reaches the observed |T|: all 2^n patterns (the identity included)
 * up to EXACT_MAX_SEEDS units, else (1 + hits) / (1 + flips) over seeded random patterns.
 */
import type { Rng } from "../../util/rng.js";

/** Up to this many units the test enumerates every flip pattern. */
export const EXACT_MAX_SEEDS = 16;
export const DEFAULT_FLIPS = 10000;

export interface SignFlipResult {
  /** Null when the observed statistic is not finite. */
  p: number | null;
  kind: "exact" | "random";
}

/**
 * The test of a statistic of flip patterns: `statOf(flip)` is T with unit k's sides swapped where
 * flip[k] = 1 (it must not keep `flip`). K units; `flips` random patterns above EXACT_MAX_SEEDS.
 */
export function signFlipTest(K: number, flips: number, rng: Rng, statOf: (flip: Uint8Array) => number): SignFlipResult {
  const kind = K <= EXACT_MAX_SEEDS ? "exact" : "random";
  const flip = new Uint8Array(K);
  const observed = Math.abs(statOf(flip));
  if (!Number.isFinite(observed)) return { p: null, kind };
  // Ties in |T| within floating-point noise count as reaching it (roundoff must not lower p).
  const tol = 1e-12 * Math.max(1, observed);
  let hits = 0;
  if (kind === "exact") {
    const total = 2 ** K;
    for (let mask = 0; mask < total; mask++) {
      for (let k = 0; k < K; k++) flip[k] = (mask >> k) & 1;
      if (Math.abs(statOf(flip)) >= observed - tol) hits++;
    }
    return { p: hits / total, kind };
  }
  for (let f = 0; f < flips; f++) {
    for (let k = 0; k < K; k++) flip[k] = rng.int(2);
    if (Math.abs(statOf(flip)) >= observed - tol) hits++;
  }
  return { p: (1 + hits) / (1 + flips), kind };
}

/**
 * The sign-flip test of a LINEAR statistic, inverted into an interval (metrics.md, "Paired gains").
 * The statistic of shift delta under flip pattern s is T_s(delta) = sum_k s_k (u_k - delta c_k), with
 * unit weights c_k >= 0 (S = sum c_k > 0) and unit sums u_k, so the point is U / S (U = sum u_k) and
 * T_1(delta) = U - delta S. The test of "the units' differences are symmetric about delta" counts the
 * patterns with |T_s(delta)| >= |T_1(delta)|; the interval is every delta whose p is >= 1 - level, so
 * "the interval excludes 0" and "p(0) < 1 - level" are one statement about the same counts.
 *
 * Why it is an interval, and how it is computed without scanning delta: with F the flipped units,
 * a = sum_F u_k and m = sum_F c_k, |T_s| >= |T_1| holds exactly for delta between a / m (the flipped
 * units' weighted mean) and (U - a) / (S - m) (the others'); both patterns with m = 0 or m = S (no unit
 * or every unit flipped) reach it at every delta. The point U / S lies between the two means, so every
 * pattern's set holds the point: the count is non-decreasing up to the point and non-increasing after
 * it, the accepted set is one closed interval around the point, and its ends are order statistics of
 * the patterns' lower and upper ends.
 */
export interface SignFlipInterval {
  /** Ends of the accepted set; -Infinity / +Infinity when the test cannot reject on that side (too few units). */
  lo: number;
  hi: number;
  /** The point U / S. */
  point: number;
  /** The test's p at delta = 0 (the printed p). */
  p: number;
  kind: "exact" | "random";
}

/**
 * Ties: a pattern reaching the observed |T| within this relative tolerance (of the largest unit mean)
 * counts as reaching it, as in signFlipTest: rounding must not lower p. The same widened ends serve
 * the interval and p(0), so the two cannot disagree.
 */
export const INVERSION_TIE_TOL = 1e-10;

/**
 * The inverted sign-flip test of a linear statistic (above): exact over all 2^K patterns up to
 * EXACT_MAX_SEEDS units (each pattern and its mirror give the same set, so half are enumerated), else
 * `flips` seeded random patterns plus the observed one, p = (1 + hits) / (1 + flips) as in
 * signFlipTest (the same draws from `rng`, in the same order). Null when no unit has weight.
 */
export function signFlipInversion(u: ArrayLike<number>, c: ArrayLike<number>, flips: number, rng: Rng, level = 0.95): SignFlipInterval | null {
  const K = u.length;
  let U = 0;
  let S = 0;
  let scale = 0;
  for (let k = 0; k < K; k++) {
    const ck = c[k] as number;
    const uk = u[k] as number;
    if (!(ck >= 0) || !Number.isFinite(uk)) return null;
    U += uk;
    S += ck;
    if (ck > 0) scale = Math.max(scale, Math.abs(uk / ck));
  }
  if (!(S > 0)) return null;
  const point = U / S;
  const tol = INVERSION_TIE_TOL * Math.max(scale, Number.MIN_VALUE);
  const kind = K <= EXACT_MAX_SEEDS ? "exact" : "random";
  // Non-degenerate patterns' ends (widened by tol, clamped to hold the point), their weights, and the
  // weight of the patterns that reach |T_1| at every delta.
  const cap = kind === "exact" ? Math.max(1, 2 ** Math.max(0, K - 1)) : flips;
  const lows = new Float64Array(cap);
  const highs = new Float64Array(cap);
  let count = 0;
  let always = 0;
  let total = 0;
  const add = (a: number, m: number, weight: number): void => {
    total += weight;
    // m (a sum of weights) is 0 or S only when no unit with weight is flipped, or all are.
    if (m <= 0 || S - m <= 0 || m <= 1e-15 * S || S - m <= 1e-15 * S) {
      always += weight;
      return;
    }
    const x = a / m;
    const y = (U - a) / (S - m);
    lows[count] = Math.min(x, y, point) - tol;
    highs[count] = Math.max(x, y, point) + tol;
    count++;
  };
  const weight = kind === "exact" ? 2 : 1;
  if (kind === "exact") {
    // Patterns with unit K-1 unflipped; each stands for itself and its mirror.
    const half = K === 0 ? 1 : 2 ** (K - 1);
    for (let mask = 0; mask < half; mask++) {
      let a = 0;
      let m = 0;
      for (let k = 0; k < K - 1; k++) {
        if ((mask >> k) & 1) {
          a += u[k] as number;
          m += c[k] as number;
        }
      }
      add(a, m, 2);
    }
  } else {
    total += 1;
    always += 1; // the observed pattern
    for (let f = 0; f < flips; f++) {
      let a = 0;
      let m = 0;
      for (let k = 0; k < K; k++) {
        if (rng.int(2) === 1) {
          a += u[k] as number;
          m += c[k] as number;
        }
      }
      add(a, m, 1);
    }
  }
  const alpha = 1 - level;
  // The fewest hits whose share is not below alpha (the float comparison p itself is read with).
  let need = Math.ceil(alpha * total) + 1;
  while (need > 0 && (need - 1) / total >= alpha) need--;
  let hits0 = always;
  for (let i = 0; i < count; i++) if ((lows[i] as number) <= 0 && 0 <= (highs[i] as number)) hits0 += weight;
  const lowSorted = lows.subarray(0, count).sort();
  const highSorted = highs.subarray(0, count).sort();
  // Below the point the count at delta is always + weight * #{low <= delta}; above it, mirrored.
  const k = Math.ceil((need - always) / weight);
  const lo = k <= 0 ? -Infinity : k > count ? point : (lowSorted[k - 1] as number);
  const hi = k <= 0 ? Infinity : k > count ? point : (highSorted[count - k] as number);
  return { lo, hi, point, p: hits0 / total, kind };
}
