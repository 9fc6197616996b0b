import { gameFromModules } from "../envelope.js";
import * as policies from "./policies.js";
import * as render from "./render.js";
import type { NullifyFacts } from "./render.js";
import * as rules from "./rules.js";
import type { NullifyConfig, NullifyInner } from "./rules.js";

export const game = gameFromModules<NullifyInner, NullifyConfig, NullifyFacts>({
  name: "nullify",
  summary: "Combine numbers and operators (sums, *v, /v, floor, sqrt, ...) until every unit cancels out.",
  // success_threshold (views.md, verified.md): solved when the score reaches 1 (the board cancelled out).
  successThreshold: 1,
  rules,
  render,
  policies,
});
