import { gameFromModules } from "../envelope.js";
import * as policies from "./policies.js";
import * as render from "./render.js";
import type { TrustFacts } from "./render.js";
import * as rules from "./rules.js";
import type { TrustConfig, TrustInner } from "./rules.js";

export const game = gameFromModules<TrustInner, TrustConfig, TrustFacts>({
  name: "trust",
  summary: "The Evolution of Trust coin game: 5 rounds x 8 moves of collaborate/cheat against a hidden-type opponent.",
  // success_threshold (views.md, verified.md): solved when the score reaches 40 (40 coins (one per move of the 5 x 8 explore game)).
  successThreshold: 40,
  rules,
  render,
  policies,
});
