import { gameFromModules } from "../envelope.js";
import * as policies from "./policies.js";
import * as render from "./render.js";
import type { PvzFacts } from "./render.js";
import * as rules from "./rules.js";
import type { PvzConfig, PvzInner } from "./rules.js";

export const game = gameFromModules<PvzInner, PvzConfig, PvzFacts>({
  name: "pvz",
  summary: "Plants vs Zombies: buy plants with sun to hold a lawn against waves of zombies; 1 per turn survived",
  // success_threshold (views.md, verified.md): solved when the score reaches 32 (32 turns held).
  successThreshold: 32,
  rules,
  render,
  policies,
});
