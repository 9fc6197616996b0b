/**
 * Every provider family's usage read right (endpoints.md, "Usage, per provider"): reply bodies shaped
 * as each provider documents them, read through the real openai client and the call log, with the
 * cost computed by hand.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIModel, cachedTokensOf } from "../../src/models/openaiModel.js";
import { ObservedModel, toCallRecord, type CallEvent } from "../../src/models/callLog.js";
import type { CallRecord } from "../../src/logs/schema.js";
import { SENTINEL_KEY, request } from "./helpers.js";

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

/** A server answering every chat with `extra` merged into a fixed completion. */
async function serveReply(extra: Record<string, unknown>): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const body = JSON.stringify({
        id: "x",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "Answer: UP\nScore: 1" }, finish_reason: "stop" }],
        ...extra,
      });
      res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

async function callOnce(extra: Record<string, unknown>, price: { input: number; cached_input?: number; output: number } | null = null): Promise<CallRecord> {
  const url = await serveReply(extra);
  const records: CallRecord[] = [];
  const inner = new OpenAIModel({ spec: "openai:m", model: "m", baseUrl: url, apiKey: SENTINEL_KEY, timeoutMs: 10_000 });
  const m = new ObservedModel(inner, (e: CallEvent) => records.push(toCallRecord(e)), price);
  await m.complete(request({ sampling: { seed: 42 } }));
  expect(records).toHaveLength(1);
  return records[0]!;
}

describe("usage per provider family", () => {
  it("OpenAI: cached_tokens and reasoning_tokens in their own fields, the fingerprint beside the seed", async () => {
    // Shape of the chat completion object in OpenAI's API reference (numbers ours).
    const r = await callOnce(
      {
        system_fingerprint: "fp_44709d6fcb",
        usage: {
          prompt_tokens: 2006,
          completion_tokens: 300,
          total_tokens: 2306,
          prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 256, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
      },
      { input: 1.1, cached_input: 0.275, output: 4.4 },
    );
    expect(r).toMatchObject({ tokens_in: 2006, tokens_out: 300, tokens_cached: 1920, tokens_reasoning: 256, seed: 42, system_fingerprint: "fp_44709d6fcb", tokens_counted_by: "server" });
    // (86 x 1.1 + 1920 x 0.275 + 300 x 4.4) / 1e6 = (94.6 + 528 + 1320) / 1e6
    expect(r.cost_usd).toBeCloseTo(1942.6 / 1e6, 12);
  });

  it("DeepSeek: prompt_cache_hit_tokens is the cached count, billed at the cached price (within 1% of the truth)", async () => {
    // Shape of DeepSeek's chat completion usage (docs: prompt_cache_hit_tokens + prompt_cache_miss_tokens = prompt_tokens).
    const r = await callOnce(
      {
        usage: {
          prompt_tokens: 10_000,
          completion_tokens: 500,
          total_tokens: 10_500,
          prompt_cache_hit_tokens: 9_210,
          prompt_cache_miss_tokens: 790,
          completion_tokens_details: { reasoning_tokens: 420 },
        },
      },
      { input: 0.56, cached_input: 0.07, output: 1.68 },
    );
    expect(r.tokens_cached).toBe(9_210);
    expect(r.tokens_reasoning).toBe(420);
    // True bill: 790 x 0.56 + 9210 x 0.07 + 500 x 1.68 = 442.4 + 644.7 + 840 = 1927.1 (per 1e6).
    const truth = 1927.1 / 1e6;
    expect(Math.abs(r.cost_usd! - truth) / truth).toBeLessThan(0.01);
    // Reading the prompt at the input price (the old reading) would bill 6440: 3.3x the truth.
    expect((10_000 * 0.56 + 500 * 1.68) / 1e6 / truth).toBeGreaterThan(3);
  });

  it("only the miss count: the rest of the prompt was served from the cache", () => {
    expect(cachedTokensOf({ prompt_tokens: 100, prompt_cache_miss_tokens: 30 })).toBe(70);
    expect(cachedTokensOf({ prompt_tokens: 100, prompt_cache_miss_tokens: 130 })).toBeNull();
    expect(cachedTokensOf({ prompt_tokens: 100 })).toBeNull();
  });

  it("vLLM: prompt_tokens_details null is no cached count, no reasoning field", async () => {
    const r = await callOnce({ usage: { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57, prompt_tokens_details: null } });
    expect(r.tokens_cached).toBeNull();
    expect(r).not.toHaveProperty("tokens_reasoning");
    expect(r).not.toHaveProperty("system_fingerprint");
  });

  it("Ollama (OpenAI-compatible): the three counts only", async () => {
    const r = await callOnce({ system_fingerprint: "fp_ollama", usage: { prompt_tokens: 61, completion_tokens: 9, total_tokens: 70 } });
    expect(r).toMatchObject({ tokens_in: 61, tokens_out: 9, tokens_cached: null, system_fingerprint: "fp_ollama" });
    expect(r).not.toHaveProperty("tokens_reasoning");
  });
});
