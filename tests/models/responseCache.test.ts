import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CachedModel, ResponseCache, cacheKey, type CacheKeyInput } from "../../src/models/cache/responseCache.js";
import { AttemptError } from "../../src/models/retry.js";
import type { CompletionRequest, CompletionResult, Model } from "../../src/models/types.js";
import { identity, request, summaryMessages } from "./helpers.js";

const base: CacheKeyInput = {
  endpoint: "127.0.0.1:8000/v1",
  model: "m",
  messages: summaryMessages(),
  sampling: { temperature: 0.7, max_tokens: 100, extra_body: { reasoning_effort: "low" } },
  identity: identity(),
};

/** A model that answers with a counter, or fails while `failing` is set. */
class CountingModel implements Model {
  spec = "openai:m";
  endpointHost = "127.0.0.1:8000";
  calls = 0;
  failing = false;
  async complete(_r: CompletionRequest): Promise<CompletionResult> {
    this.calls++;
    if (this.failing) throw new AttemptError("HTTP 503", "http_5xx");
    return { text: `answer ${this.calls}`, reasoning: "thought", finishReason: "stop", usage: { tokensIn: 10, tokensOut: 3, tokensCached: 4 }, latencyMs: 12, cached: false, retries: 2 };
  }
}

const tmp = () => mkdtempSync(join(tmpdir(), "s3gym-cache-"));

describe("cache key", () => {
  it("is stable under key order and changes with every part of the call", () => {
    const k = cacheKey(base);
    expect(cacheKey({ ...base, sampling: { extra_body: { reasoning_effort: "low" }, max_tokens: 100, temperature: 0.7 } })).toBe(k);
    const variants: CacheKeyInput[] = [
      { ...base, identity: identity({ step: 1 }) },
      { ...base, identity: identity({ sample: 1 }) },
      { ...base, identity: identity({ episode: 2 }) },
      { ...base, identity: identity({ runId: "other-run" }) },
      { ...base, identity: identity({ purpose: "summary" }) },
      { ...base, identity: identity({ phase: "eval", checkpoint: 3 }) },
      { ...base, endpoint: "api.openai.com/v1" },
      { ...base, model: "m2" },
      { ...base, messages: [...base.messages.slice(0, -1), { role: "user", content: base.messages.at(-1)!.content + " " }] },
      { ...base, sampling: { ...base.sampling, temperature: 0.8 } },
      { ...base, sampling: { ...base.sampling, seed: 1 } },
      { ...base, sampling: { ...base.sampling, extra_body: { reasoning_effort: "high" } } },
    ];
    const keys = new Set([k, ...variants.map(cacheKey)]);
    expect(keys.size).toBe(variants.length + 1);
  });
});

describe("CachedModel", () => {
  it("misses, stores, then replays exactly with cached=true and latency 0", async () => {
    const inner = new CountingModel();
    const m = new CachedModel(inner, new ResponseCache(tmp()), { endpoint: "e", model: "m" });
    const first = await m.complete(request());
    expect(first).toMatchObject({ text: "answer 1", cached: false, latencyMs: 12, retries: 2 });
    const again = await m.complete(request());
    expect(inner.calls).toBe(1);
    expect(again).toEqual({ ...first, cached: true, latencyMs: 0, retries: 0 });
  });
  it("a different step or sample index is a different call", async () => {
    const inner = new CountingModel();
    const m = new CachedModel(inner, new ResponseCache(tmp()), { endpoint: "e", model: "m" });
    await m.complete(request({ identity: identity({ step: 0 }) }));
    expect((await m.complete(request({ identity: identity({ step: 1 }) }))).cached).toBe(false);
    expect((await m.complete(request({ identity: identity({ step: 0, sample: 1 }) }))).cached).toBe(false);
    expect((await m.complete(request({ identity: identity({ step: 0 }) }))).cached).toBe(true);
    expect(inner.calls).toBe(3);
  });
  it("never caches an error", async () => {
    const dir = tmp();
    const inner = new CountingModel();
    const m = new CachedModel(inner, new ResponseCache(dir), { endpoint: "e", model: "m" });
    inner.failing = true;
    await expect(m.complete(request())).rejects.toBeInstanceOf(AttemptError);
    expect(readdirSync(dir)).toEqual([]);
    inner.failing = false;
    expect((await m.complete(request())).cached).toBe(false);
    expect(inner.calls).toBe(2);
  });
  it("writes one sharded file per key, with no temporary files left, and treats a corrupt entry as a miss", async () => {
    const dir = tmp();
    const cache = new ResponseCache(dir);
    const inner = new CountingModel();
    const m = new CachedModel(inner, cache, { endpoint: "e", model: "m" });
    await m.complete(request());
    const key = cacheKey({ endpoint: "e", model: "m", messages: request().messages, sampling: {}, identity: request().identity });
    const file = cache.pathOf(key);
    expect(existsSync(file)).toBe(true);
    expect(readdirSync(dir)).toEqual([key.slice(0, 2)]);
    expect(readdirSync(join(dir, key.slice(0, 2)))).toEqual([`${key}.json`]);
    writeFileSync(file, '{"format": 1, "key": "'); // torn by hand
    expect((await m.complete(request())).cached).toBe(false);
    expect((await m.complete(request())).cached).toBe(true);
  });
});
