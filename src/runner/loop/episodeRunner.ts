/**
 * One episode under the response contract (protocol.md, "One step"): per step, build the messages
 * (rules, experience, this episode's turns, the observation), call the model, parse strictly, step
 * the game, and append the step record. A model's bad answer is a step like any other (the parse
 * failure is recorded, the game decides what it costs); only a ModelCallError (infrastructure, after
 * the model layer's retries) ends the episode early, as `failed` with its reason.
 */
import { parseResponse, type ParseRule } from "../../agent/parseResponse.js";
import { buildStepMessages, earlierTurnOf, type EarlierTurn, type StepPromptInput } from "../../agent/stepPrompt.js";
import { answerOf, hasReasoning, reasoningFields, replyKind, type Answer, type AnswerFrom } from "../../agent/reply.js";
import type { Transition } from "../../games/types.js";
import type { EpisodeRecord, StepRecord } from "../../logs/schema.js";
import { callSeed, evalCallSeeds } from "../../models/callSeed.js";
import { redactSecrets } from "../../models/secrets.js";
import { ModelCallError, type CallIdentity, type ChatMessage, type CompletionResult } from "../../models/types.js";
import type { ResolvedConfig, RunContext } from "./context.js";
import { isRepetitionLoop } from "../monitor/replyMonitor.js";
import type { TokenCounter } from "../../models/tokenCounter.js";
import type { ExperienceSnapshot } from "../../pathways/types.js";
import type { ExtraView } from "./context.js";
import { modelIdentity } from "../settings/runId.js";
import { protocolFingerprint } from "../settings/protocolFingerprint.js";
import { judgeEpisode, judgesExploration } from "./judgeCalls.js";
import { EvalMemo, type LivePlay, type MemoStep, type ReplayStep } from "./evalMemo.js";

export interface EpisodeTask {
  phase: "explore" | "eval";
  /** eval: the checkpoint x; explore: null. */
  checkpoint: number | null;
  /** explore: 1..N; eval: 0..N_eval-1. */
  episode: number;
  seed: number;
  experience: ExperienceSnapshot;
  /** An eval episode of the `id` or `replay` view (explore config; runner/loop/views.ts); absent = the protocol's `eval` view. */
  view?: ExtraView;
  /** An exploration episode's config when its pathway chose one (a named explore variant); default by phase. */
  config?: ResolvedConfig;
}

export interface EpisodeOutcome {
  record: EpisodeRecord;
  steps: StepRecord[];
  /** The observation after the last step: the end state of a History block. */
  endObservation: string;
}

/** The reason recorded for an infrastructure failure; never contains a key (the model layer scrubs). */
export function failureReason(e: ModelCallError): string {
  return redactSecrets(`${e.kind} after ${e.retries} retries: ${e.message}`);
}

/** A step's messages as sent: `dropped` earliest turns of the episode left out to fit the context. */
export interface FittedStep {
  messages: ChatMessage[];
  /** The kit's own count of the prompt (the run's tokenizer). */
  promptTokens: number;
  dropped: number;
}

/**
 * The context as a hard bound (endpoints.md): the step's messages when prompt + `maxNew` fits
 * `contextTokens`; else the episode's earliest turns are left out, as few as needed (the newest
 * kept; the experience block stays, its own budget already counts the turns); null when even the
 * bare step (no earlier turn) does not fit. Builds O(log turns) prompts, only when over.
 */
export function fitStep(input: StepPromptInput, counter: TokenCounter, contextTokens: number, maxNew: number): FittedStep | null {
  const limit = contextTokens - maxNew;
  const at = (dropped: number): FittedStep => {
    const messages = buildStepMessages(dropped === 0 ? input : { ...input, turns: input.turns.slice(dropped) });
    return { messages, promptTokens: counter.messages(messages), dropped };
  };
  const all = at(0);
  if (all.promptTokens <= limit) return all;
  const bare = at(input.turns.length);
  if (bare.promptTokens > limit) return null;
  // The smallest number of dropped turns that fits (fewer dropped = more tokens), found by halving.
  let lo = 0;
  let best = bare;
  let hi = input.turns.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const f = at(mid);
    if (f.promptTokens <= limit) {
      best = f;
      hi = mid;
    } else lo = mid;
  }
  return best;
}

/**
 * An episode's step call seeds: an evaluation episode's from what it plays (evalCallSeed: common random numbers,
 * the same at every checkpoint and in every pathway), an exploration episode's from its identity.
 */
function stepSeeds(run: RunContext, task: EpisodeTask): (step: number, identity: CallIdentity) => number {
  if (task.phase !== "eval") return (_step, identity) => callSeed(identity);
  const view = task.view !== undefined ? { view: task.view } : {};
  return evalCallSeeds({ model: modelIdentity(run.modelName), game: run.game.name, runSeed: run.settings.runSeed, seed: task.seed, sample: 0, ...view });
}

/** What the reply monitor needs of one step beyond its kind (replyMonitor.ts): the cause of a bad reply. */
function replyInfo(result: CompletionResult, valid: boolean, from: AnswerFrom, rule: ParseRule | undefined) {
  const cut = result.finishReason === "length";
  return {
    reasoning: hasReasoning(result),
    finishReason: result.finishReason,
    // Only a reply cut at the cap can be a loop that ran into it; the text it was cut in is checked.
    loop: cut && isRepetitionLoop(result.text.length > 0 ? result.text : (result.reasoning ?? "")),
    // The hint "the answer may be in the reasoning field" holds only when the reasoning has a complete answer.
    reasoningAnswer: from === "content" && result.reasoning !== null && parseResponse(result.reasoning, rule).action !== null,
    valid,
    serverTruncated: result.serverTruncated === true,
  };
}

/** Appends a step line to the run's steps.jsonl and counts it in the run's quality tally (context.ts). */
export function logStep(run: RunContext, record: StepRecord): void {
  run.logs.steps.append(record);
  run.stepTally?.add(record);
}

export async function runEpisode(run: RunContext, task: EpisodeTask): Promise<EpisodeOutcome> {
  // The spend cap stops the matrix between episodes, never inside one (spendCap.ts).
  const cap = run.cap;
  if (cap === undefined) return playEpisode(run, task);
  await cap.admit();
  try {
    return await playEpisode(run, task);
  } finally {
    cap.release();
  }
}

async function playEpisode(run: RunContext, task: EpisodeTask): Promise<EpisodeOutcome> {
  // Evaluation plays the eval config, except the id and replay views, which play the explore config
  // (views.md: the exploration distribution, unseen or re-played seeds); a variant is only ever an
  // exploration episode's.
  const cfg = task.phase === "eval" ? (task.view !== undefined ? run.configs.explore : run.configs.eval) : (task.config ?? run.configs.explore);
  const game = run.game;
  const identity = { run_id: run.runId, model: run.modelName, game: game.name, pathway: run.pathway };
  // `view` only on a view's records: an eval record without it is `eval` (and byte-for-byte today's).
  const view = task.view !== undefined ? { view: task.view } : {};
  const where = { phase: task.phase, ...view, config: cfg.name, checkpoint: task.checkpoint, episode: task.episode, seed: task.seed };
  // Every step record opens with these fields, in this order: copied once per step from one object.
  const head = { ...identity, ...where };
  const startedAt = run.now().toISOString();
  // A deterministic model's evaluation episode already played with the same inputs is replayed (evalMemo.ts).
  const memo = task.phase === "eval" && run.memo !== undefined && run.memo.model === run.model ? run.memo : null;
  const slot = EvalMemo.slot(task.view, task.episode, task.seed);
  const keepThink = run.settings.keepThink === true;
  const replay = memo?.find(slot, { rules: cfg.rules, rewardVisibility: run.settings.rewardVisibility }, (v) => task.experience.forStep(v), keepThink) ?? null;
  if (replay !== null) {
    const played = await replaySteps(run, task, replay.steps);
    const stopped = played.steps.length < replay.steps.length;
    const end = stopped
      ? {
          score: played.steps.length > 0 ? played.steps[played.steps.length - 1]!.score_after : game.score(game.reset(task.seed, cfg.config, cfg.name)),
          endObservation: replay.steps[played.steps.length]!.step.record.observation,
        }
      : replay;
    return endEpisode(run, identity, where, startedAt, played.steps, played.steps, played.error, end.score, end.endObservation);
  }
  // A play of the same slot still in progress is followed while it reads the same text (evalMemo.ts, "Following").
  // Step 0 is asked here, without a pause: a play that does not follow calls its model at once, as it would.
  const leader = memo?.inProgress(slot);
  const first = leader !== undefined ? followable(run, task, cfg.rules, leader, []) : null;
  let followed: Followed | null = null;
  if (first?.follows) followed = await followSteps(run, task, cfg.rules, leader!, keepThink, first.experience);
  else if (first) followed = { steps: [], turns: [], recorded: [], end: null, experience: first.experience };
  if (followed?.end) return endEpisode(run, identity, where, startedAt, followed.steps, followed.steps, null, followed.end.score, followed.end.endObservation);
  let state = game.reset(task.seed, cfg.config, cfg.name);
  const turns: EarlierTurn[] = followed?.turns ?? [];
  const steps: StepRecord[] = followed?.steps ?? [];
  const recorded: MemoStep[] = followed?.recorded ?? [];
  // The followed steps' actions lead to the state this episode plays on from.
  for (const s of steps) state = game.step(state, s.action).state;
  // The experience its next step reads, already asked by the follower (the same inputs).
  let asked = followed?.experience;
  // Without a play of the slot in progress, this play is the one later episodes of the slot follow.
  const live = memo !== null && leader === undefined ? memo.lead(slot, recorded) : null;
  let error: string | null = null;
  // Under another judge than `self` an exploration episode's steps are written once the episode is
  // over, each with the score its experience carries (a placebo's permutation needs every step): an
  // episode cut short is played again on resume anyway, so nothing a resume keeps is lost.
  const judged = task.phase === "explore" && judgesExploration(run);
  const stepSeed = stepSeeds(run, task);

  while (!state.done) {
    // A degenerate run stops playing: its remaining episodes end here, named.
    const degenerate = run.replies.tripped;
    if (degenerate !== null) {
      error = `run stopped as degenerate: ${degenerate}`;
      break;
    }
    const observation = game.observe(state);
    const prompt = { rules: cfg.rules, turns, observation, rewardVisibility: run.settings.rewardVisibility };
    const experience = asked ?? task.experience.forStep(prompt);
    asked = undefined;
    const fitted = fitStep(
      { rules: prompt.rules, experience: experience.text, turns, observation, rewardVisibility: prompt.rewardVisibility },
      run.counter,
      run.settings.contextTokens,
      run.settings.maxNewTokens,
    );
    if (fitted === null) {
      const bare = run.counter.messages(buildStepMessages({ ...prompt, turns: [], experience: experience.text }));
      error =
        `context_overflow: step ${state.step}'s prompt needs ${bare} tokens even without earlier turns, over --context-tokens ${run.settings.contextTokens} ` +
        `minus --max-new-tokens ${run.settings.maxNewTokens}: raise --context-tokens (within the server's window) or lower --max-new-tokens`;
      break;
    }
    const messages = fitted.messages;
    live?.tops.push({ observation, experience: experience.text, fieldKeys: Object.keys(experience.fields) });
    let result;
    try {
      const callIdentity: CallIdentity = { runId: run.runId, purpose: "step", phase: task.phase, checkpoint: task.checkpoint, episode: task.episode, step: state.step, sample: 0, ...view };
      result = await run.model.complete({
        messages,
        // Every request carries a seed from its identity (a models file may turn sending it off).
        sampling: { max_tokens: run.settings.maxNewTokens, seed: stepSeed(state.step, callIdentity) },
        identity: callIdentity,
        // Only builtin:perfect-judge and builtin:ceiling read it; it is never sent over HTTP nor part of a cache key.
        privileged: { game, state },
        // Never sent: the call log compares it with the server's count (a silent server-side cut).
        promptTokens: fitted.promptTokens,
      });
    } catch (e) {
      if (e instanceof ModelCallError) {
        error = failureReason(e);
        break;
      }
      throw e;
    }
    const answer = answerOf(result, run.settings.answerFrom ?? "content", run.settings.parseRule);
    const parsed = answer.parsed;
    const kind = replyKind(answer.text, parsed);
    const next = game.step(state, parsed.action);
    const info = replyInfo(result, next.valid, run.settings.answerFrom ?? "content", run.settings.parseRule);
    run.replies.record(kind, info);
    run.events.reply?.(run.runId, kind, run.replies.stats);
    const scoreAfter = game.score(next.state);
    const record = stepRecord(head, state.step, observation, result, answer.source, parsed, next, scoreAfter, experience.fields, fitted.dropped);
    if (!judged) logStep(run, record);
    steps.push(record);
    if (memo !== null) {
      const call = memo.takeCall(task.checkpoint, task.view, task.episode, state.step);
      if (call !== undefined) recorded.push({ record, experience: experience.text, fieldKeys: Object.keys(experience.fields), call, kind, info });
    }
    run.events.step?.(run.runId, result.usage.tokensIn, result.usage.tokensOut);
    turns.push(earlierTurnOf(record, keepThink));
    state = next.state;
  }

  let written = steps;
  if (judged) {
    if (error === null) {
      try {
        written = await judgeEpisode(run, steps, cfg.rules, task.episode);
      } catch (e) {
        if (!(e instanceof ModelCallError)) throw e;
        error = `judge: ${failureReason(e)}`;
      }
    }
    for (const s of written) logStep(run, s);
  }
  const endObservation = game.observe(state);
  const score = game.score(state);
  // Only a whole ok play is a replay's source (every step with its call line).
  const whole = memo !== null && error === null && recorded.length === steps.length;
  if (whole) memo.store(slot, { steps: recorded, score, endObservation });
  if (live !== null) memo!.ended(slot, live, whole ? { score, endObservation } : null);
  return endEpisode(run, identity, where, startedAt, steps, written, error, score, endObservation);
}

/**
 * A played step's record. Its fields in the order the logs have always had them (the head's, the
 * step's, then the optional ones and the experience's pinning fields, each overriding an earlier field
 * of its name in that field's place, as an object spread would): one clone of the episode's head and
 * stores in a fixed order, where a literal of several spreads copied each source field by field.
 */
function stepRecord(
  head: Readonly<Record<string, unknown>>,
  step: number,
  observation: string,
  result: CompletionResult,
  answerSource: Answer["source"],
  parsed: Answer["parsed"],
  next: Transition,
  scoreAfter: number,
  experienceFields: Record<string, unknown>,
  dropped: number,
): StepRecord {
  // Object.assign, then stores: a literal that opens with a spread and goes on with fields of its own
  // defines each of those through V8's slow path (about 2 us a field, ~40 us a record on Node 20). The
  // head's keys are the fixed identity and where keys (never `__proto__`), so assigning them to a fresh
  // object defines the same own fields in the same order as the spread.
  const record: Record<string, unknown> = Object.assign({}, head);
  record.step = step;
  record.observation = observation;
  record.response = result.text;
  record.action = parsed.action;
  record.self_score = parsed.selfScore;
  record.parse_error = parsed.error;
  record.valid = next.valid;
  record.feedback = next.feedback;
  record.reward = next.reward;
  record.score_after = scoreAfter;
  record.done = next.done;
  record.tokens_in = result.usage.tokensIn;
  record.tokens_out = result.usage.tokensOut;
  record.latency_ms = result.latencyMs;
  record.cached = result.cached;
  record.finish_reason = result.finishReason;
  record.tokens_cached = result.usage.tokensCached;
  if (result.usage.countedBy !== undefined) record.tokens_counted_by = result.usage.countedBy;
  const reasoning = reasoningFields(result.reasoning);
  record.reasoning = reasoning.reasoning;
  record.reasoning_chars = reasoning.reasoning_chars;
  if (answerSource !== "content") record.answer_source = answerSource;
  for (const key of Object.keys(experienceFields)) {
    // As a spread defines it: an own field even under the one name an assignment would not make one.
    if (key === "__proto__") Object.defineProperty(record, key, { value: experienceFields[key], enumerable: true, writable: true, configurable: true });
    else record[key] = experienceFields[key];
  }
  if (dropped > 0) record.turns_dropped = dropped;
  return record as unknown as StepRecord;
}

/**
 * A recorded play written again as this episode's (evalMemo.ts): per step, the model call's macrotask
 * turn, its call line, the reply monitor, the step line and its event, as a play does them; stops
 * where a play would (the run tripped degenerate), with the same error.
 */
async function replaySteps(run: RunContext, task: EpisodeTask, replay: readonly ReplayStep[]): Promise<{ steps: StepRecord[]; error: string | null }> {
  const steps: StepRecord[] = [];
  for (const { step, fields } of replay) {
    const degenerate = run.replies.tripped;
    if (degenerate !== null) return { steps, error: `run stopped as degenerate: ${degenerate}` };
    await new Promise<void>((resolve) => setImmediate(resolve));
    run.memo!.writeCall({ ...step.call, checkpoint: task.checkpoint });
    run.replies.record(step.kind, step.info);
    run.events.reply?.(run.runId, step.kind, run.replies.stats);
    const record: StepRecord = { ...step.record, checkpoint: task.checkpoint, ...fields };
    logStep(run, record);
    steps.push(record);
    run.events.step?.(run.runId, record.tokens_in, record.tokens_out);
  }
  return { steps, error: null };
}

/** What an episode took from the play it followed; `end` set when it followed it to its end. */
interface Followed {
  steps: StepRecord[];
  turns: EarlierTurn[];
  recorded: MemoStep[];
  end: { score: number; endObservation: string } | null;
  /** The experience of the step it stopped at, when it stopped because that step reads another text. */
  experience?: { text: string; fields: Record<string, unknown> };
}

/**
 * Whether the next step (after `turns`) can follow the leader's: null when the run tripped degenerate
 * or the leader has not reached that step (the caller plays it, and stops where a play would); else
 * this episode's experience for it and whether its text and fields' keys are the leader's.
 */
function followable(run: RunContext, task: EpisodeTask, rules: string, leader: LivePlay, turns: EarlierTurn[]): { follows: boolean; experience: NonNullable<Followed["experience"]> } | null {
  const top = leader.tops[turns.length];
  if (run.replies.tripped !== null || top === undefined) return null;
  const experience = task.experience.forStep({ rules, turns, observation: top.observation, rewardVisibility: run.settings.rewardVisibility });
  const keys = Object.keys(experience.fields);
  return { follows: experience.text === top.experience && keys.length === top.fieldKeys.length && keys.every((key, i) => key === top.fieldKeys[i]), experience };
}

/**
 * Follows `leader`, a play of this episode's slot in progress (evalMemo.ts, "Following"): per step,
 * the follower's own experience text against the leader's, then the step's macrotask turn and the
 * leader's step written as this episode's, as replaySteps writes a recorded play. Stops before a step
 * where the texts differ, the leader has not reached it, or the run tripped degenerate: the caller
 * plays from there (and stops the episode at the same step a play would).
 */
async function followSteps(run: RunContext, task: EpisodeTask, rules: string, leader: LivePlay, keepThink: boolean, first: NonNullable<Followed["experience"]>): Promise<Followed> {
  const out: Followed = { steps: [], turns: [], recorded: [], end: null };
  for (let k = 0; ; k++) {
    const next = k === 0 ? { follows: true, experience: first } : followable(run, task, rules, leader, out.turns);
    if (next === null) break;
    if (!next.follows) return { ...out, experience: next.experience };
    const experience = next.experience;
    await new Promise<void>((resolve) => setImmediate(resolve));
    const step = leader.steps[k];
    // Not expected (the leader's answer comes in before this turn): this step is played instead.
    if (step === undefined) break;
    run.memo!.writeCall({ ...step.call, checkpoint: task.checkpoint });
    run.replies.record(step.kind, step.info);
    run.events.reply?.(run.runId, step.kind, run.replies.stats);
    const record: StepRecord = { ...step.record, checkpoint: task.checkpoint, ...experience.fields };
    logStep(run, record);
    out.steps.push(record);
    out.recorded.push({ ...step, record });
    run.events.step?.(run.runId, record.tokens_in, record.tokens_out);
    out.turns.push(earlierTurnOf(record, keepThink));
    if (record.done) {
      out.end = leader.end;
      break;
    }
  }
  return out;
}

/** The episode's record, after its steps: durable in that order (runLogs.ts), then announced. */
function endEpisode(
  run: RunContext,
  identity: Pick<EpisodeRecord, "run_id" | "model" | "game" | "pathway">,
  where: Pick<EpisodeRecord, "phase" | "config" | "checkpoint" | "episode" | "seed"> & { view?: ExtraView },
  startedAt: string,
  steps: StepRecord[],
  written: StepRecord[],
  error: string | null,
  score: number,
  endObservation: string,
): EpisodeOutcome {
  const record: EpisodeRecord = {
    ...identity,
    ...where,
    score,
    steps: steps.length,
    status: error === null ? "ok" : "failed",
    error,
    started_at: startedAt,
    ended_at: run.now().toISOString(),
    // Extra field (allowed by the schema): History ICL blocks end with it, so the context can be rebuilt from the logs.
    end_observation: endObservation,
    // The protocol, recoverable from the logs when every manifest is gone (protocolFingerprint.ts).
    protocol_fingerprint: protocolFingerprint(run.settings),
  };
  // Steps first, then the record that claims them; durable when due (runLogs.ts), steps first too.
  run.logs.syncSteps();
  run.logs.episodes.append(record);
  run.logs.syncRecords();
  run.events.episodeDone?.(run.runId, record);
  return { record, steps: written, endObservation };
}
