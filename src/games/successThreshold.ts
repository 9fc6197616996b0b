/**
 * LOCAL accessor (issue 18), to be replaced by the views issue's per-game `success_threshold` once it
 * lands: the episode score at or above which an episode counts as a success. The verified pathway's
 * verifier prompt states it, and its reliability metric compares the verifier's outcome with the
 * hidden score against it. Chess, minesweeper and nullify: the game won (score 1); tetris 3 lines;
 * snake 3 apples; pvz 32 turns held; trust 40 coins (one per move of the 5 x 8 explore game).
 */
import type { GameName } from "./types.js";

const THRESHOLDS: Record<GameName, number> = { chess: 1, minesweeper: 1, nullify: 1, tetris: 3, snake: 3, pvz: 32, trust: 40 };

/** The success threshold of a game; null for a name that is not a game of the kit. */
export function successThreshold(game: string): number | null {
  return (THRESHOLDS as Record<string, number>)[game] ?? null;
}
