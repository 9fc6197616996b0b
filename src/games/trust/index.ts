import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { facts, parseObservation, render, type TrustFacts } from "./render.js";
import {
  actionGrammar,
  apply,
  copyInner,
  configs,
  exploreVariants,
  configSchema,
  init,
  innerSchema,
  legalActions,
  rulesBody,
  score,
  type TrustConfig,
  type TrustInner,
} from "./rules.js";

export const game = makeGame<TrustInner, TrustConfig, TrustFacts>({
  name: "trust",
  summary: "The Evolution of Trust coin game: 5 rounds x 8 moves of collaborate/cheat against a hidden-type opponent.",
  configs,
  exploreVariants,
  // success_threshold (views.md, verified.md): solved when the score reaches 40 (40 coins (one per move of the 5 x 8 explore game)).
  successThreshold: 40,
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
