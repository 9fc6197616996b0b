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

/**
 * A first user message, whole or as an edit of the previous entry: keep its first `p` and last `s`
 * characters and put `m` between them. History ICL's context changes between steps only where the
 * budget cuts (the earliest blocks shrink; the later ones and the observation stay), so an entry is a
 * few hundred characters instead of the whole context again.
 */
export type FirstEntry = string | { p: number; s: number; m: string };

/** One episode's prompts, packed (see the module comment). */
export interface PackedPrompts {
  /** The last step's messages. */
  base: ChatMessage[];
  /** The distinct first user messages, in the order the steps first use them. */
  firsts: FirstEntry[];
  /** Per logged step: its index, how many messages of `base` it has, its first user message; or its messages whole. */
  steps: ({ step: number; n: number; first: number } | { step: number; whole: ChatMessage[] })[];
}

/**
 * Step `i` (position in `steps`) of a packed episode, as the model received it. Self-contained (no
 * outer names): the page runs this very function's source to show a prompt.
 */
export function unpackPrompt(p: PackedPrompts, i: number): ChatMessage[] {
  const s = p.steps[i];
  if (s === undefined) throw new Error(`no step at position ${i}`);
  if ("whole" in s) return s.whole;
  let first = "";
  for (let f = 0; f <= s.first; f++) {
    const e = p.firsts[f];
    first = typeof e === "string" ? e : e === undefined ? first : first.slice(0, e.p) + e.m + first.slice(first.length - e.s);
  }
  const out = p.base.slice(0, s.n).map((m) => ({ role: m.role, content: m.content }));
  if (out[1] !== undefined) out[1] = { role: out[1].role, content: first };
  return out;
}

/** `next` as an edit of `prev` (common prefix and suffix kept), or whole when that is not shorter. */
function firstEntry(prev: string | null, next: string): FirstEntry {
  if (prev === null) return next;
  const max = Math.min(prev.length, next.length);
  let p = 0;
  while (p < max && prev.charCodeAt(p) === next.charCodeAt(p)) p++;
  let s = 0;
  while (s < max - p && prev.charCodeAt(prev.length - 1 - s) === next.charCodeAt(next.length - 1 - s)) s++;
  const m = next.slice(p, next.length - s);
  return m.length + 40 < next.length ? { p, s, m } : next;
}

/** What unpackPrompt makes of entry `e` after `prev` (the same rule, for the packer's own check). */
function applyEntry(prev: string, e: FirstEntry): string {
  return typeof e === "string" ? e : prev.slice(0, e.p) + e.m + prev.slice(prev.length - e.s);
}

/**
 * Packs one episode's per-step messages (each step's list as rebuilt). Each step is checked as it is
 * packed (its first user message from the entries, every other message from `base`), in time linear
 * in the prompt text; a step that would not unpack to its own messages is stored whole.
 */
export function packPrompts(perStep: readonly { step: number; messages: ChatMessage[] }[]): PackedPrompts {
  const last = perStep[perStep.length - 1];
  const base = last ? last.messages : [];
  const firsts: FirstEntry[] = [];
  const index = new Map<string, number>();
  const packed: PackedPrompts = { base, firsts, steps: [] };
  let latest: string | null = null;
  for (const { step, messages } of perStep) {
    const fits = messages.length >= 2 && messages.length <= base.length && messages.every((m, j) => j === 1 || (m.role === base[j]?.role && m.content === base[j]?.content));
    if (!fits || messages[1]?.role !== base[1]?.role) {
      packed.steps.push({ step, whole: messages });
      continue;
    }
    const first = (messages[1] as ChatMessage).content;
    let f = index.get(first);
    if (f === undefined) {
      const entry = firstEntry(latest, first);
      if (applyEntry(latest ?? "", entry) !== first) throw new Error("prompt packing: an edit does not reproduce its text"); // a bug, never data
      f = firsts.length;
      firsts.push(entry);
      index.set(first, f);
      latest = first;
    }
    packed.steps.push({ step, n: messages.length, first: f });
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
