/**
 * The exact prompt of every step, rebuilt from the logs by the runner's own replay
 * (src/runner/replay.ts: the agent's prompt assembly and the History pathway's context builder), and
 * packed per episode so that a page loads one episode's prompts on demand.
 *
 * Packing: within an episode, step k's messages are step K's (the last step's) first 2k + 2 messages,
 * except the first user message, which carries the experience (History ICL refits it to the budget at
 * every step). So an episode stores the last step's messages once, and per step its message count and
 * which distinct first user message it had. `unpackPrompt` is the inverse; `packEpisodePrompts`
 * checks it on every step and stores a step whole in the rare case it would not hold.
 */
import { getGame } from "../../games/registry.js";
import type { ChatMessage } from "../../models/types.js";
import { rebuildEpisodeMessages, type RunLogData } from "../../runner/replay.js";
import type { MergedEpisode, MergedRun } from "./runRecords.js";

/** One episode's prompts, packed (see the module comment). */
export interface PackedPrompts {
  /** The last step's messages. */
  base: ChatMessage[];
  /** The distinct first user messages. */
  firsts: string[];
  /** Per logged step: its index, how many messages of `base` it has, its first user message; or its messages whole. */
  steps: ({ step: number; n: number; first: number } | { step: number; whole: ChatMessage[] })[];
}

/** Step `i` (position in `steps`) of a packed episode, as the model received it. */
export function unpackPrompt(p: PackedPrompts, i: number): ChatMessage[] {
  const s = p.steps[i];
  if (s === undefined) throw new Error(`no step at position ${i}`);
  if ("whole" in s) return s.whole;
  const out = p.base.slice(0, s.n).map((m) => ({ ...m }));
  if (out[1] !== undefined) out[1] = { ...out[1], content: p.firsts[s.first] as string };
  return out;
}

function sameMessages(a: readonly ChatMessage[], b: readonly ChatMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => m.role === b[i]?.role && m.content === b[i]?.content);
}

/** Packs one episode's per-step messages (each step's list as rebuilt). */
export function packPrompts(perStep: readonly { step: number; messages: ChatMessage[] }[]): PackedPrompts {
  const last = perStep[perStep.length - 1];
  const base = last ? last.messages : [];
  const firsts: string[] = [];
  const index = new Map<string, number>();
  const packed: PackedPrompts = { base, firsts, steps: [] };
  for (const { step, messages } of perStep) {
    const first = messages[1]?.content ?? "";
    let f = index.get(first);
    if (f === undefined) {
      f = firsts.length;
      firsts.push(first);
      index.set(first, f);
    }
    packed.steps.push({ step, n: messages.length, first: f });
    if (!sameMessages(unpackPrompt(packed, packed.steps.length - 1), messages)) packed.steps[packed.steps.length - 1] = { step, whole: messages };
  }
  return packed;
}

/** The RunLogData the replay reads, from a merged run; or why the prompts cannot be rebuilt. */
export function replayInput(run: MergedRun): RunLogData | string {
  const m = run.manifest;
  if (m === null) return "no manifest.json: the protocol settings the prompt depends on are unknown";
  const protocol = (m.config as { protocol?: { game_configs?: unknown } }).protocol;
  if (protocol === undefined || typeof protocol !== "object" || protocol.game_configs === undefined) {
    return "manifest.json has no config.protocol (the run was not written by s3gym run)";
  }
  try {
    getGame(m.game);
  } catch {
    return `game '${m.game}' is not one of the kit's games, so its rules text is unknown`;
  }
  return {
    manifest: m,
    steps: run.episodes.flatMap((e) => e.steps),
    episodes: run.episodes.flatMap((e) => (e.record ? [e.record] : [])),
    memory: run.memory,
  };
}

/** One episode's packed prompts, or the reason they cannot be rebuilt (never throws). */
export function episodePrompts(data: RunLogData | string, ep: MergedEpisode): PackedPrompts | string {
  if (typeof data === "string") return data;
  const first = ep.steps[0];
  if (first === undefined) return "the episode has no steps";
  try {
    const perStep = rebuildEpisodeMessages(data, getGame(data.manifest.game), { phase: first.phase, checkpoint: first.checkpoint, episode: first.episode });
    return packPrompts(perStep);
  } catch (e) {
    return `the prompt could not be rebuilt: ${(e as Error).message}`;
  }
}
