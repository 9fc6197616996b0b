/**
 * What `builtin:learner` reads from a verified memory text (src/agent/verifiedMemoryText.ts): its
 * tactic facts as statistics (per tactic: episodes = the support of its success and failure facts,
 * return = its share of successes, so the choice rule ranks tactics by verified success) and its
 * chess facts as displacement vectors. Facts of any other form are prose to it.
 */
import { parseVerifiedMemoryText } from "../../../agent/verifiedMemoryText.js";
import type { TacticStats, Vectors } from "../experienceText.js";
import { FAILURE_EFFECT, SUCCESS_EFFECT } from "./verifier.js";

export function readVerifiedFacts(text: string): { stats: TacticStats; vectors: Vectors } {
  const stats: TacticStats = new Map();
  const vectors: Vectors = {};
  for (const f of parseVerifiedMemoryText(text)) {
    const tactic = /^tactic ([a-z0-9][a-z0-9-]*)$/.exec(f.action);
    if (tactic && (f.effect === SUCCESS_EFFECT || f.effect === FAILURE_EFFECT)) {
      const s = stats.get(tactic[1]!) ?? { n: 0, sum: 0 };
      s.n += f.support;
      if (f.effect === SUCCESS_EFFECT) s.sum += f.support;
      stats.set(tactic[1]!, s);
      continue;
    }
    const piece = /^piece ([A-Z])$/.exec(f.condition);
    const move = /^move by (-?\d+,-?\d+)$/.exec(f.action);
    if (piece && move && (f.effect === "move made" || f.effect === "illegal move")) {
      const e = (vectors[piece[1]!] ??= { legal: [], bad: [] });
      (f.effect === "move made" ? e.legal : e.bad).push(move[1]!);
    }
  }
  return { stats, vectors };
}
