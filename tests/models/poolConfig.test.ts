/**
 * How a pool is written (a models file's base_url list, --base-url A,B) and resolved, and the pool
 * model's routing of calls over fake endpoint stacks: retries and kinds add up over the endpoints a
 * call tried, and each member has its own limiter (per-endpoint concurrency).
 */
import { describe, expect, it } from "vitest";
import { parseModelsFile } from "../../src/models/modelsFile.js";
import { createModelContext, poolUrls, resolveModel } from "../../src/models/assembleModel.js";
import { PoolModel, failoverHook } from "../../src/models/pool/poolModel.js";
import { PoolRegistry } from "../../src/models/pool/poolRouting.js";
import { AttemptError, RetryingModel } from "../../src/models/retry.js";
import { Limiter, LimitedModel } from "../../src/models/limiter.js";
import type { CompletionRequest, CompletionResult, Model } from "../../src/models/types.js";

describe("writing a pool", () => {
  it("a models-file entry lists its URLs; the resolved model keeps them in order with the hosts as a comma list", () => {
    const entries = parseModelsFile(`models:\n  - alias: q\n    spec: openai:qwen\n    base_url: [http://10.0.0.1:8000/v1, http://10.0.0.2:8000/v1]\n`, "m.yaml");
    const r = resolveModel("q", createModelContext({ models: entries, env: {} }));
    expect(r.baseUrls).toEqual(["http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"]);
    expect(r.baseUrl).toBe("http://10.0.0.1:8000/v1");
    expect(r.endpointHost).toBe("10.0.0.1:8000,10.0.0.2:8000");
  });

  it("an empty list and a list item that is not a URL are refused, naming the field", () => {
    expect(() => parseModelsFile(`models:\n  - alias: q\n    spec: openai:qwen\n    base_url: []\n`, "m.yaml")).toThrow(/base_url/);
    expect(() => parseModelsFile(`models:\n  - alias: q\n    spec: openai:qwen\n    base_url: [http://a/v1, nope]\n`, "m.yaml")).toThrow(/base_url.*1/);
  });

  it("--base-url A,B (or OPENAI_BASE_URL) is a pool; spaces around commas are allowed; one URL is not a pool", () => {
    expect(resolveModel("openai:m", createModelContext({ baseUrl: "http://a:1/v1, http://b:2/v1", env: {} })).baseUrls).toEqual(["http://a:1/v1", "http://b:2/v1"]);
    expect(resolveModel("openai:m", createModelContext({ env: { OPENAI_BASE_URL: "http://a:1/v1,http://b:2/v1" } })).endpointHost).toBe("a:1,b:2");
    expect(resolveModel("openai:m", createModelContext({ baseUrl: "http://a:1/v1", env: {} })).baseUrls).toEqual(["http://a:1/v1"]);
  });

  it("two URLs on one host:port, an empty item and more than 64 URLs are refused", () => {
    expect(() => poolUrls("http://a:1/v1,http://a:1/v2", "--base-url")).toThrow("--base-url: URLs 1 and 2 are both on a:1");
    expect(() => poolUrls("http://a:1/v1,", "--base-url")).toThrow("--base-url (URL 2 of 2): '' is not an http(s) URL");
    expect(() =>
      poolUrls(
        Array.from({ length: 65 }, (_, i) => `http://h${i}:1/v1`),
        "base_url",
      ),
    ).toThrow("65 URLs, at most 64");
    // Different ports of one host are different servers.
    expect(poolUrls("http://a:1/v1,http://a:2/v1", "x")).toHaveLength(2);
  });
});

/** Calls in flight per host, and the most seen per host and in all (`all`). */
const inFlight = new Map<string, number>();
const peak = new Map<string, number>();

/** A fake endpoint stack: answers, or fails every attempt with `fail` while `down()` says so. */
function fakeEndpoint(host: string, down: () => AttemptError | null, seen: string[]): Model {
  return {
    spec: "openai:m",
    endpointHost: host,
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      seen.push(`${host}:${req.identity.runId}`);
      inFlight.set(host, (inFlight.get(host) ?? 0) + 1);
      peak.set(host, Math.max(peak.get(host) ?? 0, inFlight.get(host)!));
      peak.set(
        "all",
        Math.max(
          peak.get("all") ?? 0,
          [...inFlight.values()].reduce((a, b) => a + b, 0),
        ),
      );
      await new Promise((r) => setTimeout(r, 10));
      inFlight.set(host, inFlight.get(host)! - 1);
      const e = down();
      if (e) throw e;
      return { text: `from ${host}`, reasoning: null, finishReason: "stop", usage: { tokensIn: 1, tokensOut: 1, tokensCached: null }, latencyMs: 0, cached: false, retries: 0 };
    },
  };
}

const req = (runId: string): CompletionRequest => ({
  messages: [{ role: "user", content: "x" }],
  sampling: {},
  identity: { runId, purpose: "step", phase: "explore", checkpoint: null, episode: 1, step: 0, sample: 0 },
});

describe("the pool model", () => {
  function pool(fail: Record<string, AttemptError | null>, limit = 4) {
    const reg = new PoolRegistry(() => 0);
    const ids = ["h1:8001/v1", "h2:8002/v1", "h3:8003/v1"];
    const router = reg.router(ids);
    const seen: string[] = [];
    const limiters = ids.map(() => new Limiter(limit));
    const members = ids.map((id, i) => {
      const host = id.split("/")[0]!;
      const health = reg.healthOf(id);
      const retry = new RetryingModel(
        fakeEndpoint(host, () => fail[host] ?? null, seen),
        { maxRetries: 3, sleep: async () => {}, onFailedAttempt: failoverHook(health, router, i, reg.now) },
      );
      return { host, health, model: new LimitedModel(retry, limiters[i]!) };
    });
    return { model: new PoolModel(members, router, reg.now), seen, limiters, fail };
  }

  it("a refused connection moves the call at once to the run's next endpoint; the route and the retry add up", async () => {
    // run-A ranks h3, h1, h2 (tests/models/poolRouting.test.ts).
    const p = pool({ "h3:8003": new AttemptError("connection failed", "transport", null, "ECONNREFUSED") });
    const r = await p.model.complete(req("run-A"));
    expect(r.text).toBe("from h1:8001");
    expect(r.route).toEqual({ endpoint: "h1:8001", movedFrom: ["h3:8003"] });
    expect(r.retries).toBe(1);
    expect(r.retryKinds).toEqual(["transport"]);
    expect(p.seen).toEqual(["h3:8003:run-A", "h1:8001:run-A"]);
    // The run's next call goes straight to h1 (no move recorded again).
    const r2 = await p.model.complete(req("run-A"));
    expect(r2.route).toEqual({ endpoint: "h1:8001", movedFrom: [] });
  });

  it("5xx: retried on the same endpoint until FAILURES_TO_DOWN in a row, then moved", async () => {
    const p = pool({ "h3:8003": new AttemptError("HTTP 503", "http_5xx") });
    const r = await p.model.complete(req("run-A"));
    expect(p.seen).toEqual(["h3:8003:run-A", "h3:8003:run-A", "h3:8003:run-A", "h1:8001:run-A"]);
    expect(r.retries).toBe(3);
    expect(r.retryKinds).toEqual(["http_5xx", "http_5xx", "http_5xx"]);
    expect(r.route!.movedFrom).toEqual(["h3:8003"]);
  });

  it("a 4xx is the request's fault: not moved, the call fails with its route", async () => {
    const p = pool({ "h3:8003": new AttemptError("HTTP 400: bad", "http_4xx") });
    await expect(p.model.complete(req("run-A"))).rejects.toMatchObject({ kind: "http_4xx", route: { endpoint: "h3:8003", movedFrom: [] } });
    expect(p.seen).toEqual(["h3:8003:run-A"]);
  });

  it("every endpoint refusing: the last one retries as a single endpoint would, then the call fails naming the route", async () => {
    const refused = new AttemptError("connection failed", "transport", null, "ECONNREFUSED");
    const p = pool({ "h1:8001": refused, "h2:8002": refused, "h3:8003": refused });
    await expect(p.model.complete(req("run-A"))).rejects.toMatchObject({ kind: "transport", route: { endpoint: "h2:8002", movedFrom: ["h3:8003", "h1:8001"] } });
    // h3 once, h1 once, then h2: its first attempt plus 3 retries.
    expect(p.seen).toEqual(["h3:8003:run-A", "h1:8001:run-A", ...Array(4).fill("h2:8002:run-A")]);
  });

  it("each endpoint has its own concurrency limit", async () => {
    const p = pool({}, 1);
    peak.clear();
    // run-A -> h3, run-B -> h1, run-C -> h1, run-D -> h3, two calls each: 4 calls on h3, 4 on h1.
    await Promise.all(["run-A", "run-B", "run-C", "run-D", "run-A", "run-B", "run-C", "run-D"].map((r) => p.model.complete(req(r))));
    expect(p.seen.filter((s) => s.startsWith("h3")).length).toBe(4);
    expect(p.seen.filter((s) => s.startsWith("h1")).length).toBe(4);
    // One at a time on each endpoint, both endpoints at once.
    expect(peak.get("h3:8003")).toBe(1);
    expect(peak.get("h1:8001")).toBe(1);
    expect(peak.get("all")).toBe(2);
  });
});
