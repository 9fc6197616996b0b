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
 *
 * The `id` view (views.md) needs a THIRD list, disjoint from both. The even/odd offsets from the base
 * leave no residue free, so it lives in another range instead: exploration and evaluation seeds stay
 * below 2^31 (base < 2^30 and at most MAX_LIST_LENGTH episodes each), and id seeds start at 2^31:
 *   id episode i (0-based):      2^31 + base + i
 * Again prefix-stable and the same for every pathway and model of a game.
 */
import { fnv1a32 } from "../../util/rng.js";
import type { ProtocolSettings } from "../settings/protocolSettings.js";

/** The even base seed of (run seed, game): below 2^31, so seeds stay small non-negative integers. */
export function seedBase(runSeed: number, game: string): number {
  if (!Number.isSafeInteger(runSeed) || runSeed < 0) throw new Error(`run seed must be a non-negative integer, got ${runSeed}`);
  return 2 * (fnv1a32(`s3gym/seeds/v1|${game}|${runSeed}`) % 2 ** 29);
}

/**
 * The longest seed list of one kind: it keeps exploration and evaluation seeds below ID_SEED_OFFSET,
 * which is what makes the id list disjoint from them (base + 2(n-1) + 1 < 2^30 + 2^30).
 */
export const MAX_LIST_LENGTH = 2 ** 29;

/** Where the id view's seeds start: above every exploration and evaluation seed. */
export const ID_SEED_OFFSET = 2 ** 31;

function checkLength(kind: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_LIST_LENGTH) throw new Error(`${kind} seed list length must be an integer in 0..${MAX_LIST_LENGTH}, got ${n}`);
}

/** Seeds of exploration episodes 1..n, in episode order (index 0 is episode 1). */
export function exploreSeeds(runSeed: number, game: string, n: number): number[] {
  checkLength("exploration", n);
  const base = seedBase(runSeed, game);
  return Array.from({ length: n }, (_, i) => base + 2 * i);
}

/** Seeds of evaluation episodes 0..n-1: the same list at every checkpoint. */
export function evalSeeds(runSeed: number, game: string, n: number): number[] {
  checkLength("evaluation", n);
  const base = seedBase(runSeed, game);
  return Array.from({ length: n }, (_, i) => base + 2 * i + 1);
}

/** Seeds of the `id` view's episodes 0..n-1 (views.md): the same list at every checkpoint, at or above ID_SEED_OFFSET. */
export function idSeeds(runSeed: number, game: string, n: number): number[] {
  checkLength("id view", n);
  const base = ID_SEED_OFFSET + seedBase(runSeed, game);
  return Array.from({ length: n }, (_, i) => base + i);
}

/**
 * A run's seed lists, derived here once from its settings: exploration 1..N_explore, evaluation
 * 0..N_eval-1 and, with the `id` view on, the id list (the replay view re-plays a prefix of the
 * exploration list: runner/loop/views.ts reads these lists, never derives its own).
 */
export function runSeeds(s: Pick<ProtocolSettings, "runSeed" | "exploreEpisodes" | "evalEpisodes" | "views">, game: string): { exploreSeeds: number[]; evalSeeds: number[]; idSeeds?: number[] } {
  return {
    exploreSeeds: exploreSeeds(s.runSeed, game, s.exploreEpisodes),
    evalSeeds: evalSeeds(s.runSeed, game, s.evalEpisodes),
    ...(s.views?.extra.includes("id") ? { idSeeds: idSeeds(s.runSeed, game, s.views.viewEpisodes) } : {}),
  };
}
