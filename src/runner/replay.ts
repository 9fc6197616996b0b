/**
 * Rebuilds, from the logs alone, the exact messages a step's model call received (protocol.md:
 * "the exact context is reproducible from the logs"). It uses the same functions the runner used:
 * the manifest gives the protocol numbers and the game configs, steps.jsonl the earlier turns and the
 * exploration trajectories, episodes.jsonl the end states, memory.jsonl the memory versions.
 */
import { buildStepMessages, type EarlierTurn } from "../agent/stepPrompt.js";
import { memoryText } from "../agent/summaryPrompt.js";
import type { Game } from "../games/types.js";
import { EpisodeRecord, MemoryRecord, RunManifest, StepRecord } from "../logs/schema.js";
import type { ChatMessage } from "../models/types.js";
import type { TokenizerName } from "../models/tokens.js";
import { historyContext, makeHistoryBlock, TokenCounter, type HistoryBlock } from "../pathways/history.js";
import { memoryFromRecord } from "../pathways/memory.js";
import { trajectoryFromSteps } from "./experience.js";
import { readJsonFile, readRunFile } from "../logs/reader.js";
import { manifestPath, runFile } from "../logs/runDir.js";

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
  checkpoint: number | null;
  episode: number;
  step: number;
}

interface Protocol {
  context_tokens: number;
  max_new_tokens: number;
  tokenizer: TokenizerName;
  reward_visibility: "hidden" | "visible";
  game_configs: Record<"explore" | "eval", Record<string, unknown>>;
}

/**
 * Per loaded run (the logs do not change once loaded): the History blocks and the token counter,
 * built once, so rebuilding every step of a long run (BuildSFT) stays linear instead of re-tokenising
 * every earlier episode at every step. The result is the same as building them afresh.
 */
const historyMemo = new WeakMap<RunLogData, { counter: TokenCounter; blocks: Map<number, HistoryBlock> }>();

/** The experience text of a step (history context, memory text, or ""). */
export function rebuildExperience(data: RunLogData, at: StepAddress, view: { rules: string; turns: EarlierTurn[]; observation: string }): string {
  const protocol = (data.manifest.config as { protocol: Protocol }).protocol;
  // Experience Z_k: explore episode x reads Z_{x-1}; checkpoint c reads Z_c.
  const k = at.phase === "explore" ? at.episode - 1 : at.checkpoint!;
  if (data.manifest.pathway === "history") {
    let memo = historyMemo.get(data);
    if (!memo) historyMemo.set(data, (memo = { counter: new TokenCounter(protocol.tokenizer), blocks: new Map() }));
    const counter = memo.counter;
    const blocks: HistoryBlock[] = [];
    for (let x = 1; x <= k; x++) {
      let block = memo.blocks.get(x);
      if (!block) {
        const rec = data.episodes.find((e) => e.phase === "explore" && e.episode === x && e.status === "ok");
        if (!rec) throw new Error(`exploration episode ${x} is not in episodes.jsonl`);
        const steps = data.steps.filter((s) => s.phase === "explore" && s.episode === x);
        block = makeHistoryBlock(trajectoryFromSteps(x, steps, String((rec as { end_observation?: unknown }).end_observation)), counter);
        memo.blocks.set(x, block);
      }
      blocks.push(block);
    }
    const settings = { contextTokens: protocol.context_tokens, maxNewTokens: protocol.max_new_tokens, tokenizer: protocol.tokenizer };
    return historyContext(blocks, settings, { ...view, rewardVisibility: protocol.reward_visibility }, counter).text;
  }
  if (data.manifest.pathway === "memory") {
    const rec = data.memory.find((m) => m.after_episode === k);
    if (!rec) throw new Error(`memory version ${k} is not in memory.jsonl`);
    return memoryText(memoryFromRecord(rec).triple);
  }
  return "";
}

/** The messages of the model call of step `at`, rebuilt from the logs. */
export function rebuildStepMessages(data: RunLogData, game: Game, at: StepAddress): ChatMessage[] {
  const own = episodeSteps(data, at);
  const target = own.find((s) => s.step === at.step);
  if (!target) throw new Error(`step ${JSON.stringify(at)} is not in steps.jsonl`);
  return messagesAt(data, game, at, own, target);
}

/**
 * The messages of every step of one episode (in step order, one list per logged step), rebuilt from
 * the logs: rebuildStepMessages for each step, with the episode's steps gathered once (the viewer
 * rebuilds whole episodes).
 */
export function rebuildEpisodeMessages(data: RunLogData, game: Game, at: Omit<StepAddress, "step">): { step: number; messages: ChatMessage[] }[] {
  const own = episodeSteps(data, { ...at, step: 0 });
  return own.map((s) => ({ step: s.step, messages: messagesAt(data, game, { ...at, step: s.step }, own, s) }));
}

/** The logged steps of the episode of `at`, in step order. */
function episodeSteps(data: RunLogData, at: StepAddress): StepRecord[] {
  return data.steps
    .filter((s) => s.phase === at.phase && s.checkpoint === at.checkpoint && s.episode === at.episode)
    .sort((a, b) => a.step - b.step);
}

function messagesAt(data: RunLogData, game: Game, at: StepAddress, own: readonly StepRecord[], target: StepRecord): ChatMessage[] {
  const protocol = (data.manifest.config as { protocol: Protocol }).protocol;
  const configName = at.phase === "explore" ? "explore" : "eval";
  const rules = game.rules(protocol.game_configs[configName] as never, configName);
  const turns: EarlierTurn[] = own
    .filter((s) => s.step < at.step)
    .map((s) => ({ observation: s.observation, response: s.response, feedback: s.feedback, reward: s.reward, scoreAfter: s.score_after }));
  const view = { rules, turns, observation: target.observation };
  const experience = rebuildExperience(data, at, view);
  return buildStepMessages({ ...view, experience, rewardVisibility: protocol.reward_visibility });
}
