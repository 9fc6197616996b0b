import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { facts, parseObservation, render, type TetrisFacts } from "./render.js";
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
  type TetrisConfig,
  type TetrisInner,
} from "./rules.js";

export const game = makeGame<TetrisInner, TetrisConfig, TetrisFacts>({
  name: "tetris",
  summary: "Hard-drop tetrominoes at a chosen column and rotation; clear full rows (score = lines cleared).",
  configs,
  exploreVariants,
  // success_threshold (views.md, verified.md): solved when the score reaches 3 (3 lines cleared).
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
