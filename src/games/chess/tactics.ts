/**
 * Chess tactics (learner.md): the heuristic's probe-then-capture with every vector learned so far,
 * a careless half-random variant, and the random mover. Rule knowledge (the displacement vectors per
 * hidden type) is learned from any episode's moves and feedback.
 */
import { judgedBy, mixed, plain, type TacticPolicy, type TacticSet } from "../tactics.js";
import { heuristicKnowing, learnVectors, random } from "./policies.js";

const probe: TacticPolicy = (ctx, rng, k) => heuristicKnowing(k.vectors ?? {})(ctx, rng);

export const tactics: TacticSet = {
  game: "chess",
  tactics: [
    { name: "probe-capture", summary: "capture with known-legal vectors, probe unknown ones while steps allow", policy: probe },
    { name: "careless", summary: "probe-capture half the time, a random legal-looking move otherwise", policy: mixed(0.5, probe, judgedBy(probe, plain(random))) },
    { name: "random", summary: "a random legal-looking move (deliberately poor)", policy: judgedBy(probe, plain(random)) },
    { name: "stop-early", summary: "ends the game at once (deliberately poor: nothing is ever captured)", policy: () => ({ action: "END", selfScore: 0 }) },
  ],
  scoreRange: [0, 0.5],
  learn: (steps) => ({ vectors: learnVectors(steps) }),
};
