import { gameFromModules } from "../envelope.js";
import * as policies from "./policies.js";
import * as render from "./render.js";
import type { MinesweeperFacts } from "./render.js";
import * as rules from "./rules.js";
import type { MinesweeperConfig, MinesweeperInner } from "./rules.js";

export const game = gameFromModules<MinesweeperInner, MinesweeperConfig, MinesweeperFacts>({
  name: "minesweeper",
  summary: "Minesweeper with flood fill, lives in explore and the first-click rule in eval; score = correct flags / mines, 1 on a win",
  // success_threshold (views.md, verified.md): solved when the score reaches 1 (the board won).
  successThreshold: 1,
  rules,
  render,
  policies,
});
