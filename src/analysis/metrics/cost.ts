/**
 * Cost per checkpoint (views.md "Cost"; SEAGym records cost beside gain): pure functions of a run's
 * calls.jsonl. For every checkpoint x, the cumulative tokens (in, cached, out), calls and dollars
 * spent on EXPLORATION AND CONSOLIDATION up to it (calls of phase `explore` whose episode is <= x:
 * the step calls of exploration episodes 1..x and the memory summary after each), and, apart, what
 * evaluating checkpoint x cost (phase `eval`, checkpoint x, every view). Calls that served neither
 * (BuildSFT's corrections) are counted as `other`. calls.jsonl audits every call made, retried and
 * discarded attempts included: they were paid for, so they count.
 *
 * Exported for every "what did it cost" table (the verified pathway's tokens per pathway too):
 * `accumulateCall` folds calls one at a time (streaming), `costPerCheckpoint` reads the totals.
 */
import type { CallRecord } from "../../logs/schema.js";

/** Calls, tokens and dollars of a set of calls. */
export interface Usage {
  calls: number;
  tokens_in: number;
  /** Prompt tokens served from the provider's prefix cache (where reported; part of tokens_in). */
  tokens_cached: number;
  tokens_out: number;
  /** Completion tokens spent reasoning (where the provider reports them apart; part of tokens_out). */
  tokens_reasoning: number;
  /** Dollars summed over the calls that had a price; null when none had one. */
  usd: number | null;
  /**
   * The kit's own count of the step prompts (calls' tokens_in_local, run tokenizer): present for built-in
   * models too, which report no usage; summaries' prompts are not counted (0 where not logged).
   */
  tokens_in_local: number;
}

export function emptyUsage(): Usage {
  return { calls: 0, tokens_in: 0, tokens_cached: 0, tokens_out: 0, tokens_reasoning: 0, usd: null, tokens_in_local: 0 };
}

function add(u: Usage, c: Pick<CallRecord, "tokens_in" | "tokens_out" | "tokens_cached" | "cost_usd"> & { tokens_reasoning?: number | undefined; tokens_in_local?: number | undefined }): void {
  u.calls++;
  u.tokens_in_local += c.tokens_in_local ?? 0;
  u.tokens_reasoning += c.tokens_reasoning ?? 0;
  u.tokens_in += c.tokens_in;
  u.tokens_cached += c.tokens_cached ?? 0;
  u.tokens_out += c.tokens_out;
  if (c.cost_usd !== null) u.usd = (u.usd ?? 0) + c.cost_usd;
}

/** The usage of two sets of calls together. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    calls: a.calls + b.calls,
    tokens_in: a.tokens_in + b.tokens_in,
    tokens_cached: a.tokens_cached + b.tokens_cached,
    tokens_out: a.tokens_out + b.tokens_out,
    tokens_reasoning: a.tokens_reasoning + b.tokens_reasoning,
    usd: a.usd === null && b.usd === null ? null : (a.usd ?? 0) + (b.usd ?? 0),
    tokens_in_local: a.tokens_in_local + b.tokens_in_local,
  };
}

/** A run's calls folded by what they served (compact: a few numbers per episode and checkpoint). */
export interface RunCost {
  /** Exploration step and summary calls by exploration episode. */
  explore: Map<number, Usage>;
  /** Evaluation calls by checkpoint (all views together). */
  eval: Map<number, Usage>;
  /** Evaluation calls by view (`eval`, `id`, `replay`), all checkpoints. */
  evalByView: Map<string, Usage>;
  /** Calls that served no episode of the protocol (corrections, or phase missing). */
  other: Usage;
}

export function emptyRunCost(): RunCost {
  return { explore: new Map(), eval: new Map(), evalByView: new Map(), other: emptyUsage() };
}

/** The fields of a call record the cost needs. */
export type CostCall = Pick<CallRecord, "phase" | "checkpoint" | "episode" | "tokens_in" | "tokens_out" | "tokens_cached" | "cost_usd"> & {
  view?: string | undefined;
  tokens_reasoning?: number | undefined;
  tokens_in_local?: number | undefined;
};

/** Folds one call into the run's cost. */
export function accumulateCall(acc: RunCost, c: CostCall): void {
  const slot = <K>(m: Map<K, Usage>, k: K): Usage => {
    let u = m.get(k);
    if (u === undefined) m.set(k, (u = emptyUsage()));
    return u;
  };
  if (c.phase === "explore" && c.episode !== null) add(slot(acc.explore, c.episode), c);
  else if (c.phase === "eval" && c.checkpoint !== null) {
    add(slot(acc.eval, c.checkpoint), c);
    add(slot(acc.evalByView, c.view ?? "eval"), c);
  } else add(acc.other, c);
}

/** The cost of a run up to one checkpoint. */
export interface CostPoint {
  x: number;
  /** Exploration and consolidation up to x (cumulative: episodes 1..x). */
  explore: Usage;
  /** Evaluating checkpoint x (all views), not cumulative. */
  eval: Usage;
}

/** Cost at each checkpoint of `xs` (ascending or not; returned in the given order). */
export function costPerCheckpoint(acc: RunCost, xs: readonly number[]): CostPoint[] {
  const episodes = [...acc.explore.keys()].sort((a, b) => a - b);
  return xs.map((x) => {
    let explore = emptyUsage();
    for (const e of episodes) if (e <= x) explore = addUsage(explore, acc.explore.get(e) as Usage);
    return { x, explore, eval: acc.eval.get(x) ?? emptyUsage() };
  });
}

/** Total tokens (in + out; cached prompt tokens are part of `in`). */
export function totalTokens(u: Usage): number {
  return u.tokens_in + u.tokens_out;
}

/** gain per million tokens: null when the gain is missing or no token was counted. */
export function gainPerMillionTokens(gain: number | null, u: Usage): number | null {
  const t = totalTokens(u);
  return gain === null || t === 0 ? null : gain / (t / 1e6);
}
