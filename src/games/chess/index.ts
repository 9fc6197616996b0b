import { gameFromModules } from "../envelope.js";
import * as policies from "./policies.js";
import * as render from "./render.js";
import type { ChessFacts } from "./render.js";
import * as rules from "./rules.js";
import type { ChessConfig, ChessInner } from "./rules.js";

export const game = gameFromModules<ChessInner, ChessConfig, ChessFacts>({
  name: "chess",
  summary: "Rule induction: capture static targets with pieces whose moves you must discover.",
  // success_threshold (views.md, verified.md): solved when the score reaches 1 (every target captured).
  successThreshold: 1,
  rules,
  render,
  policies,
});
