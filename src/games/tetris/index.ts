import { gameFromModules } from "../envelope.js";
import * as policies from "./policies.js";
import * as render from "./render.js";
import type { TetrisFacts } from "./render.js";
import * as rules from "./rules.js";
import type { TetrisConfig, TetrisInner } from "./rules.js";

export const game = gameFromModules<TetrisInner, TetrisConfig, TetrisFacts>({
  name: "tetris",
  summary: "Hard-drop tetrominoes at a chosen column and rotation; clear full rows (score = lines cleared).",
  // success_threshold (views.md, verified.md): solved when the score reaches 3 (3 lines cleared).
  successThreshold: 3,
  rules,
  render,
  policies,
});
