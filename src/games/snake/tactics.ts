/**
 * Snake tactics (learner.md): the heuristic's safe shortest path, a greedy variant that ignores traps,
 * and the random mover. Estimates: 1 when the move eats an apple (what the heuristic's estimator says).
 */
import { judgedBy, plain, type TacticPolicy, type TacticSet } from "../tactics.js";
import { evaluateMoves, factsOf, heuristic, random } from "./policies.js";

/** Nearest apple first among the moves that do not collide now, blind to traps. */
const greedyUnsafe: TacticPolicy = (ctx, rng) => {
  const f = factsOf(ctx.observation);
  const options = evaluateMoves(f);
  if (options.length === 0) return { action: f.direction, selfScore: 0 };
  const bestDist = Math.min(...options.map((o) => o.dist));
  const o = rng.pick(options.filter((x) => x.dist === bestDist));
  return { action: o.dir, selfScore: o.eats ? 1 : 0 };
};

/** Keeps going the way the snake faces; its estimate is whether that eats. */
const straight: TacticPolicy = (ctx, rng, k) => {
  const f = factsOf(ctx.observation);
  return judgedBy(plain(heuristic), () => ({ action: f.direction, selfScore: 0 }))(ctx, rng, k);
};

export const tactics: TacticSet = {
  game: "snake",
  tactics: [
    { name: "shortest-path", summary: "shortest path to an apple among moves that keep the tail reachable", policy: plain(heuristic) },
    { name: "greedy-unsafe", summary: "nearest apple first, blind to traps", policy: greedyUnsafe },
    { name: "random", summary: "a random direction (deliberately poor)", policy: judgedBy(plain(heuristic), plain(random)) },
    { name: "straight", summary: "keep the current direction (deliberately poor: runs into the wall)", policy: straight },
  ],
  scoreRange: [0, 1],
};
