/** Nullify tactics (learner.md): exact search, a careless variant, always the first two units. */
import { judgedBy, mixed, plain, type TacticSet } from "../tactics.js";
import { heuristic, random, visibleUnits } from "./policies.js";

const exact = plain(heuristic);
const leftToRight = judgedBy(exact, (ctx) => {
  visibleUnits(ctx);
  return { action: "0 1", selfScore: 0 };
});

export const tactics: TacticSet = {
  game: "nullify",
  tactics: [
    { name: "exact", summary: "search the printed numbers for a line that reaches zero", policy: exact },
    { name: "greedy-cancel", summary: "exact half the time, a random pair otherwise", policy: mixed(0.5, exact, judgedBy(exact, plain(random))) },
    { name: "left-to-right", summary: "always combine the first two units (deliberately poor)", policy: leftToRight },
    { name: "random", summary: "a random pair (deliberately poor)", policy: judgedBy(exact, plain(random)) },
  ],
  scoreRange: [0, 1],
};
