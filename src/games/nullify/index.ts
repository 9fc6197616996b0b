import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { facts, parseObservation, render, type NullifyFacts } from "./render.js";
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
  type NullifyConfig,
  type NullifyInner,
  rulesBody,
  score,
} from "./rules.js";

export const game = makeGame<NullifyInner, NullifyConfig, NullifyFacts>({
  name: "nullify",
  summary: "Combine numbers and operators (sums, *v, /v, floor, sqrt, ...) until every unit cancels out.",
  configs,
  exploreVariants,
  // success_threshold (views.md, verified.md): solved when the score reaches 1 (the board cancelled out).
  successThreshold: 1,
  configSchema,
  innerSchema,
  actionGrammar,
  init: (config, rng) => init(config, rng),
  copyInner,
  apply: (inner, action) => apply(inner, action),
  render,
  facts,
  parseObservation,
  score: (inner) => score(inner),
  rulesBody,
  legalActions: (inner) => legalActions(inner),
  policies: { random, heuristic },
});
