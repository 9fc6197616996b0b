/**
 * The success criterion the verified pathway's verifier prompt states (verified.md, "Roles"): the
 * episode score at or above which the verifier should call an exploration episode a success. It is
 * part of the pathway's prompt, so it must be a number known before any episode is played: chess,
 * minesweeper and nullify: the game won (score 1); tetris 3 lines; snake 3 apples; pvz 32 turns held;
 * trust 40 coins (one per move of the 5 x 8 explore game). The project's success threshold for
 * metrics (the views issue's `success_threshold`, partly the median of checkpoint 0, known only after
 * it) is what verifier reliability is measured against once it is on main (docs/verified.md).
 */
import type { GameName } from "../games/types.js";

const CRITERIA: Record<GameName, number> = { chess: 1, minesweeper: 1, nullify: 1, tetris: 3, snake: 3, pvz: 32, trust: 40 };

/** The score a verifier is told marks a success; null for a name that is not a game of the kit. */
export function verifierCriterionScore(game: string): number | null {
  return (CRITERIA as Record<string, number>)[game] ?? null;
}
