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
import { manifestProtocol } from "../../runner/protocolRecord.js";
import { rebuildEpisodeMessages, type RunLogData } from "../../runner/replay.js";
import type { MergedEpisode, MergedRun } from "../../logs/mergedRun.js";

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
  /** The first user messages, one entry each time the text changes from one step to the next. */
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

/** Length of the common prefix of `a` and `b` (at most `max`): 4096-character slices compared natively, then characters. */
function commonPrefix(a: string, b: string, max: number): number {
  const C = 4096;
  let p = 0;
  while (p + C <= max && a.slice(p, p + C) === b.slice(p, p + C)) p += C;
  while (p < max && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  return p;
}

/** Length of the common suffix of `a` and `b` (at most `max`), the same way. */
function commonSuffix(a: string, b: string, max: number): number {
  const C = 4096;
  let s = 0;
  while (s + C <= max && a.slice(a.length - s - C, a.length - s) === b.slice(b.length - s - C, b.length - s)) s += C;
  while (s < max && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++;
  return s;
}

/** `next` as an edit of `prev` (common prefix and suffix kept), or whole when that is not shorter. */
function firstEntry(prev: string | null, next: string): FirstEntry {
  if (prev === null) return next;
  const max = Math.min(prev.length, next.length);
  const p = commonPrefix(prev, next, max);
  const s = commonSuffix(prev, next, max - p);
  const m = next.slice(p, next.length - s);
  return m.length + 40 < next.length ? { p, s, m } : next;
}

/** Whether entry `e` after `prev` has the length of `text` (what unpackPrompt builds is `prev`'s ends around `e.m`). */
function entryFits(prev: string, e: FirstEntry, text: string): boolean {
  return typeof e === "string" ? e === text : e.p + e.s <= prev.length && e.p + e.m.length + e.s === text.length;
}

/**
 * Whether `m` is `b`: role and length always, the text itself when `full` (the system message and the
 * step's own newest turn). The messages in between are the earlier turns, built by the same
 * buildStepMessages from the same turn objects, so comparing each of them at every step (quadratic
 * in the episode) would only re-check that function's determinism.
 */
function sameAs(m: ChatMessage, b: ChatMessage | undefined, full: boolean): boolean {
  return b !== undefined && m.role === b.role && m.content.length === b.content.length && (!full || m.content === b.content);
}

/**
 * Packs one episode's per-step messages (each step's list as rebuilt). Each step is checked as it is
 * packed (its first user message against the entries, the others against `base`: see sameAs); a
 * step that does not match is stored whole.
 */
export function packPrompts(perStep: readonly { step: number; messages: ChatMessage[] }[]): PackedPrompts {
  const last = perStep[perStep.length - 1];
  const base = last ? last.messages : [];
  const firsts: FirstEntry[] = [];
  const packed: PackedPrompts = { base, firsts, steps: [] };
  let latest: string | null = null;
  for (const { step, messages } of perStep) {
    const fits = messages.length >= 2 && messages.length <= base.length && messages.every((m, j) => j === 1 || sameAs(m, base[j], j === 0 || j >= messages.length - 2));
    if (!fits || messages[1]?.role !== base[1]?.role) {
      packed.steps.push({ step, whole: messages });
      continue;
    }
    // A new entry only when the text changed since the previous step (the experience is refitted
    // as the episode grows and never returns to an earlier cut), so no map keyed by whole contexts.
    const first = (messages[1] as ChatMessage).content;
    if (first !== latest) {
      const entry = firstEntry(latest, first);
      if (!entryFits(latest ?? "", entry, first)) throw new Error("prompt packing: an edit does not fit its text"); // a bug, never data
      firsts.push(entry);
      latest = first;
    }
    packed.steps.push({ step, n: messages.length, first: firsts.length - 1 });
  }
  return packed;
}

/** The RunLogData the replay reads, from a merged run; or why the prompts cannot be rebuilt. */
export function replayInput(run: MergedRun): RunLogData | string {
  const m = run.manifest;
  if (m === null) return "no manifest.json: the protocol settings the prompt depends on are unknown";
  try {
    manifestProtocol(m);
  } catch (e) {
    return (e as Error).message;
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
