/**
 * Trust tactics (learner.md): the heuristic's probe-then-exploit planning, copycat, and the two
 * constant strategies. probe-exploit plans with opponent knowledge when the learner passes it (the
 * prior over strategies that the opponents of its earlier episodes give: opponentModel.ts); without
 * it, it is the heuristic. Estimate (every tactic): the heuristic's belief-weighted expected payoff
 * of the move, from the rounds seen so far (the fair judge, the same whatever the tactic knows).
 */
import { splitObservation } from "../envelope.js";
import { plain, type TacticPolicy, type TacticSet } from "../tactics.js";
import type { PolicyContext } from "../types.js";
import { opponentFromSteps, priorFrom } from "./opponentModel.js";
import { beliefPayoff, heuristic, heuristicWithPrior } from "./policies.js";
import { parseObservation } from "./render.js";
import type { Move } from "./rules.js";

function lastThem(ctx: PolicyContext): Move | null {
  const f = parseObservation(splitObservation(ctx.observation).body);
  if (f.over || f.round === null) return null;
  return f.history[f.round - 1]?.them.at(-1) ?? null;
}

const constant =
  (move: Move): TacticPolicy =>
  (ctx) => ({ action: move, selfScore: beliefPayoff(ctx, move) });

const copycat: TacticPolicy = (ctx) => {
  const move = lastThem(ctx) ?? "collaborate";
  return { action: move, selfScore: beliefPayoff(ctx, move) };
};

const probeExploit: TacticPolicy = (ctx, rng, k) => {
  if (!k.opponents?.length) return plain(heuristic)(ctx, rng, k);
  const d = heuristicWithPrior(ctx, priorFrom(k.opponents));
  return { action: d.action, selfScore: beliefPayoff(ctx, d.action as Move) };
};

export const tactics: TacticSet = {
  game: "trust",
  tactics: [
    { name: "probe-exploit", summary: "probe the opponent's type, then play the best reply to it (weighing the opponents met before)", policy: probeExploit },
    { name: "copycat", summary: "collaborate first, then repeat the opponent's last move", policy: copycat },
    { name: "always-cheat", summary: "cheat every move", policy: constant("cheat") },
    { name: "always-collaborate", summary: "collaborate every move", policy: constant("collaborate") },
  ],
  scoreRange: [-1, 3],
  learn: (steps) => {
    const o = opponentFromSteps(steps);
    return { opponents: o ? [o] : [] };
  },
};
