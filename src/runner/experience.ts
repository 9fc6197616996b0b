/**
 * The experience state Z of a run (protocol.md, "Consolidation"), one implementation per pathway:
 *   none     nothing, ever;
 *   history  one block per consolidated exploration episode, fitted to the budget at every step;
 *   memory   the latest memory version, rewritten by a summary call after each exploration episode.
 * `snapshot()` freezes the state for a checkpoint (blocks are immutable, the array is copied), so a
 * checkpoint's evaluations may run while later exploration episodes consolidate.
 */
import type { EarlierTurn } from "../agent/stepPrompt.js";
import type { Trajectory } from "../agent/trajectoryText.js";
import { splitObservation } from "../games/envelope.js";
import type { MemoryRecord, StepRecord } from "../logs/schema.js";
import { historyContext, makeHistoryBlock, type HistoryBlock } from "../pathways/history.js";
import { EMPTY_MEMORY, memoryExperience, memoryFromRecord, memoryRecordFields, nextMemory, summaryMessages, type MemoryVersion } from "../pathways/memory.js";
import type { RunContext } from "./context.js";
import { callSeed } from "../models/callSeed.js";
import type { CallIdentity } from "../models/types.js";

/** What the experience depends on at one step. */
export interface StepView {
  rules: string;
  turns: EarlierTurn[];
  observation: string;
  rewardVisibility: "hidden" | "visible";
}

export interface ExperienceSnapshot {
  /** The experience text for this step, and extra step-record fields that pin which experience it was. */
  forStep(view: StepView): { text: string; fields: Record<string, unknown> };
}

export interface ExperienceState {
  /** The highest exploration episode x whose consolidation is done (0: none). */
  consolidated(): number;
  snapshot(): ExperienceSnapshot;
  /** Consolidates exploration episode x (must be consolidated() + 1). May call the model (memory). */
  consolidate(x: number, trajectory: Trajectory): Promise<void>;
}

/**
 * The end state of a block: the final observation without its "Step k of N" header, which after the
 * last step would read "Step 9 of 8" and only confuse.
 */
export function endStateText(observation: string): string {
  try {
    return splitObservation(observation).body;
  } catch {
    return observation;
  }
}

/**
 * An exploration episode's trajectory from its step records and the episode record's
 * end_observation: the one path used live, on resume and by the replay, so all three agree.
 */
export function trajectoryFromSteps(episode: number, steps: readonly StepRecord[], endObservation: string): Trajectory {
  const ordered = [...steps].sort((a, b) => a.step - b.step);
  return {
    episode,
    steps: ordered.map((s) => ({ observation: s.observation, action: s.action, selfScore: s.self_score, feedback: s.feedback })),
    endObservation: endStateText(endObservation),
  };
}

const EMPTY: ExperienceSnapshot = { forStep: () => ({ text: "", fields: {} }) };

function noneExperience(): ExperienceState {
  let x = 0;
  return {
    consolidated: () => x,
    snapshot: () => EMPTY,
    consolidate: async (episode) => {
      x = episode;
    },
  };
}

function historyExperience(run: RunContext): ExperienceState {
  const blocks: HistoryBlock[] = [];
  const settings = { contextTokens: run.settings.contextTokens, maxNewTokens: run.settings.maxNewTokens, tokenizer: run.settings.tokenizer };
  return {
    consolidated: () => blocks.length,
    snapshot() {
      const frozen = blocks.slice();
      return {
        forStep(view) {
          const c = historyContext(frozen, settings, view, run.counter);
          return { text: c.text, fields: { history_keep: c.keep } };
        },
      };
    },
    async consolidate(x, trajectory) {
      if (x !== blocks.length + 1) throw new Error(`history: consolidating episode ${x} after ${blocks.length}`);
      blocks.push(makeHistoryBlock(trajectory, run.counter));
    },
  };
}

/**
 * Memory: version 0 is written when the run starts; version x after exploration episode x. On
 * resume, `restored` holds the contiguous versions 0..k already on disk. The state still starts at
 * version 0 and replays the logged versions as consolidation walks through the done episodes (no
 * summary call), so a checkpoint c < k whose episodes were interrupted is re-run with memory c,
 * never with the newest version.
 */
function memoryState(run: RunContext, restored: readonly MemoryRecord[]): ExperienceState {
  const writer = run.logs.memory;
  if (!writer) throw new Error("memory pathway without memory.jsonl");
  const identity = { run_id: run.runId, model: run.modelName, game: run.game.name, pathway: run.pathway };
  let current: MemoryVersion = EMPTY_MEMORY;
  if (restored.length > 0) current = memoryFromRecord(restored[0]!);
  else {
    writer.append({ ...identity, ...memoryRecordFields(EMPTY_MEMORY), parsed: true, error: null, response: null });
    run.logs.syncRecords();
  }
  const settings = { contextTokens: run.settings.contextTokens, maxNewTokens: run.settings.maxNewTokens, tokenizer: run.settings.tokenizer };
  return {
    consolidated: () => current.afterEpisode,
    snapshot() {
      const frozen = current;
      const text = memoryExperience(frozen);
      return { forStep: () => ({ text, fields: { memory_version: frozen.afterEpisode } }) };
    },
    async consolidate(x, trajectory) {
      if (x !== current.afterEpisode + 1) throw new Error(`memory: consolidating episode ${x} after version ${current.afterEpisode}`);
      const logged = restored.find((r) => r.after_episode === x);
      if (logged) {
        current = memoryFromRecord(logged);
        return;
      }
      const { messages, keptSteps } = summaryMessages({ rules: run.configs.explore.rules, previous: current.triple, trajectory }, settings, run.counter);
      // A ModelCallError propagates: the run loop treats it like a failed exploration episode.
      const callIdentity: CallIdentity = { runId: run.runId, purpose: "summary", phase: "explore", checkpoint: null, episode: x, step: null, sample: 0 };
      const result = await run.model.complete({
        messages,
        sampling: { max_tokens: run.settings.maxNewTokens, seed: callSeed(callIdentity) },
        identity: callIdentity,
      });
      run.events.step?.(run.runId, result.usage.tokensIn, result.usage.tokensOut);
      const next = nextMemory(current, x, result.text);
      writer.append({
        ...identity,
        ...memoryRecordFields(next.version),
        parsed: next.parsed,
        error: next.error,
        response: result.text,
        trajectory_steps_kept: keptSteps,
        tokens_in: result.usage.tokensIn,
        tokens_out: result.usage.tokensOut,
        latency_ms: result.latencyMs,
        // A summary replayed from the response cache (latency 0) says so, like steps and calls.
        cached: result.cached,
      });
      run.logs.syncRecords();
      current = next.version;
    },
  };
}

export function createExperience(run: RunContext, restoredMemory: readonly MemoryRecord[]): ExperienceState {
  switch (run.pathway) {
    case "none":
      return noneExperience();
    case "history":
      return historyExperience(run);
    case "memory":
      return memoryState(run, restoredMemory);
    default:
      throw new Error(`unknown pathway '${run.pathway}': expected none, history or memory`);
  }
}
