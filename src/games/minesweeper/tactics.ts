/** Minesweeper tactics (learner.md): constraint propagation, a careless variant, random guesses. */
import { judgedBy, mixed, plain, type TacticSet } from "../tactics.js";
import { heuristic, random } from "./policies.js";

const propagate = plain(heuristic);
const guess = judgedBy(propagate, plain(random));

export const tactics: TacticSet = {
  game: "minesweeper",
  tactics: [
    { name: "propagate", summary: "deduce safe cells and mines, then the lowest-risk guess", policy: propagate },
    { name: "careless", summary: "propagate half the time, a random cell otherwise", policy: mixed(0.5, propagate, guess) },
    { name: "random-guess", summary: "a random uncover or flag (deliberately poor)", policy: guess },
    { name: "corners", summary: "always the top-left cell (deliberately poor: repeats itself once it is open)", policy: judgedBy(propagate, () => ({ action: "uncover (0, 0)", selfScore: 0 })) },
  ],
  scoreRange: [0, 0.5],
};
