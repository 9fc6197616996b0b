/** The end-of-run summary, on hand-written logs with hand-computed numbers. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatRunSummary, formatTotals, reportCommand, summarizeRun } from "../../src/cli/run/runSummary.js";
import type { CheckpointRecord } from "../../src/logs/schema.js";
import { runDir } from "../../src/logs/runDir.js";

const id = { run_id: "r1", model: "m", game: "snake", pathway: "history" };
const cp = (checkpoint: number, mean: number | null): CheckpointRecord => ({
  ...id,
  checkpoint,
  scores: mean === null ? [] : [mean],
  mean,
  status: mean === null ? "failed" : "ok",
  reason: mean === null ? "evaluation episode 0 failed: http_5xx" : null,
});
const call = (o: { cached: boolean; cost: number; retries: number; by?: string }) =>
  JSON.stringify({
    run_id: "r1",
    purpose: "step",
    phase: "eval",
    checkpoint: 0,
    episode: 0,
    step: 0,
    tokens_in: 100,
    tokens_out: 10,
    tokens_cached: null,
    latency_ms: 1,
    retries: o.retries,
    cached: o.cached,
    error: null,
    cost_usd: o.cost,
    ...(o.by ? { tokens_counted_by: o.by } : {}),
  });

describe("run summary", () => {
  it("y0 -> last valid checkpoint, Avg over valid checkpoints, dollars actually spent (replays excluded), retries", () => {
    const data = mkdtempSync(join(tmpdir(), "s3sum-"));
    const dir = runDir(data, "r1");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "calls.jsonl"),
      [call({ cached: true, cost: 0.5, retries: 0, by: "server" }), call({ cached: false, cost: 0.1, retries: 1, by: "server" }), call({ cached: false, cost: 0.2, retries: 2, by: "o200k" })].join(
        "\n",
      ) + "\n",
    );
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ replies: { replies: 40, bad: 6 } }));
    const s = summarizeRun(data, { runId: "r1", status: "failed", checkpoints: [cp(0, 0.1), cp(3, null), cp(6, 0.4)], error: null });
    // y0 = 0.1; last valid = x6 0.4; Avg = (0.1 + 0.4) / 2 = 0.25; spent = 0.1 + 0.2; retries 3.
    expect(s).toMatchObject({ y0: 0.1, last: { x: 6, y: 0.4 }, avg: 0.25, retries: 3, calls: 3, estimatedBy: ["o200k"], replies: { replies: 40, bad: 6 } });
    expect(s.spentUsd).toBeCloseTo(0.3, 12);
    const line = formatRunSummary(s);
    expect(line).toBe(
      "r1\tfailed\t2/3 checkpoints ok\ty0 0.100 -> x6 0.400, Avg 0.250\t3 calls, 3 retries $0.3000 spent\t300 in / 30 out (estimated with o200k)\t15% bad replies\tevaluation episode 0 failed: http_5xx",
    );
    expect(formatTotals([s, { ...s, status: "complete", spentUsd: 1, estimatedBy: [] }])).toBe(
      "total\t2 runs, 1 complete, 1 failed\t6 calls, 6 retries $1.3000 spent\t600 in / 60 out (estimated with o200k)",
    );
  });

  it("a run with no valid checkpoint shows dashes; the report command quotes odd paths", () => {
    const data = mkdtempSync(join(tmpdir(), "s3sum-"));
    const s = summarizeRun(data, { runId: "r2", status: "error", checkpoints: [], error: "locked" });
    expect(formatRunSummary(s)).toBe("r2\terror\t0/- checkpoints ok\ty0 - -> -, Avg -\t0 calls, 0 retries\t0 in / 0 out\tlocked");
    expect(reportCommand("/data/gpt")).toBe("s3gym report --data /data/gpt --out figures");
    expect(reportCommand("/my data/it's")).toBe("s3gym report --data '/my data/it'\\''s' --out figures");
  });
});
