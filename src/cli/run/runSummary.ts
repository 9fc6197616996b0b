/**
 * The end of `s3gym run` (endpoints.md, "While it runs and after"): per run the status, y0 -> the
 * last valid checkpoint and Avg (the same curve metrics as the report's, analysis/metrics/curves.ts), the
 * bad-reply rate, retries, dollars actually spent (cache replays are not spend), tokens (marked when
 * a local tokenizer estimated them); then the totals and the command that builds the tables.
 *
 * `summarizeRun` returns data; the `format*` functions render it. Other commands (reproduce) can
 * render the same objects their own way.
 */
import type { CheckpointRecord } from "../../logs/schema.js";
import { runDir } from "../../logs/runDir.js";
import { curveAvg, curveY0, type CurvePoint } from "../../analysis/metrics/curves.js";

import { join } from "node:path";
import { readRegularText } from "../../util/regularFile.js";
import { formatUsd } from "../../runner/monitor/progress.js";
import type { RunOutcome } from "../../runner/loop/runLoop.js";
import { summarizeCalls } from "../../runner/monitor/usage.js";
import { shellQuote } from "../../util/shellQuote.js";

export interface RunSummary {
  runId: string;
  status: RunOutcome["status"];
  /** Why the run is not complete (the first failed checkpoint's reason, the degenerate verdict, the error). */
  reason: string | null;
  checkpointsOk: number;
  checkpointsTotal: number;
  /** y(0), the last valid checkpoint and Avg over the valid checkpoints; null where none. */
  y0: number | null;
  last: { x: number; y: number } | null;
  avg: number | null;
  calls: number;
  retries: number;
  tokensIn: number;
  tokensOut: number;
  /** Local tokenizers that estimated some counts (the endpoint reported no usage); empty when all were the server's. */
  estimatedBy: string[];
  /** Dollars actually spent (all invocations, replays excluded); null without prices. */
  spentUsd: number | null;
  /** Step replies of the last invocation and the unusable ones; null when not recorded. */
  replies: { replies: number; bad: number } | null;
}

/** The curve of a run's checkpoints: y = the mean of an ok checkpoint, null for a failed one. */
export function curveOf(checkpoints: readonly CheckpointRecord[]): CurvePoint[] {
  return checkpoints.map((c) => ({ x: c.checkpoint, y: c.status === "ok" ? c.mean : null })).sort((a, b) => a.x - b.x);
}

function manifestReplies(dataDir: string, runId: string): RunSummary["replies"] {
  try {
    const m = JSON.parse(readRegularText(join(runDir(dataDir, runId), "manifest.json"))) as { replies?: { replies?: unknown; bad?: unknown } };
    const r = m.replies;
    return r && typeof r.replies === "number" && typeof r.bad === "number" ? { replies: r.replies, bad: r.bad } : null;
  } catch {
    return null;
  }
}

export function summarizeRun(dataDir: string, o: RunOutcome): RunSummary {
  const u = summarizeCalls(runDir(dataDir, o.runId));
  const curve = curveOf(o.checkpoints);
  const valid = curve.filter((p): p is { x: number; y: number } => p.y !== null);
  return {
    runId: o.runId,
    status: o.status,
    reason: o.error ?? o.checkpoints.find((c) => c.status === "failed")?.reason ?? null,
    checkpointsOk: o.checkpoints.filter((c) => c.status === "ok").length,
    checkpointsTotal: o.checkpoints.length,
    y0: curveY0(curve),
    last: valid.at(-1) ?? null,
    avg: curveAvg(curve),
    calls: u.calls,
    retries: u.retries,
    tokensIn: u.tokens_in,
    tokensOut: u.tokens_out,
    estimatedBy: Object.keys(u.tokens_counted_by)
      .filter((k) => k !== "server")
      .sort(),
    spentUsd: u.spent_usd,
    replies: manifestReplies(dataDir, o.runId),
  };
}

const score = (y: number | null): string => (y === null ? "-" : Number.isInteger(y) ? String(y) : y.toFixed(3));

/** `y0 0.100 -> x30 0.400, Avg 0.310` ("-" where a value is missing). */
export function formatScores(s: Pick<RunSummary, "y0" | "last" | "avg">): string {
  return `y0 ${score(s.y0)} -> ${s.last ? `x${s.last.x} ${score(s.last.y)}` : "-"}, Avg ${score(s.avg)}`;
}

function tokens(s: Pick<RunSummary, "tokensIn" | "tokensOut" | "estimatedBy">): string {
  return `${s.tokensIn} in / ${s.tokensOut} out${s.estimatedBy.length > 0 ? ` (estimated with ${s.estimatedBy.join(", ")})` : ""}`;
}

/** One tab-separated line per run (scripts may split on tabs; the reason, if any, is last). */
export function formatRunSummary(s: RunSummary): string {
  const bad = s.replies && s.replies.replies > 0 ? `\t${Math.round((100 * s.replies.bad) / s.replies.replies)}% bad replies` : "";
  const spent = s.spentUsd === null ? "" : ` ${formatUsd(s.spentUsd)} spent`;
  return (
    [s.runId, s.status, `${s.checkpointsOk}/${s.checkpointsTotal || "-"} checkpoints ok`, formatScores(s), `${s.calls} calls, ${s.retries} retries${spent}`, tokens(s)].join("\t") +
    bad +
    (s.reason ? `\t${s.reason}` : "")
  );
}

/** The totals line. */
export function formatTotals(all: readonly RunSummary[]): string {
  const sum = (f: (s: RunSummary) => number) => all.reduce((n, s) => n + f(s), 0);
  const complete = all.filter((s) => s.status === "complete").length;
  const priced = all.some((s) => s.spentUsd !== null);
  const byStatus = ["failed", "degenerate", "partial", "error"].map((st) => [st, all.filter((s) => s.status === st).length] as const).filter(([, n]) => n > 0);
  const others = byStatus.map(([st, n]) => `, ${n} ${st}`).join("");
  const estimated = [...new Set(all.flatMap((s) => s.estimatedBy))].sort();
  return [
    "total",
    `${all.length} runs, ${complete} complete${others}`,
    `${sum((s) => s.calls)} calls, ${sum((s) => s.retries)} retries${priced ? ` ${formatUsd(sum((s) => s.spentUsd ?? 0))} spent` : ""}`,
    tokens({ tokensIn: sum((s) => s.tokensIn), tokensOut: sum((s) => s.tokensOut), estimatedBy: estimated }),
  ].join("\t");
}

/** The command that builds the tables from this data directory. */
export function reportCommand(dataDir: string): string {
  return `s3gym report --data ${shellQuote(dataDir)} --out figures`;
}
