import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { facts, parseObservation, render, type PvzFacts } from "./render.js";
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
  rulesBody,
  score,
  type PvzConfig,
  type PvzInner,
} from "./rules.js";

export const game = makeGame<PvzInner, PvzConfig, PvzFacts>({
  name: "pvz",
  summary: "Plants vs Zombies: buy plants with sun to hold a lawn against waves of zombies; 1 per turn survived",
  configs,
  exploreVariants,
  // success_threshold (views.md, verified.md): solved when the score reaches 32 (32 turns held).
  successThreshold: 32,
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
