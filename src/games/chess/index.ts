import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { facts, parseObservation, render, type ChessFacts } from "./render.js";
import { actionGrammar, apply, configSchema, configs, exploreVariants, init, innerSchema, legalActions, rulesBody, score, type ChessConfig, type ChessInner } from "./rules.js";

export const game = makeGame<ChessInner, ChessConfig, ChessFacts>({
  name: "chess",
  summary: "Rule induction: capture static targets with pieces whose moves you must discover.",
  configs,
  exploreVariants,
  // success_threshold (views.md, verified.md): solved when the score reaches 1 (every target captured).
  successThreshold: 1,
  configSchema,
  innerSchema,
  actionGrammar,
  init,
  apply,
  render,
  facts,
  parseObservation,
  score,
  rulesBody,
  legalActions,
  policies: { random, heuristic },
});
