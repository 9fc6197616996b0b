/**
 * The per-game success threshold (`success_threshold`, views.md "Forgetting on replay", verified.md):
 * the episode score at or above which an episode counts as solved. Each game declares it beside its
 * configs (src/games/<game>/index.ts); this accessor is how every reader gets it, so the replay
 * forgetting table and the verified pathway's verifier decide "solved" alike.
 * Chess, minesweeper and nullify: the game won (score 1); tetris 3 lines; snake 3 apples; pvz 32
 * turns held; trust 40 coins (one per move of the 5 x 8 explore game).
 */
import { GAMES } from "./registry.js";
import { GAME_NAMES, type GameName } from "./types.js";

/** The success threshold of a game; null for a name that is not a game of the kit. */
export function successThreshold(game: string): number | null {
  return (GAME_NAMES as readonly string[]).includes(game) ? GAMES[game as GameName].successThreshold : null;
}

/** Solved: the score reaches the threshold (>=, so a threshold of 1 is reached by a won game). */
export function isSolved(score: number, threshold: number): boolean {
  return score >= threshold;
}
