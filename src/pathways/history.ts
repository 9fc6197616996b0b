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
 */
import type { EarlierTurn } from "../agent/stepPrompt.js";
import { buildStepMessages } from "../agent/stepPrompt.js";
import { renderTrajectory, trajectoryPieces, type Trajectory } from "../agent/trajectoryText.js";
import type { ChatMessage } from "../models/types.js";
import { countTokens, MESSAGE_OVERHEAD_TOKENS, type TokenizerName } from "../models/tokens.js";

export interface HistorySettings {
  /** The model's context window in tokens (--context-tokens). */
  contextTokens: number;
  /** Reserved for the reply (--max-new-tokens). */
  maxNewTokens: number;
  tokenizer: TokenizerName;
}

/** Memoised countTokens: pieces repeat across steps, episodes and checkpoints. */
export class TokenCounter {
  private readonly cache = new Map<string, number>();
  constructor(readonly tokenizer: TokenizerName) {}

  count(text: string): number {
    let n = this.cache.get(text);
    if (n === undefined) {
      n = countTokens(text, this.tokenizer);
      // Bounded: long runs must not keep every observation forever.
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(text, n);
    }
    return n;
  }

  /** Same formula as models/tokens.ts countMessageTokens, with per-message memoisation. */
  messages(messages: readonly ChatMessage[]): number {
    return messages.reduce((n, m) => n + MESSAGE_OVERHEAD_TOKENS + this.count(m.content), 3);
  }
}

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
  return {
    trajectory,
    headerTokens: counter.count(p.header),
    stepTokens: p.steps.map((s) => counter.count(s)),
    endTokens: counter.count(p.end),
    footerTokens: counter.count(p.footer),
  };
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
  const tail = k === n ? b.endTokens : counter.count(omissionMarker(n - k));
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

/** The experience text for a keep vector. */
export function renderHistory(blocks: readonly HistoryBlock[], keep: readonly number[]): string {
  return blocks
    .map((b, i) => renderTrajectory(b.trajectory, keep[i]!))
    .filter((t) => t.length > 0)
    .join("\n\n");
}

/** Additive tokens of the <experience> wrapper stepPrompt.ts puts around a non-empty experience. */
function wrapperTokens(counter: TokenCounter): number {
  return counter.count("<experience>\n") + counter.count("\n</experience>") + counter.count("\n\n");
}

/** Tokens left for the experience text at this step (may be negative: then nothing fits). */
export function experienceBudget(
  settings: HistorySettings,
  step: { rules: string; turns: EarlierTurn[]; observation: string; rewardVisibility: "hidden" | "visible" },
  counter: TokenCounter,
): number {
  const bare = buildStepMessages({ ...step, experience: "" });
  return settings.contextTokens - settings.maxNewTokens - counter.messages(bare) - wrapperTokens(counter);
}

/** The history context of one step: the text and the keep vector that produced it. */
export function historyContext(
  blocks: readonly HistoryBlock[],
  settings: HistorySettings,
  step: { rules: string; turns: EarlierTurn[]; observation: string; rewardVisibility: "hidden" | "visible" },
  counter: TokenCounter,
): { text: string; keep: number[] } {
  if (blocks.length === 0) return { text: "", keep: [] };
  const budget = experienceBudget(settings, step, counter);
  const keep = fitHistory(blocks, budget, counter);
  return { text: renderHistory(blocks, keep), keep };
}
