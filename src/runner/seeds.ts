/**
 * Episode seeds (protocol.md, "Seeds"). Both lists derive from (run seed, game) only, so every
 * pathway and model of a game gets the same explore list and the same eval list (paired comparisons),
 * and every checkpoint of a run replays the same eval list.
 *
 * Disjoint by construction, not by luck: one base per (run seed, game) from a stable hash, then
 * exploration seeds take the even offsets and evaluation seeds the odd ones:
 *   explore episode x (1-based): base + 2(x-1)
 *   eval episode i (0-based):    base + 2i + 1
 * Lists are prefix-stable: asking for more episodes never changes the earlier seeds.
 */
import { fnv1a32 } from "../util/rng.js";

/** The even base seed of (run seed, game): below 2^31, so seeds stay small non-negative integers. */
export function seedBase(runSeed: number, game: string): number {
  if (!Number.isSafeInteger(runSeed) || runSeed < 0) throw new Error(`run seed must be a non-negative integer, got ${runSeed}`);
  return 2 * (fnv1a32(`s3gym/seeds/v1|${game}|${runSeed}`) % 2 ** 29);
}

/** Seeds of exploration episodes 1..n, in episode order (index 0 is episode 1). */
export function exploreSeeds(runSeed: number, game: string, n: number): number[] {
  const base = seedBase(runSeed, game);
  return Array.from({ length: n }, (_, i) => base + 2 * i);
}

/** Seeds of evaluation episodes 0..n-1: the same list at every checkpoint. */
export function evalSeeds(runSeed: number, game: string, n: number): number[] {
  const base = seedBase(runSeed, game);
  return Array.from({ length: n }, (_, i) => base + 2 * i + 1);
}
