/**
 * Summary Memory (protocol.md, "Consolidation"): after each exploration episode the same model
 * rewrites its memory from (previous memory, the new scored trajectory) into the triple
 * retain / avoid / next. Pure helpers here; the runner makes the call and writes memory.jsonl.
 *
 * Versions: version 0 is the empty memory; version x is the memory in effect after exploration
 * episode x (explore episode x+1 and checkpoint x read it). A malformed reply keeps version x-1's
 * triple as version x, logged with parsed = false, so every version exists and is replayable.
 */
import { buildSummaryMessages, memoryText, parseSummary, type MemoryTriple } from "../agent/summaryPrompt.js";
import { renderTrajectory, type Trajectory } from "../agent/trajectoryText.js";
import { callSeed } from "../models/callSeed.js";
import type { CallIdentity, ChatMessage } from "../models/types.js";
import type { TokenCounter } from "../models/tokenCounter.js";
import { fitHistory, makeHistoryBlock, type HistorySettings } from "./history.js";
import { definePathway, type PathwayHost } from "./types.js";

export interface MemoryVersion {
  /** 0 = the empty initial memory; x = after exploration episode x. */
  afterEpisode: number;
  /** null: empty memory. */
  triple: MemoryTriple | null;
}

export const EMPTY_MEMORY: MemoryVersion = { afterEpisode: 0, triple: null };

/** The experience text of a memory version ("" when empty). */
export function memoryExperience(v: MemoryVersion): string {
  return memoryText(v.triple);
}

/**
 * The summary call's messages. The trajectory is cut from its tail when the prompt would not leave
 * `maxNewTokens` for the reply inside `contextTokens` (same additive count as History ICL).
 */
export function summaryMessages(
  input: { rules: string; previous: MemoryTriple | null; trajectory: Trajectory },
  settings: HistorySettings,
  counter: TokenCounter,
): { messages: ChatMessage[]; keptSteps: number } {
  const withheld = input.trajectory.scoresShown === false ? { scoresWithheld: true } : {};
  const bare = buildSummaryMessages({ rules: input.rules, previous: input.previous, trajectory: "", ...withheld });
  const budget = settings.contextTokens - settings.maxNewTokens - counter.messages(bare);
  const [keep] = fitHistory([makeHistoryBlock(input.trajectory, counter)], budget, counter);
  const keptSteps = Math.min(keep ?? 0, input.trajectory.steps.length);
  const text = renderTrajectory(input.trajectory, keptSteps) || "(the episode does not fit the context budget)";
  return { messages: buildSummaryMessages({ rules: input.rules, previous: input.previous, trajectory: text, ...withheld }), keptSteps };
}

/** The next version from a summary reply: parsed, or the previous triple kept with the reason. */
export function nextMemory(previous: MemoryVersion, afterEpisode: number, reply: string): { version: MemoryVersion; parsed: boolean; error: string | null } {
  const p = parseSummary(reply);
  if (p.ok) return { version: { afterEpisode, triple: p.triple }, parsed: true, error: null };
  return { version: { afterEpisode, triple: previous.triple }, parsed: false, error: p.error };
}

/** The memory.jsonl fields of a version (identity, parsed/error/response are the caller's). */
export function memoryRecordFields(v: MemoryVersion): { after_episode: number; text: string; retain: string; avoid: string; next: string } {
  return {
    after_episode: v.afterEpisode,
    text: memoryExperience(v),
    retain: v.triple?.retain ?? "",
    avoid: v.triple?.avoid ?? "",
    next: v.triple?.next ?? "",
  };
}

/** The version a memory.jsonl record describes (an all-empty triple is the empty memory). */
export function memoryFromRecord(r: { after_episode: number; retain: string; avoid: string; next: string }): MemoryVersion {
  const empty = r.retain === "" && r.avoid === "" && r.next === "";
  return { afterEpisode: r.after_episode, triple: empty ? null : { retain: r.retain, avoid: r.avoid, next: r.next } };
}

/**
 * Resume's rule for memory.jsonl: the contiguous versions 0..k, each of a done exploration episode
 * (version x is built on episode x; a version of a lost episode, and every later one, is made again).
 */
export function keptMemoryVersions<R extends { after_episode: number }>(records: readonly R[], explored: (x: number) => boolean): R[] {
  const kept: R[] = [];
  for (const r of records) {
    const expected = kept.length;
    if (r.after_episode !== expected) continue;
    if (expected > 0 && !explored(expected)) continue;
    kept.push(r);
  }
  return kept;
}

// ---------------------------------------------------------------------------------------------
// The pathway definition (registered in registry.ts).

/**
 * Summary Memory: the state is the memory version in effect. Version 0 is written when the run
 * starts; version x after exploration episode x. On resume the state still starts at version 0 and
 * takes the logged versions as consolidation walks through the done episodes (no summary call), so
 * a checkpoint c < k whose episodes were interrupted is re-run with memory c, never with the newest.
 */
export const memoryPathway = definePathway<MemoryVersion>({
  name: "memory",
  judged: true,
  protocolLoop: true,
  inDefaultMatrix: true,
  files: ["memory"],
  keep: (records, explored) => ({ memory: keptMemoryVersions(records.memory ?? [], explored) }),
  create(host) {
    const restored = host.restored("memory");
    if (restored.length > 0) return memoryFromRecord(restored[0]!);
    host.append("memory", { ...identityOf(host), ...memoryRecordFields(EMPTY_MEMORY), parsed: true, error: null, response: null });
    return EMPTY_MEMORY;
  },
  consolidated: (v) => v.afterEpisode,
  async consolidate(host, current, x, trajectory) {
    if (x !== current.afterEpisode + 1) throw new Error(`memory: consolidating episode ${x} after version ${current.afterEpisode}`);
    const logged = host.restored("memory").find((r) => r.after_episode === x);
    if (logged) return memoryFromRecord(logged);
    const { messages, keptSteps } = summaryMessages({ rules: host.exploreRules, previous: current.triple, trajectory }, host.settings, host.counter);
    // A ModelCallError propagates: the run loop treats it like a failed exploration episode.
    const identity: CallIdentity = { runId: host.runId, purpose: "summary", phase: "explore", checkpoint: null, episode: x, step: null, sample: 0 };
    const result = await host.model.complete({
      messages,
      // Every request carries a seed from its identity (a models file may turn sending it off).
      sampling: { max_tokens: host.settings.maxNewTokens, seed: callSeed(identity) },
      identity,
    });
    host.onUsage(result.usage.tokensIn, result.usage.tokensOut);
    const next = nextMemory(current, x, result.text);
    host.append("memory", {
      ...identityOf(host),
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
    return next.version;
  },
  snapshot(v) {
    const text = memoryExperience(v);
    return { forStep: () => ({ text, fields: { memory_version: v.afterEpisode } }) };
  },
  rebuild(logs, k) {
    const rec = logs.records("memory").find((m) => m.after_episode === k);
    if (!rec) throw new Error(`memory version ${k} is not in memory.jsonl`);
    return memoryFromRecord(rec);
  },
});

function identityOf(host: PathwayHost) {
  return { run_id: host.runId, model: host.modelName, game: host.gameName, pathway: host.pathway };
}
