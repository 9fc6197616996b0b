/**
 * The exact sign-flip permutation test (metrics.md, "Comparisons and power"), shared by `compare`
 * and the gain columns of main_results: under "no difference" the two sides of every unit (an
 * evaluation seed) are exchangeable, so every pattern of swapping them is as likely as the data.
 * p = share of patterns whose |T| reaches the observed |T|: all 2^n patterns (the identity included)
 * up to EXACT_MAX_SEEDS units, else (1 + hits) / (1 + flips) over seeded random patterns.
 */
import type { Rng } from "../util/rng.js";

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
