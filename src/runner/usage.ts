/** Per-run token and cost totals, summed from calls.jsonl (every call of every invocation). */
import { CallRecord, type UsageRecord } from "../logs/schema.js";
import { readRunFile } from "../logs/reader.js";
import { runFile } from "../logs/runDir.js";

/** The manifest's `usage` (documented in src/logs/schema.ts). */
export type UsageTotals = UsageRecord;

export function summarizeCalls(runDirectory: string): UsageTotals {
  const t: UsageTotals = { calls: 0, failed_calls: 0, cached_calls: 0, tokens_in: 0, tokens_out: 0, tokens_cached: 0, cost_usd: null };
  for (const { value: c } of readRunFile(runFile(runDirectory, "calls"), CallRecord).lines) {
    t.calls++;
    if (c.error !== null) t.failed_calls++;
    if (c.cached) t.cached_calls++;
    t.tokens_in += c.tokens_in;
    t.tokens_out += c.tokens_out;
    t.tokens_cached += c.tokens_cached ?? 0;
    if (c.cost_usd !== null) t.cost_usd = (t.cost_usd ?? 0) + c.cost_usd;
  }
  return t;
}
