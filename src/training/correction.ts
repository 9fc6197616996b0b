/**
 * BuildSFT's `correct` option (protocol.md, "Consolidation: training"): a step the model itself judged
 * poorly (self-score below the threshold) is shown back to a model with its own action and its own
 * self-score, and the model is asked for a better action for the same position. The corrected action
 * replaces the step in the training set only if it parses and the game accepts it as legal from that
 * step's state.
 *
 * What the correction prompt shows: the step's own messages (always with reward visibility `hidden`,
 * whatever the run used), the model's own reply, then one user turn with the model's action and
 * self-score and the same observation. It never shows the verifier reward, the running score or the
 * feedback that followed the action: the correction rests on the model's self-judgment alone.
 *
 * The state is rebuilt by replaying the episode's logged actions from reset(seed, config): every game
 * is a pure function of (state, action) with its generator in the state, so a replay is exact. The
 * replay checks each observation against the logged one; a mismatch (logs of another game version)
 * drops the step rather than judging legality on the wrong board.
 */
import { parseResponse } from "../agent/parseResponse.js";
import { EMPTY_REPLY } from "../agent/stepPrompt.js";
import { CONTRACT_REMINDER } from "../games/responseContract.js";
import type { EpisodeState, Game } from "../games/types.js";
import type { StepRecord } from "../logs/schema.js";
import { callSeed } from "../models/callSeed.js";
import type { CallIdentity, ChatMessage, CompletionResult, Model } from "../models/types.js";

/** The user turn that asks for a correction. Carries the model's own action and self-score only. */
export function correctionTurn(o: { action: string; selfScore: number; threshold: number; observation: string }): string {
  return [
    "<correction>",
    `Your answer above was \`Answer: ${o.action}\` and you judged it \`Score: ${o.selfScore}\`, below ${o.threshold}: by your own estimate that action is a poor one.`,
    "The game has not moved on: the observation below is the same position. Propose a better action for it and estimate its reward again.",
    "</correction>",
    "",
    `<observation>\n${o.observation}\n</observation>`,
    "",
    CONTRACT_REMINDER,
  ].join("\n");
}

/**
 * The correction prompt: the step's messages (built with hidden rewards), the model's own reply, and
 * the correction turn. Built-in models answer it like a step prompt (the last observation is the
 * same position).
 */
export function correctionMessages(stepMessages: readonly ChatMessage[], step: Pick<StepRecord, "response" | "action" | "self_score" | "observation">, threshold: number): ChatMessage[] {
  if (step.action === null || step.self_score === null) throw new Error("correctionMessages: the step has no parsed action and self-score");
  return [
    ...stepMessages.map((m) => ({ ...m })),
    { role: "assistant", content: step.response.length > 0 ? step.response : EMPTY_REPLY },
    { role: "user", content: correctionTurn({ action: step.action, selfScore: step.self_score, threshold, observation: step.observation }) },
  ];
}

/**
 * The state right before step `target` of an episode, replayed from reset(seed, config, configName)
 * with the logged actions of steps 0..target-1 (`earlier`, in step order). Returns the reason when the
 * replay does not reproduce the logged observations.
 */
export function replayToStep(
  game: Game,
  episode: { seed: number; config: Record<string, unknown>; configName: string },
  earlier: ReadonlyArray<Pick<StepRecord, "step" | "action" | "observation">>,
  target: Pick<StepRecord, "step" | "observation">,
): { ok: true; state: EpisodeState } | { ok: false; reason: string } {
  let state = game.reset(episode.seed, episode.config as never, episode.configName);
  for (let i = 0; i < target.step; i++) {
    const s = earlier[i];
    if (!s || s.step !== i) return { ok: false, reason: `step ${i} of the episode is not in the logs` };
    if (state.done) return { ok: false, reason: `the replayed episode ended before step ${i}` };
    if (game.observe(state) !== s.observation) return { ok: false, reason: `the replayed observation of step ${i} differs from the logged one` };
    state = game.step(state, s.action).state;
  }
  if (state.done) return { ok: false, reason: `the replayed episode ended before step ${target.step}` };
  if (game.observe(state) !== target.observation) return { ok: false, reason: `the replayed observation of step ${target.step} differs from the logged one` };
  return { ok: true, state };
}

export const CORRECTION_FAILURES = ["unparsable", "same_action", "illegal", "replay_mismatch"] as const;
export type CorrectionFailure = (typeof CORRECTION_FAILURES)[number];

export type CorrectionOutcome = { ok: true; action: string; selfScore: number; response: string } | { ok: false; why: CorrectionFailure; detail: string; response: string | null };

/** Judges a correction reply: it must parse (action and score), differ from the original action, and be legal. */
export function judgeCorrection(game: Game, state: EpisodeState, originalAction: string, result: Pick<CompletionResult, "text">): CorrectionOutcome {
  const parsed = parseResponse(result.text);
  if (parsed.action === null || parsed.selfScore === null) return { ok: false, why: "unparsable", detail: parsed.error ?? "no action or score", response: result.text };
  if (parsed.action === originalAction) return { ok: false, why: "same_action", detail: `proposed the same action '${parsed.action}'`, response: result.text };
  const next = game.step(state, parsed.action);
  if (!next.valid) return { ok: false, why: "illegal", detail: `'${parsed.action}' is not legal here: ${next.feedback}`, response: result.text };
  return { ok: true, action: parsed.action, selfScore: parsed.selfScore, response: result.text };
}

/** Asks `model` for a correction of one step; `stepMessages` must be built with hidden rewards. */
export async function correctStep(o: {
  model: Model;
  game: Game;
  runId: string;
  step: StepRecord;
  /** Steps 0..step-1 of the same episode, in order. */
  earlier: readonly StepRecord[];
  episodeConfig: Record<string, unknown>;
  stepMessages: readonly ChatMessage[];
  threshold: number;
  maxTokens: number;
}): Promise<CorrectionOutcome> {
  const s = o.step;
  const replay = replayToStep(o.game, { seed: s.seed, config: o.episodeConfig, configName: s.config }, o.earlier, s);
  if (!replay.ok) return { ok: false, why: "replay_mismatch", detail: replay.reason, response: null };
  const identity: CallIdentity = { runId: o.runId, purpose: "correction", phase: "explore", checkpoint: null, episode: s.episode, step: s.step, sample: 0 };
  const result = await o.model.complete({
    messages: correctionMessages(o.stepMessages, s, o.threshold),
    sampling: { max_tokens: o.maxTokens, seed: callSeed(identity) },
    identity,
    // In-process only (builtin:perfect-judge and builtin:ceiling read it); never sent over HTTP nor part of a cache key.
    privileged: { game: o.game, state: replay.state },
  });
  return judgeCorrection(o.game, replay.state, s.action!, result);
}
