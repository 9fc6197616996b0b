/**
 * Rebuilds, from the logs alone, the exact messages a step's model call received (protocol.md:
 * "the exact context is reproducible from the logs"). It uses the same functions the runner used:
 * the manifest gives the protocol numbers and the game configs, steps.jsonl the earlier turns and the
 * exploration trajectories, episodes.jsonl the end states, memory.jsonl the memory versions.
 */
import { dropThinkBlocks } from "../agent/replyText.js";
import { resolveVariants } from "./context.js";
import { buildStepMessages, type EarlierTurn } from "../agent/stepPrompt.js";
import type { Game } from "../games/types.js";
import { EpisodeRecord, MemoryRecord, RunManifest, StepRecord, viewOf, type ViewName } from "../logs/schema.js";
import type { ChatMessage } from "../models/types.js";
import type { TokenizerName } from "../models/tokens.js";
import { TokenCounter } from "../pathways/history.js";
import { getPathway, TRAINING_PATHWAY } from "../pathways/registry.js";
import type { PathwayLogs } from "../pathways/types.js";
import type { RunFileKind } from "../logs/runDir.js";
import { readJsonFile, readRunFile } from "../logs/reader.js";
import { manifestPath, runFile } from "../logs/runDir.js";
import { manifestProtocol, settingsFromRecord } from "./protocolRecord.js";

export interface RunLogData {
  manifest: RunManifest;
  steps: StepRecord[];
  episodes: EpisodeRecord[];
  memory: MemoryRecord[];
}

/** Reads one run directory (whole files: meant for one run, in tests and notebooks). */
export function loadRunLogs(dir: string): RunLogData {
  return {
    manifest: readJsonFile(manifestPath(dir), RunManifest),
    steps: readRunFile(runFile(dir, "steps"), StepRecord).lines.map((l) => l.value),
    episodes: readRunFile(runFile(dir, "episodes"), EpisodeRecord).lines.map((l) => l.value),
    memory: readRunFile(runFile(dir, "memory"), MemoryRecord).lines.map((l) => l.value),
  };
}

export interface StepAddress {
  phase: "explore" | "eval";
  /** An eval step of the `id` or `replay` view (absent = `eval`). */
  view?: ViewName;
  checkpoint: number | null;
  episode: number;
  step: number;
}

/**
 * Per loaded run (the logs do not change once loaded): the pathway's view of the logs and the token
 * counter, made once, so a pathway's own memo (History blocks) lives as long as the loaded run and
 * rebuilding every step of a long run (BuildSFT) stays linear.
 */
const replayMemo = new WeakMap<RunLogData, { logs: PathwayLogs; counter: TokenCounter }>();

function replayInputs(data: RunLogData, tokenizer: TokenizerName): { logs: PathwayLogs; counter: TokenCounter } {
  let memo = replayMemo.get(data);
  if (!memo) {
    const own: Partial<Record<RunFileKind, readonly unknown[]>> = { memory: data.memory };
    const logs: PathwayLogs = { steps: data.steps, episodes: data.episodes, records: (file) => (own[file] ?? []) as never };
    replayMemo.set(data, (memo = { logs, counter: new TokenCounter(tokenizer) }));
  }
  return memo;
}

/** The experience text of a step, rebuilt by the run's pathway from the logs ("" for a training run). */
export function rebuildExperience(data: RunLogData, at: StepAddress, view: { rules: string; turns: EarlierTurn[]; observation: string }, loggedVersion?: number): string {
  if (data.manifest.pathway === TRAINING_PATHWAY) return "";
  const settings = settingsFromRecord(manifestProtocol(data.manifest));
  // Experience Z_k: explore episode x reads Z_{x-1} (or, in a verified broad batch, the version before
  // the batch, which its steps record as memory_version); checkpoint c reads Z_c.
  const k = at.phase === "explore" ? (loggedVersion ?? at.episode - 1) : at.checkpoint!;
  const pathway = getPathway(data.manifest.pathway);
  const { logs, counter } = replayInputs(data, settings.tokenizer);
  const ctx = { settings: { contextTokens: settings.contextTokens, maxNewTokens: settings.maxNewTokens, tokenizer: settings.tokenizer, ...(settings.historyCut ? { historyCut: settings.historyCut } : {}) }, counter };
  return pathway.snapshot(pathway.rebuild(logs, k, ctx), ctx).forStep({ ...view, rewardVisibility: settings.rewardVisibility }).text;
}

/** The messages of the model call of step `at`, rebuilt from the logs. */
export function rebuildStepMessages(data: RunLogData, game: Game, at: StepAddress): ChatMessage[] {
  const own = episodeSteps(data, at);
  const k = own.findIndex((s) => s.step === at.step);
  if (k < 0) throw new Error(`step ${JSON.stringify(at)} is not in steps.jsonl`);
  return messagesAt(data, game, at, turnsOf(own, keepThink(data)).slice(0, k), own[k]!);
}

/**
 * The messages of every step of one episode (in step order, one list per logged step), rebuilt from
 * the logs: rebuildStepMessages for each step, with the episode's steps gathered once and each
 * earlier turn one object throughout, as in a live episode, so the History budget counts every turn
 * once (its token counts are memoised per turn object) and a whole episode costs what playing it did.
 */
export function rebuildEpisodeMessages(data: RunLogData, game: Game, at: Omit<StepAddress, "step">): { step: number; messages: ChatMessage[] }[] {
  const own = episodeSteps(data, { ...at, step: 0 });
  const turns = turnsOf(own, keepThink(data));
  return own.map((s, k) => ({ step: s.step, messages: messagesAt(data, game, { ...at, step: s.step }, turns.slice(0, k), s) }));
}

/** The logged steps of the episode of `at`, in step order. */
function episodeSteps(data: RunLogData, at: StepAddress): StepRecord[] {
  return data.steps
    .filter((s) => s.phase === at.phase && viewOf(s) === (at.view ?? "eval") && s.checkpoint === at.checkpoint && s.episode === at.episode)
    .sort((a, b) => a.step - b.step);
}

/** Whether the run replayed earlier turns' think blocks (`--keep-think`); by default they were dropped. */
function keepThink(data: RunLogData): boolean {
  return manifestProtocol(data.manifest).think_replay === "keep";
}

/** Each step of an episode as an earlier turn of the steps after it (think blocks dropped as the run did). */
function turnsOf(own: readonly StepRecord[], keep: boolean): EarlierTurn[] {
  return own.map((s) => ({ observation: s.observation, response: keep ? s.response : dropThinkBlocks(s.response), feedback: s.feedback, reward: s.reward, scoreAfter: s.score_after }));
}

function messagesAt(data: RunLogData, game: Game, at: StepAddress, turns: EarlierTurn[], target: StepRecord): ChatMessage[] {
  const protocol = manifestProtocol(data.manifest);
  // The id and replay views play the explore config (runner/views.ts).
  const configName = at.phase === "explore" || (at.view ?? "eval") !== "eval" ? "explore" : "eval";
  // An exploration episode a pathway played on a named explore variant (verified) read that variant's rules.
  const variant = at.phase === "explore" && target.config !== "explore" ? resolveVariants(game, protocol.max_steps)[target.config] : undefined;
  const rules = variant ? variant.rules : game.rules(protocol.game_configs[configName] as never, configName);
  const view = { rules, turns, observation: target.observation };
  // A pathway that plans its exploration plays a batch from one version: its steps record which.
  const plans = data.manifest.pathway !== TRAINING_PATHWAY && getPathway(data.manifest.pathway).exploration !== undefined;
  const experience = rebuildExperience(data, at, view, plans ? target.memory_version : undefined);
  // The earliest turns the step left out to fit the context (episodeRunner.ts fitStep), as it recorded.
  const dropped = target.turns_dropped ?? 0;
  return buildStepMessages({ ...view, turns: dropped > 0 ? turns.slice(dropped) : turns, experience, rewardVisibility: protocol.reward_visibility });
}
