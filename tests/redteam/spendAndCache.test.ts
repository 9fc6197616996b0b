/**
 * Red team, items 7 and 8 of issue 12: money spent is reported apart from replayed answers, and a
 * response cache that cannot be written costs a warning, not the run or the paid answer's usage.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { runDir } from "../../src/logs/runDir.js";
import { ObservedModel } from "../../src/models/callLog.js";
import { CachedModel, ResponseCache } from "../../src/models/cache/responseCache.js";
import type { CompletionResult, Model } from "../../src/models/types.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { summarizeCalls } from "../../src/runner/monitor/usage.js";
import { lines } from "../runner/helpers.js";
import { identity, request } from "../models/helpers.js";

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: "EMPTY" }, ...io }), io);
  return { code, out: out.join(""), err: err.join("") };
}

describe("spend after a resume", () => {
  it("replayed calls are not counted as spent, in manifest.usage and in the summary", async () => {
    server = await startServer({});
    const data = mkdtempSync(join(tmpdir(), "s3spend-"));
    const models = join(data, "models.json");
    writeFileSync(models, JSON.stringify({ models: [{ alias: "priced", spec: "openai:s3gym-heuristic", base_url: server.url, price: { input: 1, output: 2 } }] }));
    const argv = [
      "--models",
      "priced",
      "--models-file",
      models,
      "--games",
      "snake",
      "--pathways",
      "history",
      "--data",
      data,
      "--explore-episodes",
      "2",
      "--checkpoint-every",
      "2",
      "--eval-episodes",
      "1",
      "--max-steps",
      "3",
      "--progress",
      "off",
    ];
    const first = await cli(argv);
    expect(first.code).toBe(0);
    const dir = runDir(data, buildMatrix(["priced"], ["snake"], ["history"], 0)[0]!.runId);
    const paid = summarizeCalls(dir);
    expect(paid.cached_calls).toBe(0);
    expect(paid.spent_usd).toBeCloseTo(paid.cost_usd!, 12);
    // Lose the episodes: the rerun replays every answer from the cache.
    writeFileSync(join(dir, "episodes.jsonl"), "");
    const second = await cli(argv);
    expect(second.code).toBe(0);
    const calls = lines<{ cached: boolean; cost_usd: number | null }>(dir, "calls.jsonl");
    const byHand = (cached: boolean) => calls.filter((c) => c.cached === cached).reduce((n, c) => n + (c.cost_usd ?? 0), 0);
    expect(calls.some((c) => c.cached)).toBe(true);
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { usage: { cost_usd: number; spent_usd: number; cached_calls: number } };
    // spent_usd: only the calls the endpoint answered; cost_usd: their value with the replays.
    expect(manifest.usage.spent_usd).toBeCloseTo(byHand(false), 12);
    expect(manifest.usage.spent_usd).toBeCloseTo(paid.cost_usd!, 12);
    expect(manifest.usage.cost_usd).toBeCloseTo(byHand(false) + byHand(true), 12);
    expect(manifest.usage.cached_calls).toBe(calls.filter((c) => c.cached).length);
    expect(second.out).toContain(`$${paid.cost_usd!.toFixed(4)} spent`);
  });
});

/** Answers with fixed usage, counting its calls. */
class Fixed implements Model {
  readonly spec = "fixed";
  readonly endpointHost = "fixed";
  calls = 0;
  async complete(): Promise<CompletionResult> {
    this.calls++;
    return { text: "Answer: UP\nScore: 1", reasoning: null, finishReason: "stop", usage: { tokensIn: 100, tokensOut: 10, tokensCached: null }, latencyMs: 1, cached: false, retries: 0 };
  }
}

describe("a response cache that cannot be written", () => {
  for (const [what, make] of [
    [
      "ENOTDIR (the cache path is a file)",
      (root: string) => {
        const p = join(root, "cache");
        writeFileSync(p, "not a directory");
        return p;
      },
    ],
  ] as const) {
    it(`${what}: one warning, the answer kept with its real tokens and cost, calls go on`, async () => {
      const root = mkdtempSync(join(tmpdir(), "s3cachefail-"));
      const dir = make(root);
      const warnings: string[] = [];
      const inner = new Fixed();
      const events: { tokens_in: number; cost_usd: number | null; error: string | null }[] = [];
      const model = new ObservedModel(new CachedModel(inner, new ResponseCache(dir, (m) => warnings.push(m)), { endpoint: "e", model: "m" }), (e) => events.push(e.measured), { input: 1, output: 2 });
      for (let step = 0; step < 3; step++) {
        const r = await model.complete(request({ identity: identity({ step }) }));
        expect(r.text).toBe("Answer: UP\nScore: 1");
      }
      expect(inner.calls).toBe(3);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/response cache .*: cannot write an entry \((ENOTDIR|EACCES)\); continuing without caching/);
      expect(events.map((e) => [e.tokens_in, e.error])).toEqual([
        [100, null],
        [100, null],
        [100, null],
      ]);
      expect(events[0]!.cost_usd).toBeCloseTo((100 * 1 + 10 * 2) / 1e6, 15);
      rmSync(root, { recursive: true, force: true });
    });
  }
});

describe("usage that cannot be true", () => {
  it("cached prompt tokens above the prompt tokens are dropped and flagged, never billed", async () => {
    const inner: Model = {
      spec: "x",
      endpointHost: "x",
      complete: async () => ({ text: "t", reasoning: null, finishReason: "stop", usage: { tokensIn: 10, tokensOut: 1, tokensCached: 50 }, latencyMs: 1, cached: false, retries: 0 }),
    };
    const seen: Record<string, unknown>[] = [];
    await new ObservedModel(inner, (e) => seen.push(e.measured), { input: 1, output: 1, cached_input: 0 }).complete(request());
    expect(seen[0]).toMatchObject({ tokens_in: 10, tokens_cached: null, usage_note: "endpoint reported 50 cached prompt tokens of 10; cached count ignored" });
    expect(seen[0]!.cost_usd).toBeCloseTo(11 / 1e6, 15);
  });
});
