import { gameFromModules } from "../envelope.js";
import * as policies from "./policies.js";
import * as render from "./render.js";
import type { SnakeFacts } from "./render.js";
import * as rules from "./rules.js";
import type { SnakeConfig, SnakeInner } from "./rules.js";

export const game = gameFromModules<SnakeInner, SnakeConfig, SnakeFacts>({
  name: "snake",
  summary: "Snake on a walled board with 3 apples; collisions are no-ops in explore and fatal in eval; score = apples eaten",
  // success_threshold (views.md, verified.md): solved when the score reaches 3 (3 apples eaten).
  successThreshold: 3,
  rules,
  render,
  policies,
});
