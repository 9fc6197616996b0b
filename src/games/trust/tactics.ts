/**
 * Trust tactics (learner.md): the heuristic's probe-then-exploit planning, copycat, and the two
 * constant strategies. Estimate (every tactic): the heuristic's belief-weighted expected payoff of the
 * move, from the rounds seen so far.
 */
import { splitObservation } from "../envelope.js";
import { plain, type TacticPolicy, type TacticSet } from "../tactics.js";
import type { PolicyContext } from "../types.js";
import { beliefPayoff, heuristic } from "./policies.js";
import { parseObservation } from "./render.js";
import type { Move } from "./rules.js";

function lastThem(ctx: PolicyContext): Move | null {
  const f = parseObservation(splitObservation(ctx.observation).body);
  if (f.over || f.round === null) return null;
  return f.history[f.round - 1]?.them.at(-1) ?? null;
}

const constant = (move: Move): TacticPolicy => (ctx) => ({ action: move, selfScore: beliefPayoff(ctx, move) });

const copycat: TacticPolicy = (ctx) => {
  const move = lastThem(ctx) ?? "collaborate";
  return { action: move, selfScore: beliefPayoff(ctx, move) };
};

export const tactics: TacticSet = {
  game: "trust",
  tactics: [
    { name: "probe-exploit", summary: "probe the opponent's type, then play the best reply to it", policy: plain(heuristic) },
    { name: "copycat", summary: "collaborate first, then repeat the opponent's last move", policy: copycat },
    { name: "always-cheat", summary: "cheat every move", policy: constant("cheat") },
    { name: "always-collaborate", summary: "collaborate every move", policy: constant("collaborate") },
  ],
  scoreRange: [-1, 3],
};
