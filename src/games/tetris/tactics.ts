/** Tetris tactics (learner.md): the heuristic's two-ply placement, a careless variant, random drops. Estimate: lines cleared. */
import { judgedBy, mixed, plain, type TacticSet } from "../tactics.js";
import { heuristic, random } from "./policies.js";

const flat = plain(heuristic);
const drop = judgedBy(flat, plain(random));

export const tactics: TacticSet = {
  game: "tetris",
  tactics: [
    { name: "flat", summary: "two-ply search that keeps the stack low, flat and without holes", policy: flat },
    { name: "careless", summary: "flat half the time, a random placement otherwise", policy: mixed(0.5, flat, drop) },
    { name: "random-drop", summary: "a random column and rotation (deliberately poor)", policy: drop },
    { name: "tall-stack", summary: "every piece into the leftmost column, unrotated (deliberately poor)", policy: judgedBy(flat, () => ({ action: "1 0", selfScore: 0 })) },
  ],
  scoreRange: [0, 2],
};
