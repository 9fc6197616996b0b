import { makeGame } from "../envelope.js";
import { heuristic, random } from "./policies.js";
import { render } from "./render.js";
import { actionGrammar, apply, configSchema, configs, init, innerSchema, legalActions, rulesBody, score, type ChessConfig, type ChessInner } from "./rules.js";

export const game = makeGame<ChessInner, ChessConfig>({
  name: "chess",
  summary: "Rule induction: capture static targets with pieces whose moves you must discover.",
  configs,
  configSchema,
  innerSchema,
  actionGrammar,
  init,
  apply,
  render,
  score,
  rulesBody,
  legalActions,
  policies: { random, heuristic },
});
