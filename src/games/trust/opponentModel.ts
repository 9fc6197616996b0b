/**
 * Trust opponent knowledge for `builtin:learner` (learner.md: "which opening responses it has seen
 * followed by which payoffs"), from transcript text only, never the hidden type.
 *
 * Each earlier episode the learner can see faced one opponent (the rules: one fixed strategy for the
 * whole game, restarting every round). Its visible rounds are that opponent's answers to the moves it
 * was played; the learner keeps the strategies, of the eight the heuristic plans against, that are
 * consistent with every one of them (a block the context budget cut shows fewer moves, so it leaves
 * more candidates). Those records turn into a prior over the strategies for probe-exploit's planning:
 * one pseudo-episode per strategy (none is ever ruled out) plus each record's episodes, shared among
 * its candidates. With no experience that is the heuristic's uniform prior.
 */
import { splitObservation } from "../envelope.js";
import type { OpponentRecord, SeenStep } from "../tactics.js";
import { beliefFrom } from "./policies.js";
import { parseObservation, type TrustFacts } from "./render.js";
import { OPPONENT_TYPES, type Move, type OpponentType } from "./rules.js";

export type { OpponentRecord };

const FEEDBACK = /^you (collaborated|cheated), the opponent (collaborated|cheated)/;
const PAST: Record<string, Move> = { collaborated: "collaborate", cheated: "cheat" };

/** The rounds one episode's visible steps show: its last readable observation's history plus that step's own move (from its feedback). */
export function roundsFromSteps(steps: readonly SeenStep[]): TrustFacts["history"] | null {
  for (let i = steps.length - 1; i >= 0; i--) {
    let facts: TrustFacts;
    try {
      facts = parseObservation(splitObservation(steps[i]!.observation).body);
    } catch {
      continue; // not a trust observation: look further back
    }
    const history = facts.history.map((r) => ({ you: r.you.slice(), them: r.them.slice() }));
    const fb = FEEDBACK.exec(steps[i]!.feedback);
    if (fb && !facts.over && facts.round !== null) {
      if (facts.move === 1) history.push({ you: [], them: [] });
      const cur = history[history.length - 1]!;
      cur.you.push(PAST[fb[1]!]!);
      cur.them.push(PAST[fb[2]!]!);
    }
    return history.filter((r) => r.you.length > 0);
  }
  return null;
}

/**
 * The opponent an episode's visible steps show: the deterministic strategies consistent with all of
 * its moves, or `random` when none is (only a coin explains them). Null when no move is visible.
 */
export function opponentFromSteps(steps: readonly SeenStep[]): OpponentRecord | null {
  const rounds = roundsFromSteps(steps);
  if (!rounds || rounds.length === 0) return null;
  const { dets } = beliefFrom(OPPONENT_TYPES, rounds);
  return { n: 1, types: dets.length ? [...dets].sort() : ["random"] };
}

export function isOpponentType(s: string): s is OpponentType {
  return (OPPONENT_TYPES as readonly string[]).includes(s);
}

/** Records with the same candidates merged (counts added), sorted by their candidates. */
export function mergeOpponents(...all: (readonly OpponentRecord[] | undefined)[]): OpponentRecord[] {
  const by = new Map<string, OpponentRecord>();
  for (const list of all)
    for (const o of list ?? []) {
      const key = o.types.join(" ");
      const hit = by.get(key);
      if (hit) hit.n += o.n;
      else by.set(key, { n: o.n, types: [...o.types] });
    }
  return [...by.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, o]) => o);
}

/** The prior over strategies the records give: 1 each, plus each record's episodes shared equally among its candidates. */
export function priorFrom(met: readonly OpponentRecord[]): Record<OpponentType, number> {
  const prior = Object.fromEntries(OPPONENT_TYPES.map((t) => [t, 1])) as Record<OpponentType, number>;
  for (const o of met) {
    const types = o.types.filter(isOpponentType);
    for (const t of types) prior[t] += o.n / types.length;
  }
  return prior;
}
