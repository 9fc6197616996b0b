/** PvZ tactics (learner.md): the heuristic's economy and lane defence, a careless variant, random planting. */
import { judgedBy, mixed, plain, type TacticSet } from "../tactics.js";
import { heuristic, random } from "./policies.js";

const economy = plain(heuristic);
const noPlan = judgedBy(economy, plain(random));

export const tactics: TacticSet = {
  game: "pvz",
  tactics: [
    { name: "economy", summary: "sunflowers first, then answer every lane a zombie would break", policy: economy },
    { name: "careless", summary: "economy half the time, a random plant or pass otherwise", policy: mixed(0.5, economy, noPlan) },
    { name: "no-plan", summary: "a random plant or pass (deliberately poor)", policy: noPlan },
    { name: "no-sun", summary: "always pass (deliberately poor: never plants)", policy: judgedBy(economy, () => ({ action: "pass", selfScore: 0 })) },
  ],
  scoreRange: [0, 1],
};
