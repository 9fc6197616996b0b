import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { render } from "./render.js";
import {
  actionGrammar,
  apply,
  configSchema,
  configs,
  init,
  innerSchema,
  legalActions,
  rulesBody,
  score,
  type MinesweeperConfig,
  type MinesweeperInner,
} from "./rules.js";

export const game = makeGame<MinesweeperInner, MinesweeperConfig>({
  name: "minesweeper",
  summary: "Minesweeper with flood fill, lives in explore and the first-click rule in eval; score = correct flags / mines, 1 on a win",
  configs,
  configSchema,
  innerSchema,
  actionGrammar,
  init,
  apply,
  render,
  score,
  rulesBody,
  legalActions,
  policies: { random, heuristic },
});
