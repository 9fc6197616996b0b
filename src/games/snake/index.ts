import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { facts, parseObservation, render, type SnakeFacts } from "./render.js";
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
  type SnakeConfig,
  type SnakeInner,
} from "./rules.js";

export const game = makeGame<SnakeInner, SnakeConfig, SnakeFacts>({
  name: "snake",
  summary: "Snake on a walled board with 3 apples; collisions are no-ops in explore and fatal in eval; score = apples eaten",
  configs,
  exploreVariants,
  // success_threshold (views.md, verified.md): solved when the score reaches 3 (3 apples eaten).
  successThreshold: 3,
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
