/**
 * One episode under the response contract (protocol.md, "One step"): per step, build the messages
 * (rules, experience, this episode's turns, the observation), call the model, parse strictly, step
 * the game, and append the step record. A model's bad answer is a step like any other (the parse
 * failure is recorded, the game decides what it costs); only a ModelCallError (infrastructure, after
 * the model layer's retries) ends the episode early, as `failed` with its reason.
 */
import { parseResponse } from "../agent/parseResponse.js";
import { buildStepMessages, type EarlierTurn } from "../agent/stepPrompt.js";
import type { EpisodeRecord, StepRecord } from "../logs/schema.js";
import { callSeed } from "../models/callSeed.js";
import { ModelCallError, type CallIdentity } from "../models/types.js";
import type { RunContext } from "./context.js";
import type { ExperienceSnapshot } from "../pathways/types.js";
import type { ExtraView } from "./views.js";

export interface EpisodeTask {
  phase: "explore" | "eval";
  /** eval: the checkpoint x; explore: null. */
  checkpoint: number | null;
  /** explore: 1..N; eval: 0..N_eval-1. */
  episode: number;
  seed: number;
  experience: ExperienceSnapshot;
  /** An eval episode of the `id` or `replay` view (explore config; runner/views.ts); absent = the protocol's `eval` view. */
  view?: ExtraView;
}

export interface EpisodeOutcome {
  record: EpisodeRecord;
  steps: StepRecord[];
  /** The observation after the last step: the end state of a History block. */
  endObservation: string;
}

/** The reason recorded for an infrastructure failure; never contains a key (the model layer scrubs). */
export function failureReason(e: ModelCallError): string {
  return `${e.kind} after ${e.retries} retries: ${e.message}`;
}

export async function runEpisode(run: RunContext, task: EpisodeTask): Promise<EpisodeOutcome> {
  // The views play the explore config (views.md): the same distribution as exploration, unseen or re-played seeds.
  const cfg = task.phase === "explore" || task.view !== undefined ? run.configs.explore : run.configs.eval;
  const game = run.game;
  const identity = { run_id: run.runId, model: run.modelName, game: game.name, pathway: run.pathway };
  // `view` only on a view's records: an eval record without it is `eval` (and byte-for-byte today's).
  const view = task.view !== undefined ? { view: task.view } : {};
  const where = { phase: task.phase, ...view, config: cfg.name, checkpoint: task.checkpoint, episode: task.episode, seed: task.seed };
  const startedAt = run.now().toISOString();
  let state = game.reset(task.seed, cfg.config, cfg.name);
  const turns: EarlierTurn[] = [];
  const steps: StepRecord[] = [];
  let error: string | null = null;

  while (!state.done) {
    const observation = game.observe(state);
    const prompt = { rules: cfg.rules, turns, observation, rewardVisibility: run.settings.rewardVisibility };
    const experience = task.experience.forStep(prompt);
    const messages = buildStepMessages({ ...prompt, experience: experience.text });
    let result;
    try {
      const callIdentity: CallIdentity = { runId: run.runId, purpose: "step", phase: task.phase, checkpoint: task.checkpoint, episode: task.episode, step: state.step, sample: 0, ...view };
      result = await run.model.complete({
        messages,
        // Every request carries a seed from its identity (a models file may turn sending it off).
        sampling: { max_tokens: run.settings.maxNewTokens, seed: callSeed(callIdentity) },
        identity: callIdentity,
        // Only builtin:oracle reads it; it is never sent over HTTP nor part of a cache key.
        privileged: { game, state },
      });
    } catch (e) {
      if (e instanceof ModelCallError) {
        error = failureReason(e);
        break;
      }
      throw e;
    }
    const parsed = parseResponse(result.text, run.settings.parseRule);
    const next = game.step(state, parsed.action);
    const scoreAfter = game.score(next.state);
    const record: StepRecord = {
      ...identity,
      ...where,
      step: state.step,
      observation,
      response: result.text,
      action: parsed.action,
      self_score: parsed.selfScore,
      parse_error: parsed.error,
      valid: next.valid,
      feedback: next.feedback,
      reward: next.reward,
      score_after: scoreAfter,
      done: next.done,
      tokens_in: result.usage.tokensIn,
      tokens_out: result.usage.tokensOut,
      latency_ms: result.latencyMs,
      cached: result.cached,
      finish_reason: result.finishReason,
      tokens_cached: result.usage.tokensCached,
      ...experience.fields,
    };
    run.logs.steps.append(record);
    steps.push(record);
    run.events.step?.(run.runId, result.usage.tokensIn, result.usage.tokensOut);
    turns.push({ observation, response: result.text, feedback: next.feedback, reward: next.reward, scoreAfter });
    state = next.state;
  }

  const endObservation = game.observe(state);
  const record: EpisodeRecord = {
    ...identity,
    ...where,
    score: game.score(state),
    steps: steps.length,
    status: error === null ? "ok" : "failed",
    error,
    started_at: startedAt,
    ended_at: run.now().toISOString(),
    // Extra field (allowed by the schema): History ICL blocks end with it, so the context can be rebuilt from the logs.
    end_observation: endObservation,
  };
  // Steps first, then the record that claims them (resume trusts a record to mean "all steps on disk").
  run.logs.syncSteps();
  run.logs.episodes.append(record);
  run.logs.syncRecords();
  run.events.episodeDone?.(run.runId, record);
  return { record, steps, endObservation };
}
