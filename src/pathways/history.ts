/**
 * History ICL (protocol.md, "Consolidation"): every earlier exploration episode is one block of the
 * experience text (renderTrajectory), and the blocks share a token budget:
 *
 *   budget = context_tokens - max_new_tokens - tokens(the step's messages without experience)
 *            - tokens(the <experience> wrapper)
 *
 * The messages without experience are the system prompt (rules + contract), the current episode's
 * turns and the current observation, so the budget shrinks as the episode grows and is recomputed at
 * every step. When the blocks do not fit, the cut follows one fixed order (docs/runner.md):
 * episode 1's block loses its last step, then its next-to-last, ... until it is dropped, then episode
 * 2's block, and so on; the first state in that order that fits is used. The newest block is cut last.
 *
 * Token counts are ADDITIVE over pieces: a block costs the sum of countTokens of its header, kept
 * steps, tail (end state, or the "[... n later steps omitted]" marker) and footer, plus one newline
 * token per line break; blocks are joined by "\n\n". Per-piece counts are computed once per block,
 * which makes a per-step recomputation cheap, and BPE merges across piece boundaries only lower the
 * real count, so the additive figure is a (tight, ~0.1-1%) upper bound of the exact one.
 *
 * The per-step work is incremental, with the same output byte for byte (tests/pathways/history.test.ts
 * checks it against a straightforward reference): each block's texts are rendered once (its step
 * pieces and its whole text, and the joined whole blocks after the cut per block array), each earlier
 * turn of the current episode is counted once, and the fit skips blocks whose dropped state is
 * already over budget.
 */
import type { EarlierTurn } from "../agent/stepPrompt.js";
import { buildStepMessages } from "../agent/stepPrompt.js";
import { renderTrajectory, trajectoryPieces, type Trajectory } from "../agent/trajectoryText.js";
import { rememberJoinedText, type TokenCounter } from "../models/tokenCounter.js";
import { MESSAGE_OVERHEAD_TOKENS, type TokenizerName } from "../models/tokens.js";

export interface HistorySettings {
  /** The model's context window in tokens (--context-tokens). */
  contextTokens: number;
  /** Reserved for the reply (--max-new-tokens). */
  maxNewTokens: number;
  tokenizer: TokenizerName;
  /** Where the cut may move (`--history-cut`, see historyContext); absent = `per-step` (runs written before the rule existed). */
  historyCut?: HistoryCut;
}

/**
 * `per-step`: every step is fitted to its own budget (the cut moves at nearly every step once the
 * context is full). `anchored`: the cut stays put while it fits, and when it must move it leaves a
 * reserve, so a provider's prefix cache keeps serving the experience (docs/endpoints.md).
 */
export const HISTORY_CUTS = ["anchored", "per-step"] as const;
export type HistoryCut = (typeof HISTORY_CUTS)[number];

/** How every History experience block opens in a first user message (stepPrompt.ts userTurn). */
const EXPERIENCE_OPEN = "<experience>\n";

/** One consolidated exploration episode with its piece token counts (immutable once built). */
export interface HistoryBlock {
  trajectory: Trajectory;
  headerTokens: number;
  stepTokens: number[];
  endTokens: number;
  footerTokens: number;
}

export function makeHistoryBlock(trajectory: Trajectory, counter: TokenCounter): HistoryBlock {
  const p = trajectoryPieces(trajectory);
  const block: HistoryBlock = {
    trajectory,
    headerTokens: counter.count(p.header),
    stepTokens: p.steps.map((s) => counter.count(s)),
    endTokens: counter.count(p.end),
    footerTokens: counter.count(p.footer),
  };
  renderedPieces.set(block, { ...p, full: null });
  return block;
}

/**
 * A block's rendered pieces (trajectoryPieces) and, once asked for, its whole text: blocks never
 * change, so every step renders from these instead of re-rendering every kept step of every block.
 */
interface RenderedBlock {
  header: string;
  steps: string[];
  end: string;
  footer: string;
  full: string | null;
}
const renderedPieces = new WeakMap<HistoryBlock, RenderedBlock>();
function rendered(b: HistoryBlock): RenderedBlock {
  let r = renderedPieces.get(b);
  if (!r) renderedPieces.set(b, (r = { ...trajectoryPieces(b.trajectory), full: null }));
  return r;
}

const prefixSums = new WeakMap<HistoryBlock, number[]>();
/** prefix[k] = tokens of the first k steps (memoised per block). */
function prefixSum(b: HistoryBlock): number[] {
  let p = prefixSums.get(b);
  if (!p) {
    p = [0];
    for (const t of b.stepTokens) p.push(p[p.length - 1]! + t);
    prefixSums.set(b, p);
  }
  return p;
}

/** The omission marker renderTrajectory writes for a cut block (its exact text). */
export function omissionMarker(omitted: number): string {
  return `[... ${omitted} later steps omitted]`;
}

/** Additive token cost of a block that keeps its first `keep` steps (0: dropped, costs nothing). */
export function blockCost(b: HistoryBlock, keep: number, counter: TokenCounter): number {
  const n = b.stepTokens.length;
  if (keep <= 0 || n === 0) return 0;
  const k = Math.min(keep, n);
  const steps = prefixSum(b)[k]!;
  const tail = k === n ? b.endTokens : counter.numbered(n - k, omissionMarker);
  // Pieces: header, k steps, tail, footer -> k + 3 pieces, k + 2 line breaks.
  return b.headerTokens + steps + tail + b.footerTokens + (k + 2) * counter.count("\n");
}

/** Additive cost of the whole experience text for a keep vector. */
export function historyCost(blocks: readonly HistoryBlock[], keep: readonly number[], counter: TokenCounter): number {
  let total = 0;
  let kept = 0;
  blocks.forEach((b, i) => {
    const c = blockCost(b, keep[i]!, counter);
    if (c > 0) {
      total += c;
      kept += 1;
    }
  });
  return total + Math.max(0, kept - 1) * counter.count("\n\n");
}

/**
 * The keep vector (steps kept per block, oldest block first; 0 = dropped) for `budget` tokens: the
 * first state that fits in the cutting order "earliest block's last step first". Linear in the total
 * number of steps: the blocks after the one being cut are whole, so their cost is a suffix sum.
 */
export function fitHistory(blocks: readonly HistoryBlock[], budget: number, counter: TokenCounter): number[] {
  const keep = blocks.map((b) => b.stepTokens.length);
  if (historyCost(blocks, keep, counter) <= budget) return keep;
  const sep = counter.count("\n\n");
  const full = blocks.map((b) => blockCost(b, b.stepTokens.length, counter));
  const suffixCost = new Array<number>(blocks.length + 1).fill(0);
  const suffixCount = new Array<number>(blocks.length + 1).fill(0);
  for (let i = blocks.length - 1; i >= 0; i--) {
    suffixCost[i] = suffixCost[i + 1]! + full[i]!;
    suffixCount[i] = suffixCount[i + 1]! + (full[i]! > 0 ? 1 : 0);
  }
  for (let b = 0; b < blocks.length; b++) {
    // The block's last state (dropped) is its cheapest: every k > 0 costs that plus the block and
    // a separator (token counts are non-negative). If even that does not fit, none of this block's
    // states does, and the order moves on with the block dropped, as the step-by-step walk would.
    const dropped = suffixCost[b + 1]! + Math.max(0, suffixCount[b + 1]! - 1) * sep;
    if (dropped > budget) {
      keep[b] = 0;
      continue;
    }
    for (let k = keep[b]! - 1; k >= 0; k--) {
      const own = blockCost(blocks[b]!, k, counter);
      const count = suffixCount[b + 1]! + (own > 0 ? 1 : 0);
      const cost = suffixCost[b + 1]! + own + Math.max(0, count - 1) * sep;
      keep[b] = k;
      if (cost <= budget) return keep;
    }
  }
  return keep; // all zero: nothing fits
}

/** renderTrajectory's keep argument: undefined means the whole block. */
function keepOf(b: HistoryBlock, keep: number | undefined): number {
  return keep === undefined ? b.trajectory.steps.length : keep;
}

/** Whether renderTrajectory(b.trajectory, keep) is the whole block (all steps and the end state). */
function isWhole(b: HistoryBlock, keep: number | undefined): boolean {
  const k = keepOf(b, keep);
  return k > 0 && k >= b.trajectory.steps.length && Number.isInteger(k);
}

function wholeText(b: HistoryBlock): string {
  const r = rendered(b);
  return (r.full ??= [r.header, ...r.steps, r.end, r.footer].join("\n"));
}

/**
 * renderTrajectory(b.trajectory, keep), from the block's cached pieces: a whole block is rendered once
 * and reused, a cut one joins its cached first `keep` step texts. Same text, byte for byte.
 */
function renderBlock(b: HistoryBlock, keep: number | undefined): string {
  const k = keepOf(b, keep);
  if (k <= 0) return "";
  if (!Number.isInteger(k)) return renderTrajectory(b.trajectory, k); // never from fitHistory
  const n = b.trajectory.steps.length;
  if (k >= n) return wholeText(b);
  const r = rendered(b);
  return [r.header, ...r.steps.slice(0, k), omissionMarker(n - k), r.footer].join("\n");
}

/**
 * The joined whole texts of blocks[c..] per block array (a snapshot's frozen array is passed at every
 * step): a fitted keep vector is "blocks before the cut dropped, the cut block cut, the rest whole",
 * so the long whole tail is joined once, not at every step. At most WHOLE_SUFFIXES cut points are kept
 * per array (concurrent episodes of one snapshot may sit at different cuts); the entry is rebuilt if
 * the array's blocks changed.
 */
const WHOLE_SUFFIXES = 4;

/** Whether a copy taken earlier still holds the same blocks (the array may have been changed in place). */
function sameItems<T>(copy: readonly T[], now: readonly T[]): boolean {
  return copy.length === now.length && copy.every((x, i) => x === now[i]);
}
const wholeSuffixes = new WeakMap<readonly HistoryBlock[], { blocks: HistoryBlock[]; texts: Map<number, string> }>();
function wholeSuffix(blocks: readonly HistoryBlock[], c: number): string {
  let e = wholeSuffixes.get(blocks);
  if (!e || !sameItems(e.blocks, blocks)) {
    wholeSuffixes.set(blocks, (e = { blocks: blocks.slice(), texts: new Map() }));
  }
  let text = e.texts.get(c);
  if (text === undefined) {
    text = blocks.slice(c).map(wholeText).join("\n\n");
    if (e.texts.size >= WHOLE_SUFFIXES) e.texts.delete(e.texts.keys().next().value!);
    e.texts.set(c, text);
  }
  return text;
}

/** The experience text for a keep vector: the non-empty renderTrajectory(block, keep) joined by "\n\n". */
export function renderHistory(blocks: readonly HistoryBlock[], keep: readonly number[]): string {
  let c = blocks.length; // blocks[c..] are whole
  while (c > 0 && isWhole(blocks[c - 1]!, keep[c - 1])) c--;
  const parts: string[] = [];
  for (let i = 0; i < c; i++) {
    const t = renderBlock(blocks[i]!, keep[i]);
    if (t.length > 0) parts.push(t);
  }
  if (c === blocks.length) return parts.join("\n\n");
  const whole = wholeSuffix(blocks, c);
  return parts.length === 0 ? whole : parts.join("\n\n") + "\n\n" + whole;
}

/** Additive tokens of the <experience> wrapper stepPrompt.ts puts around a non-empty experience. */
function wrapperTokens(counter: TokenCounter): number {
  return counter.count("<experience>\n") + counter.count("\n</experience>") + counter.count("\n\n");
}

/** Tokens left for the experience text at this step (may be negative: then nothing fits). */
export function experienceBudget(settings: HistorySettings, step: { rules: string; turns: EarlierTurn[]; observation: string; rewardVisibility: "hidden" | "visible" }, counter: TokenCounter): number {
  return settings.contextTokens - settings.maxNewTokens - bareMessageTokens(step, counter) - wrapperTokens(counter);
}

/**
 * What earlier turn j adds to the messages without experience: its user message (its observation,
 * after turn j-1's feedback tag) and its assistant message, with their per-message overhead. The
 * entry records everything that text depends on and is used only while all of it is unchanged.
 */
interface TurnTokens {
  counter: TokenCounter;
  visibility: "hidden" | "visible";
  observation: string;
  response: string;
  prev: EarlierTurn | null;
  prevFeedback: string | undefined;
  prevReward: number | undefined;
  prevScoreAfter: number | undefined;
  tokens: number;
}
const turnTokens = new WeakMap<EarlierTurn, TurnTokens>();

function turnTokensValid(e: TurnTokens | undefined, turn: EarlierTurn, prev: EarlierTurn | null, visibility: string, counter: TokenCounter): e is TurnTokens {
  return (
    e !== undefined &&
    e.counter === counter &&
    e.visibility === visibility &&
    e.observation === turn.observation &&
    e.response === turn.response &&
    e.prev === prev &&
    e.prevFeedback === prev?.feedback &&
    e.prevReward === prev?.reward &&
    e.prevScoreAfter === prev?.scoreAfter
  );
}

/**
 * counter.messages(buildStepMessages({ ...step, experience: "" })), incrementally: the current
 * episode's turns only grow by one per step, so each earlier turn's messages are counted once (per
 * turn object) and only the new turns and the current observation's message are built at a step.
 * The messages still come from buildStepMessages (on the new tail of the turns), so the layout is
 * the prompt's own.
 */
function bareMessageTokens(step: { rules: string; turns: readonly EarlierTurn[]; observation: string; rewardVisibility: "hidden" | "visible" }, counter: TokenCounter): number {
  const { turns, rewardVisibility } = step;
  let total = 3 + MESSAGE_OVERHEAD_TOKENS + counter.count(step.rules);
  // The turns this array's last count summed, while it still opens with them (bareSums).
  const sum = bareSum(turns, rewardVisibility, counter);
  let p = sum?.turns.length ?? 0;
  total += sum?.tokens ?? 0;
  // Counted turns up to the first whose entry is missing or stale; every turn from it on is recounted.
  for (; p < turns.length; p++) {
    const e = turnTokens.get(turns[p]!);
    if (!turnTokensValid(e, turns[p]!, p > 0 ? turns[p - 1]! : null, rewardVisibility, counter)) break;
    total += e.tokens;
    sum?.add(turns[p]!, e.tokens);
  }
  // The messages from turn p-1 on (the one before the first to count, whose feedback opens turn p's
  // user message; the last turn when all are counted, whose feedback opens the current message):
  // system, then per turn j >= start its user message (index 1 + 2(j - start)) and its reply, then
  // the current observation's user message.
  const start = Math.max(0, p - 1);
  const tail = buildStepMessages({ rules: "", experience: "", turns: turns.slice(start), observation: step.observation, rewardVisibility });
  for (let j = p; j < turns.length; j++) {
    const turn = turns[j]!;
    const prev = j > 0 ? turns[j - 1]! : null;
    const tokens = 2 * MESSAGE_OVERHEAD_TOKENS + counter.count(tail[1 + 2 * (j - start)]!.content) + counter.count(tail[2 + 2 * (j - start)]!.content);
    turnTokens.set(turn, {
      counter,
      visibility: rewardVisibility,
      observation: turn.observation,
      response: turn.response,
      prev,
      prevFeedback: prev?.feedback,
      prevReward: prev?.reward,
      prevScoreAfter: prev?.scoreAfter,
      tokens,
    });
    total += tokens;
    sum?.add(turn, tokens);
  }
  return total + MESSAGE_OVERHEAD_TOKENS + counter.count(tail[tail.length - 1]!.content);
}

/**
 * Per turns array (the runner's episode grows one by a turn per step), the summed tokens of its
 * first turns as the last count found them: the next count on the array starts after them instead of
 * checking every earlier turn's entry again. Only frozen turns (earlierTurnOf's) are summed, so a turn
 * the same object adds the same tokens; they are compared by object, so an array changed in place is
 * seen. Arrays of a few turns are not kept.
 */
class BareSum {
  readonly turns: EarlierTurn[] = [];
  tokens = 0;
  private growing = true;
  constructor(
    readonly counter: TokenCounter,
    readonly visibility: "hidden" | "visible",
  ) {}

  /** Whether `turns` still opens with the summed turns (the same objects). */
  opens(turns: readonly EarlierTurn[]): boolean {
    const mine = this.turns;
    if (mine.length > turns.length) return false;
    for (let i = 0; i < mine.length; i++) if (mine[i] !== turns[i]) return false;
    return true;
  }

  /** The next turn's tokens; the sum stops growing at the first turn that is not frozen. */
  add(turn: EarlierTurn, tokens: number): void {
    if (!this.growing || !Object.isFrozen(turn)) {
      this.growing = false;
      return;
    }
    this.turns.push(turn);
    this.tokens += tokens;
  }
}
const bareSums = new WeakMap<readonly EarlierTurn[], BareSum>();
const BARE_SUM_MIN_TURNS = 4;

function bareSum(turns: readonly EarlierTurn[], visibility: "hidden" | "visible", counter: TokenCounter): BareSum | undefined {
  if (turns.length < BARE_SUM_MIN_TURNS) return undefined;
  const s = bareSums.get(turns);
  if (s !== undefined && s.counter === counter && s.visibility === visibility && s.opens(turns)) return s;
  const fresh = new BareSum(counter, visibility);
  bareSums.set(turns, fresh);
  return fresh;
}

/** The anchored cut's reserve at least: this share of the context (6,250 tokens of 100,000). */
export const ANCHOR_RESERVE_DIVISOR = 16;

/**
 * The keep vector of the `anchored` rule at the current step, a pure function of the blocks, the
 * settings and the step (so replay rebuilds it from the logs): walking the episode's steps 0..n,
 * a step keeps the previous step's cut while that still fits its budget; at step 0 everything is kept
 * when everything fits; otherwise the cut is refitted by the usual order to the budget minus a
 * reserve of max(context / 16, what the episode has grown since its first step), at most half the
 * budget. The experience then changes only at those refits (about once or twice an episode), and
 * every other step's prompt begins with the previous one: the prefix cache serves it.
 */
function anchoredKeep(blocks: readonly HistoryBlock[], settings: HistorySettings, step: StepInput, counter: TokenCounter): number[] {
  const n = step.turns.length;
  const budgetAt = (j: number) =>
    experienceBudget(
      settings,
      { rules: step.rules, turns: j < n ? step.turns.slice(0, j) : step.turns, observation: j < n ? step.turns[j]!.observation : step.observation, rewardVisibility: step.rewardVisibility },
      counter,
    );
  const full = blocks.map((b) => b.stepTokens.length);
  const floor = Math.floor(settings.contextTokens / ANCHOR_RESERVE_DIVISOR);
  // The walk over steps 0..n-1 is the one the previous step of this episode made (same turns): it
  // resumes from its last valid state instead of recomputing every earlier budget (quadratic).
  const walk = anchoredWalk(blocks, settings, step, counter);
  const from = walk.validSteps(step);
  const first = from > 0 ? walk.first : budgetAt(0);
  let keep: number[] | null = from > 0 ? walk.keeps[from - 1]! : null;
  for (let j = from; j <= n; j++) {
    const budget = j === 0 ? first : budgetAt(j);
    if (!(keep !== null && historyCost(blocks, keep, counter) <= budget)) {
      if (j === 0 && historyCost(blocks, full, counter) <= budget) keep = full;
      else {
        const reserve = Math.min(Math.max(floor, first - budget), Math.floor(Math.max(0, budget) / 2));
        keep = fitHistory(blocks, budget - reserve, counter);
      }
    }
    walk.record(j, step, keep!, first);
  }
  return keep!;
}

/**
 * What step j of an anchored walk read: the turn before it (by object, and the fields its messages
 * show) and the observation then current. The walk's state after step j is reused only while every
 * step up to j reads the same.
 */
interface WalkStep {
  turn: EarlierTurn | null;
  observation: string;
  response: string | undefined;
  feedback: string | undefined;
  reward: number | undefined;
  scoreAfter: number | undefined;
  current: string;
}

class AnchoredWalk {
  readonly steps: WalkStep[] = [];
  readonly keeps: number[][] = [];
  first = 0;
  constructor(
    /** A copy of the blocks the walk was made for (the array may later change in place). */
    readonly blocks: readonly HistoryBlock[],
    readonly contextTokens: number,
    readonly maxNewTokens: number,
    readonly counter: TokenCounter,
    readonly rules: string,
    readonly visibility: "hidden" | "visible",
  ) {}

  private static read(step: StepInput, j: number): WalkStep {
    const turn = j > 0 ? step.turns[j - 1]! : null;
    const current = j < step.turns.length ? step.turns[j]!.observation : step.observation;
    return { turn, observation: turn?.observation ?? "", response: turn?.response, feedback: turn?.feedback, reward: turn?.reward, scoreAfter: turn?.scoreAfter, current };
  }

  /** How many of this walk's first steps read exactly what `step`'s steps read. */
  validSteps(step: StepInput): number {
    const upTo = Math.min(this.steps.length, step.turns.length + 1);
    // The fields `read` would give, compared in place: building a WalkStep per earlier step at every
    // step allocated O(turns^2) objects per episode.
    const turns = step.turns;
    let j = 0;
    for (; j < upTo; j++) {
      const a = this.steps[j]!;
      const turn = j > 0 ? turns[j - 1]! : null;
      const current = j < turns.length ? turns[j]!.observation : step.observation;
      if (
        a.turn !== turn ||
        a.observation !== (turn?.observation ?? "") ||
        a.response !== turn?.response ||
        a.feedback !== turn?.feedback ||
        a.reward !== turn?.reward ||
        a.scoreAfter !== turn?.scoreAfter ||
        a.current !== current
      )
        break;
    }
    return j;
  }

  record(j: number, step: StepInput, keep: number[], first: number): void {
    this.steps.length = j;
    this.keeps.length = j;
    this.steps.push(AnchoredWalk.read(step, j));
    this.keeps.push(keep);
    this.first = first;
  }
}

/** One walk per episode (its turns array, which the runner grows by one per step). */
const anchoredWalks = new WeakMap<readonly EarlierTurn[], AnchoredWalk>();

function anchoredWalk(blocks: readonly HistoryBlock[], settings: HistorySettings, step: StepInput, counter: TokenCounter): AnchoredWalk {
  const w = anchoredWalks.get(step.turns);
  if (
    w !== undefined &&
    sameItems(w.blocks, blocks) &&
    w.contextTokens === settings.contextTokens &&
    w.maxNewTokens === settings.maxNewTokens &&
    w.counter === counter &&
    w.rules === step.rules &&
    w.visibility === step.rewardVisibility
  ) {
    return w;
  }
  const fresh = new AnchoredWalk(blocks.slice(), settings.contextTokens, settings.maxNewTokens, counter, step.rules, step.rewardVisibility);
  anchoredWalks.set(step.turns, fresh);
  return fresh;
}

type StepInput = { rules: string; turns: EarlierTurn[]; observation: string; rewardVisibility: "hidden" | "visible" };

/**
 * The last few experience texts rendered per block array, by keep vector: the cut changes about once
 * an episode, and every step between gets the SAME string object back. Identity matters downstream:
 * the prompt builder and the token counter compare and hash this text at every step, which costs
 * O(1) for the same object and O(length) (a fresh flatten of ~100k tokens of text) for an equal copy.
 */
const RENDERED_TEXTS = 4;
const renderedTexts = new WeakMap<readonly HistoryBlock[], { blocks: HistoryBlock[]; texts: Map<string, string> }>();
function renderHistoryOnce(blocks: readonly HistoryBlock[], keep: readonly number[]): string {
  let e = renderedTexts.get(blocks);
  if (!e || !sameItems(e.blocks, blocks)) renderedTexts.set(blocks, (e = { blocks: blocks.slice(), texts: new Map() }));
  const key = keep.join(",");
  let text = e.texts.get(key);
  if (text === undefined) {
    // renderHistory's text, joined here from its block texts (its definition) so that the pieces
    // handed to TokenCounter are the text byte for byte by construction: checking a separately
    // rendered text against them took two more passes over ~100k tokens at every new cut.
    const pieces: string[] = [];
    blocks.forEach((b, i) => {
      const t = renderBlock(b, keep[i]);
      if (t.length > 0) pieces.push(t);
    });
    text = pieces.join("\n\n");
    if (e.texts.size >= RENDERED_TEXTS) e.texts.delete(e.texts.keys().next().value!);
    e.texts.set(key, text);
    // TokenCounter counts a first user message from these pieces (their counts are kept per piece).
    if (pieces.length > 0) rememberJoinedText(EXPERIENCE_OPEN, text, pieces);
  }
  return text;
}

/** The history context of one step: the text and the keep vector that produced it. */
export function historyContext(blocks: readonly HistoryBlock[], settings: HistorySettings, step: StepInput, counter: TokenCounter): { text: string; keep: number[] } {
  if (blocks.length === 0) return { text: "", keep: [] };
  const keep = settings.historyCut === "anchored" ? anchoredKeep(blocks, settings, step, counter) : fitHistory(blocks, experienceBudget(settings, step, counter), counter);
  return { text: renderHistoryOnce(blocks, keep), keep };
}
