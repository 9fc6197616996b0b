/**
 * The exact prompt of every step, rebuilt from the logs by the runner's own replay
 * (src/runner/resume/replay.ts: the agent's prompt assembly and the History pathway's context builder), and
 * packed so that a page loads one run's prompts on demand.
 *
 * Packing, within an episode: step k's messages are step K's (the last step's) first 2k + 2 messages,
 * except the first user message, which carries the experience (History ICL refits it to the budget
 * as the episode grows). So an episode stores the last step's later messages once, and per step its
 * message count and which first user message it had. `unpackPrompt` is the inverse; `packPrompts`
 * checks it on every step and stores a step whole in the rare case it would not hold.
 *
 * The later messages are the episode's own turns (the observations, feedback and answers the episode
 * file already holds for its page), so they are stored as pieces: a field of one of the episode's
 * steps as that file shows it (`ShownStep`), or a pool text for what lies between (the tags and the
 * reminder, one pool entry each for the whole run). The page joins the pieces with the episode it has
 * loaded; a site holds each turn once instead of twice (the full reproduction's site was 1.8 GB).
 *
 * Packing, across a run: the long texts (the system message, every distinct first user message) go
 * to the run's TextPool, whole or as an edit of a recent whole entry. All the episodes of a checkpoint
 * read the same experience (they differ in the observation after it), and a checkpoint's experience
 * is the previous one's plus three episodes, so a run's prompt file holds each experience text about
 * once instead of once per episode (a History run of the reproduction: 128 MB before, a few MB now).
 */
import { getGame } from "../../games/registry.js";
import type { ChatMessage } from "../../models/types.js";
import { manifestProtocol } from "../../runner/settings/protocolRecord.js";
import { rebuildEpisodeMessages, type RunLogData } from "../../runner/resume/replay.js";
import type { MergedEpisode, MergedRun } from "../../logs/mergedRun.js";
import { viewOf } from "../../logs/schema.js";

/**
 * A text of a run's pool: whole, or an edit of the whole entry `k`: keep its first `p` and last `s`
 * characters and put `m` between them. Edits refer only to whole entries, so the page resolves any
 * text with one slice and one concatenation, and holds only the whole texts and the edits.
 */
export type PoolEntry = string | { k: number; p: number; s: number; m: string };

/**
 * What the page holds of each step of the episode (the episode file's step fields, build.ts stepView),
 * which a later message refers to instead of repeating it.
 */
export interface ShownStep {
  observation: string;
  feedback: string;
  /** The visible answer (the response without its reasoning). */
  answer: string;
}

/**
 * A piece of a message: a text of the run's pool (by index), or field `o` (observation), `f`
 * (feedback) or `a` (answer) of the episode's step at position `j`.
 */
export type Piece = number | [j: number, field: "o" | "f" | "a"];

/** A message stored as pieces (see the module comment). */
export interface PackedMessage {
  r: ChatMessage["role"];
  c: Piece[];
}

/** One episode's prompts, packed (see the module comment); texts are indices into the run's pool. */
export interface PackedPrompts {
  /** The system message (the rules text). */
  sys: number;
  /** The last step's messages after its first user message (assistant, user, assistant, ...), as pieces. */
  rest: PackedMessage[];
  /** Per logged step: its index, how many messages it has, its first user message; or its messages whole. */
  steps: ({ step: number; n: number; first: number } | { step: number; whole: ChatMessage[] })[];
}

/**
 * Step `i` (position in `p.steps`) of a packed episode, as the model received it, with `texts` the
 * run's pool and `shown` the episode's steps as its page holds them. Self-contained (no outer names):
 * the page runs this very function's source.
 */
export function unpackPrompt(texts: readonly PoolEntry[], p: PackedPrompts, i: number, shown: readonly ShownStep[]): ChatMessage[] {
  const s = p.steps[i];
  if (s === undefined) throw new Error(`no step at position ${i}`);
  if ("whole" in s) return s.whole;
  const text = (j: number): string => {
    const e = texts[j];
    if (typeof e === "string") return e;
    const b = e === undefined ? undefined : texts[e.k];
    if (e === undefined || typeof b !== "string") throw new Error(`the prompt file has no text ${j}`);
    return b.slice(0, e.p) + e.m + b.slice(b.length - e.s);
  };
  const out: ChatMessage[] = [
    { role: "system", content: text(p.sys) },
    { role: "user", content: text(s.first) },
  ];
  const piece = (x: Piece): string => {
    if (typeof x === "number") return text(x);
    const st = shown[x[0]];
    const v = st === undefined ? undefined : x[1] === "o" ? st.observation : x[1] === "f" ? st.feedback : st.answer;
    if (typeof v !== "string") throw new Error(`the episode file has no step at position ${x[0]} for the prompt`);
    return v;
  };
  for (const m of p.rest.slice(0, s.n - 2)) out.push({ role: m.r, content: m.c.map(piece).join("") });
  return out;
}

/** Fields shorter than this are left in the literal text around them (a reference would not be shorter). */
const MIN_REF = 12;

/**
 * `content` as pieces: each candidate field, in order, where it occurs after the previous one, the
 * text between as pool entries. The pieces join to `content` by construction (each field is cut
 * out of `content` where it equals it); a field not found is simply left in the literal text.
 */
function toPieces(content: string, candidates: readonly [number, "o" | "f" | "a"][], shown: readonly ShownStep[], pool: TextPool): Piece[] {
  const out: Piece[] = [];
  let at = 0;
  for (const [j, f] of candidates) {
    const st = shown[j];
    const v = st === undefined ? undefined : f === "o" ? st.observation : f === "f" ? st.feedback : st.answer;
    if (v === undefined || v.length < MIN_REF) continue;
    const k = content.indexOf(v, at);
    if (k < 0) continue;
    if (k > at) out.push(pool.add(content.slice(at, k)));
    out.push([j, f]);
    at = k + v.length;
  }
  if (at < content.length || out.length === 0) out.push(pool.add(content.slice(at)));
  return out;
}

/**
 * The last step's later messages as pieces. Message 2 + 2q is the answer of the step at position
 * d + q, message 3 + 2q that step's feedback and the next step's observation (stepPrompt.ts's
 * layout), d being the earliest turns the last step left out to fit its context. The positions only
 * choose where to look: a field that is not there stays literal.
 */
function packRest(base: readonly ChatMessage[], lastPos: number, shown: readonly ShownStep[], pool: TextPool): PackedMessage[] {
  const d = lastPos - (base.length - 2) / 2;
  return base.slice(2).map((m, r) => {
    const j = d + Math.floor(r / 2);
    const candidates: [number, "o" | "f" | "a"][] =
      r % 2 === 0
        ? [[j, "a"]]
        : [
            [j, "f"],
            [j + 1, "o"],
          ];
    return { r: m.role, c: Number.isInteger(d) ? toPieces(m.content, candidates, shown, pool) : [pool.add(m.content)] };
  });
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

/** `next` as an edit of the whole text `base` (common prefix and suffix kept). */
function editOf(base: string, next: string): { p: number; s: number; m: string } {
  const max = Math.min(base.length, next.length);
  const p = commonPrefix(base, next, max);
  const s = commonSuffix(base, next, max - p);
  return { p, s, m: next.slice(p, next.length - s) };
}

/**
 * A run's pool of long prompt texts (see the module comment). A text is stored as an edit of one of
 * the last REFS long whole entries when the edit is small next to it (at most 1/16 of the text), else
 * whole (and it becomes such a reference itself): a checkpoint's first experience is a new whole
 * entry, its other episodes' are edits of it. Short texts are looked up exactly (the rules text of
 * every episode is one entry).
 */
export class TextPool {
  readonly entries: PoolEntry[] = [];
  /** Whole entries at least REF_MIN characters long, newest last (at most REFS). */
  private readonly refs: number[] = [];
  private readonly short = new Map<string, number>();
  private static readonly REFS = 4;
  private static readonly REF_MIN = 4096;
  private static readonly SHORT_MAX = 16_384;

  /** The entry index of `text` (added when new). */
  add(text: string): number {
    if (text.length <= TextPool.SHORT_MAX) {
      const hit = this.short.get(text);
      if (hit !== undefined) return hit;
    }
    const index = this.store(text);
    if (text.length <= TextPool.SHORT_MAX) this.short.set(text, index);
    return index;
  }

  private store(text: string): number {
    let best: { k: number; p: number; s: number; m: string } | null = null;
    // Newest reference first: it is nearly always the one (the checkpoint's first experience).
    for (let r = this.refs.length - 1; r >= 0 && (best === null || best.m.length > text.length / 16); r--) {
      const k = this.refs[r]!;
      const e = editOf(this.entries[k] as string, text);
      if (best === null || e.m.length < best.m.length) best = { k, ...e };
    }
    if (best !== null && best.m.length + 40 <= text.length / 16) {
      this.entries.push(best);
      return this.entries.length - 1;
    }
    this.entries.push(text);
    const index = this.entries.length - 1;
    if (text.length >= TextPool.REF_MIN) {
      this.refs.push(index);
      if (this.refs.length > TextPool.REFS) this.refs.shift();
    }
    return index;
  }
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
 * Packs one episode's per-step messages (each step's list as rebuilt), its long texts into `pool`.
 * Each step is checked as it is packed (its first user message is pooled as it is, the others are
 * checked against the last step's: see sameAs); a step that does not match is stored whole.
 */
export function packPrompts(perStep: readonly { step: number; messages: ChatMessage[] }[], pool: TextPool, shown: readonly ShownStep[]): PackedPrompts {
  const last = perStep[perStep.length - 1];
  const base = last ? last.messages : [];
  const packed: PackedPrompts = { sys: base[0]?.role === "system" ? pool.add(base[0].content) : -1, rest: [], steps: [] };
  let latest: string | null = null;
  let latestIndex = -1;
  for (const { step, messages } of perStep) {
    const fits =
      packed.sys >= 0 &&
      messages.length >= 2 &&
      messages.length <= base.length &&
      messages[1]?.role === "user" &&
      messages.every((m, j) => j === 1 || sameAs(m, base[j], j === 0 || j >= messages.length - 2));
    if (!fits) {
      packed.steps.push({ step, whole: messages });
      continue;
    }
    // Pooled only when the text changed since the previous step (the experience is refitted a few
    // times an episode, and the replay hands back the same string object while it is unchanged).
    const first = (messages[1] as ChatMessage).content;
    if (first !== latest) {
      latestIndex = pool.add(first);
      latest = first;
    }
    packed.steps.push({ step, n: messages.length, first: latestIndex });
  }
  packed.rest = packRest(base, perStep.length - 1, shown, pool);
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
    // The merged run's pathway files (mergedRun.ts reads the memory versions, whatever pathway wrote them).
    own: { memory: run.memory },
  };
}

/**
 * One episode's packed prompts (long texts into the run's `pool`, the turns as references to `shown`,
 * the episode's steps as its page holds them), or the reason they cannot be rebuilt (never throws).
 */
export function episodePrompts(data: RunLogData | string, ep: MergedEpisode, pool: TextPool, shown: readonly ShownStep[]): PackedPrompts | string {
  if (typeof data === "string") return data;
  const first = ep.steps[0];
  if (first === undefined) return "the episode has no steps";
  try {
    const at = { phase: first.phase, checkpoint: first.checkpoint, episode: first.episode, ...(first.phase === "eval" ? { view: viewOf(first) } : {}) };
    return packPrompts(rebuildEpisodeMessages(data, getGame(data.manifest.game), at, ep.steps), pool, shown);
  } catch (e) {
    return `the prompt could not be rebuilt: ${(e as Error).message}`;
  }
}
