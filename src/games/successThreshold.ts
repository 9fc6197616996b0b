/**
 * The per-game success threshold (`success_threshold`, views.md "Forgetting on replay"): when one
 * episode counts as solved. One accessor so every reader (the replay forgetting table, the verified
 * pathway) decides "solved" alike.
 */
import { GAMES } from "./registry.js";
import { GAME_NAMES, type GameName, type SuccessThreshold } from "./types.js";

export type { SuccessThreshold };

/** The game's threshold rule; throws naming the game when it is not one of the seven. */
export function successThreshold(game: string): SuccessThreshold {
  if (!(GAME_NAMES as readonly string[]).includes(game)) throw new Error(`success threshold: unknown game '${game}' (expected one of ${GAME_NAMES.join(", ")})`);
  return GAMES[game as GameName].successThreshold;
}

/**
 * The threshold as a number: the fixed value, or the median of `checkpoint0Scores` (the run's
 * checkpoint-0 scores of the config whose episodes are judged); null when the median rule has no scores.
 */
export function resolveSuccessThreshold(rule: SuccessThreshold, checkpoint0Scores: readonly number[]): number | null {
  if (rule.kind === "fixed") return rule.value;
  if (checkpoint0Scores.length === 0) return null;
  const s = [...checkpoint0Scores].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Solved: the score reaches the threshold (>=, so a fixed 1.0 is reached by a perfect episode). */
export function isSolved(score: number, threshold: number): boolean {
  return score >= threshold;
}
