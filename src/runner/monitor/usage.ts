/** Per-run token and cost totals, summed from calls.jsonl (every call of every invocation). */
import { CallRecord, type UsageRecord } from "../../logs/schema.js";
import { readRunFile } from "../../logs/reader.js";
import { runFile } from "../../logs/runDir.js";

/** The manifest's `usage` (documented in src/logs/schema.ts). */
export type UsageTotals = UsageRecord & Required<Pick<UsageRecord, "tokens_counted_by" | "retries">> & { spent_usd: number | null; spent_tokens_in: number };

/** calls.jsonl's whole lines, in order (a damaged line left out, counted in `damaged`): read once for the usage and the quality. */
export function readCallLines(runDirectory: string, damaged: { lines: number } = { lines: 0 }): CallRecord[] {
  return readRunFile(runFile(runDirectory, "calls"), CallRecord, { damaged: () => damaged.lines++ }).lines.map((l) => l.value);
}

/**
 * calls.jsonl is an audit log read after every call was made: a damaged line in it (a full disk, a
 * hand edit) is left out of the totals rather than losing the run's summary and its manifest's end
 * (`damaged` counts them, for the caller to say).
 */
export function summarizeCalls(runDirectory: string, damaged: { lines: number } = { lines: 0 }, calls: readonly CallRecord[] = readCallLines(runDirectory, damaged)): UsageTotals {
  const t: UsageTotals = {
    calls: 0,
    failed_calls: 0,
    cached_calls: 0,
    tokens_in: 0,
    tokens_out: 0,
    tokens_cached: 0,
    cost_usd: null,
    tokens_counted_by: {},
    retries: 0,
    spent_usd: null,
    spent_tokens_in: 0,
  };
  for (const c of calls) {
    t.calls++;
    if (c.error !== null) t.failed_calls++;
    if (c.cached) t.cached_calls++;
    t.tokens_in += c.tokens_in;
    t.tokens_out += c.tokens_out;
    t.tokens_cached += c.tokens_cached ?? 0;
    if (c.cost_usd !== null) t.cost_usd = (t.cost_usd ?? 0) + c.cost_usd;
    if (c.cost_usd !== null && !c.cached) t.spent_usd = (t.spent_usd ?? 0) + c.cost_usd;
    if (!c.cached) t.spent_tokens_in += c.tokens_in;
    t.retries += c.retries;
    const by = (c as { tokens_counted_by?: unknown }).tokens_counted_by;
    if (typeof by === "string") t.tokens_counted_by[by] = (t.tokens_counted_by[by] ?? 0) + 1;
  }
  return t;
}
