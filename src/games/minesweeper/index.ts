import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { facts, parseObservation, render, type MinesweeperFacts } from "./render.js";
import {
  actionGrammar,
  apply,
  copyInner,
  configSchema,
  configs,
  exploreVariants,
  init,
  innerSchema,
  legalActions,
  rulesBody,
  score,
  type MinesweeperConfig,
  type MinesweeperInner,
} from "./rules.js";

export const game = makeGame<MinesweeperInner, MinesweeperConfig, MinesweeperFacts>({
  name: "minesweeper",
  summary: "Minesweeper with flood fill, lives in explore and the first-click rule in eval; score = correct flags / mines, 1 on a win",
  configs,
  exploreVariants,
  // success_threshold (views.md, verified.md): solved when the score reaches 1 (the board won).
  successThreshold: 1,
  configSchema,
  innerSchema,
  actionGrammar,
  init,
  copyInner,
  apply,
  render,
  facts,
  parseObservation,
  score,
  rulesBody,
  legalActions,
  policies: { random, heuristic },
});
