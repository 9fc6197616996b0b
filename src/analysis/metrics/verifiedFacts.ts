/**
 * Which facts of a verified memory the hidden state contradicts (verified.md, "Logs and metrics":
 * "fraction of facts that the hidden state contradicts where the game can check them"). Pure.
 *
 *   chess      `piece T | move by dx,dy | move made|illegal move`: the hidden movement rules
 *              (PIECE_RULES) say whether the displacement is one of T's; "illegal move" for one of
 *              T's displacements (it failed for another reason: the board edge, an own piece) and
 *              "move made" for one that is not are contradicted.
 *   any game   `... | ... | a successful episode|a failed episode` (outcome facts, e.g. trust's,
 *              whose outcome the hidden opponent decides): contradicted when most of the fact's
 *              supporting episodes' hidden scores say the opposite of the threshold.
 * Every other fact is not checkable (null).
 */
import { PIECE_RULES } from "../../games/chess/rules.js";

export const SUCCESS_EFFECTS = new Set(["a successful episode", "success", "a success"]);
export const FAILURE_EFFECTS = new Set(["a failed episode", "failure", "a failure"]);

export interface CheckableFact {
  condition: string;
  action: string;
  effect: string;
  episodes: readonly number[];
}

/**
 * true: the hidden state contradicts the fact; false: it agrees; null: the game cannot check it.
 * `solved(episode)`: whether that exploration episode's hidden score reached the threshold (null: unknown).
 */
export function factContradicted(game: string, f: CheckableFact, solved: (episode: number) => boolean | null): boolean | null {
  const effect = f.effect.trim().toLowerCase();
  if (SUCCESS_EFFECTS.has(effect) || FAILURE_EFFECTS.has(effect)) {
    const claims = SUCCESS_EFFECTS.has(effect);
    const known = f.episodes.map(solved).filter((s): s is boolean => s !== null);
    if (known.length === 0) return null;
    const against = known.filter((s) => s !== claims).length;
    return against * 2 > known.length;
  }
  if (game === "chess") {
    const piece = /^piece ([A-Z])$/i.exec(f.condition.trim());
    const move = /^move by (-?\d{1,3}),\s*(-?\d{1,3})$/i.exec(f.action.trim());
    if (!piece || !move || (effect !== "move made" && effect !== "illegal move")) return null;
    const rule = (PIECE_RULES as Record<string, { kind: string; vectors: readonly (readonly [number, number])[] }>)[piece[1]!.toUpperCase()];
    if (!rule) return null;
    const [dx, dy] = [Number(move[1]), Number(move[2])];
    const legal =
      rule.kind === "leaper"
        ? rule.vectors.some(([x, y]) => x === dx && y === dy)
        : rule.vectors.some(([x, y]) => {
            const k = x !== 0 ? dx / x : dy / y;
            return Number.isInteger(k) && k >= 1 && x * k === dx && y * k === dy;
          });
    return effect === "move made" ? !legal : legal;
  }
  return null;
}
