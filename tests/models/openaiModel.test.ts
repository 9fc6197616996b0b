import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIModel, maxTokensFieldFor, requestBody, scrubSecret } from "../../src/models/openaiModel.js";
import { AttemptError, RetryingModel } from "../../src/models/retry.js";
import { startServer, type RunningServer, type ServerOptions } from "../../src/builtin/server.js";
import { ModelCallError } from "../../src/models/types.js";
import { SENTINEL_KEY, recordingSleep, request } from "./helpers.js";

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(o: ServerOptions = {}): Promise<{ url: string; bodies: Record<string, unknown>[] }> {
  const bodies: Record<string, unknown>[] = [];
  server = await startServer({ ...o, onRequest: (b) => bodies.push(b as Record<string, unknown>) });
  return { url: server.url, bodies };
}

const model = (url: string, timeoutMs = 10_000) => new OpenAIModel({ spec: "openai:s3gym-heuristic", model: "s3gym-heuristic", baseUrl: url, apiKey: SENTINEL_KEY, timeoutMs });

async function attemptError(p: Promise<unknown>): Promise<AttemptError> {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(AttemptError);
  return e as AttemptError;
}

describe("OpenAIModel against s3gym serve", () => {
  it("answers through the real openai client, with the server's usage", async () => {
    const { url, bodies } = await serve();
    const m = model(url);
    expect(m.endpointHost).toBe(new URL(url).host);
    const r = await m.complete(request({ sampling: { temperature: 0.5, max_tokens: 500, seed: 3, extra_body: { reasoning_effort: "low" } } }));
    expect(r.text).toContain("## Strategies to retain");
    expect(r).toMatchObject({ reasoning: null, finishReason: "stop", cached: false, retries: 0 });
    expect(r.usage.tokensIn).toBeGreaterThan(50);
    expect(r.usage.tokensOut).toBeGreaterThan(5);
    expect(r.usage.tokensCached).toBe(0);
    // What went over the wire: sampling, max_tokens (not an openai.com host), extra_body merged; no key in the body.
    expect(bodies[0]).toMatchObject({ model: "s3gym-heuristic", temperature: 0.5, max_tokens: 500, seed: 3, reasoning_effort: "low" });
    expect(bodies[0]).not.toHaveProperty("max_completion_tokens");
    expect(JSON.stringify(bodies)).not.toContain("SENTINEL");
  });
  it("puts reasoning_content in `reasoning`, never in the text", async () => {
    const { url } = await serve({ reasoning: true });
    const r = await model(url).complete(request());
    expect(r.reasoning).toMatch(/policy\) reading the observation/);
    expect(r.text).not.toContain("reading the observation");
  });
  it("returns an empty answer as data (text ''), not an error", async () => {
    const { url } = await serve({ faultFor: () => "empty" });
    const r = await model(url).complete(request());
    expect(r.text).toBe("");
    expect(r.finishReason).toBe("stop");
  });
  it("reports a length cut-off", async () => {
    const { url } = await serve();
    const r = await model(url).complete(request({ sampling: { max_tokens: 4 } }));
    expect(r.finishReason).toBe("length");
    expect(r.usage.tokensOut).toBeLessThanOrEqual(4);
  });
  it("counts tokens with the tokenizer when the endpoint reports no usage", async () => {
    const { url } = await serve({ omitUsage: true, reasoning: true });
    const r = await model(url).complete(request());
    expect(r.usage.tokensIn).toBeGreaterThan(50);
    expect(r.usage.tokensOut).toBeGreaterThan(5);
    expect(r.usage.tokensCached).toBeNull();
  });
  it("classifies each injected fault", async () => {
    const faults = ["429", "500", "garbage", "timeout"] as const;
    const { url } = await serve({ faultFor: (n) => faults[n] ?? null, retryAfterS: 3, timeoutHoldMs: 5000 });
    const m = model(url, 300);
    const e429 = await attemptError(m.complete(request()));
    expect(e429).toMatchObject({ kind: "http_429", retryAfterMs: 3000 });
    expect((await attemptError(m.complete(request()))).kind).toBe("http_5xx");
    expect((await attemptError(m.complete(request()))).kind).toBe("bad_response");
    expect((await attemptError(m.complete(request()))).kind).toBe("timeout");
    expect((await m.complete(request())).text).toContain("## Strategies to retain");
  });
  it("classifies a prompt the server cannot answer as http_4xx, and a dead endpoint as transport", async () => {
    const { url } = await serve();
    const e = await attemptError(model(url).complete(request({ messages: [{ role: "user", content: "hello" }] })));
    expect(e.kind).toBe("http_4xx");
    expect(e.retryable).toBe(false);
    const port = server!.port;
    await server!.close();
    server = null;
    expect((await attemptError(model(`http://127.0.0.1:${port}/v1`).complete(request()))).kind).toBe("transport");
  });
});

describe("a server that stalls mid-body", () => {
  it("is a timeout, not a hang", async () => {
    const srv = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"choices": ['); // headers sent, then nothing more
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
      expect((await attemptError(model(url, 300).complete(request()))).kind).toBe("timeout");
    } finally {
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    }
  });
  it("a connection dropped after the headers (mid-body) is a transport failure: retried, not a bug", async () => {
    // undici surfaces this as `TypeError: terminated` from the body read, outside the client's own
    // error classes; before the fix it escaped as an `internal` error and ended the whole run.
    const { url: good } = await serve();
    let n = 0;
    const srv = createServer((req, res) => {
      if (n++ === 0) {
        res.writeHead(200, { "content-type": "application/json", "content-length": "400" });
        res.write('{"choices": [');
        setTimeout(() => req.socket.destroy(), 10);
        return;
      }
      // Then behave: forward to the real test server.
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        void fetch(`${good}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) }).then(async (r) => {
          res.writeHead(r.status, { "content-type": "application/json" });
          res.end(await r.text());
        });
      });
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
      const { sleep, waits } = recordingSleep();
      const r = await new RetryingModel(model(url), { maxRetries: 2, sleep }).complete(request());
      expect(r.text).toContain("## Strategies to retain");
      expect(r.retries).toBe(1);
      expect(waits).toHaveLength(1);
      n = 0;
      expect((await attemptError(model(url).complete(request()))).kind).toBe("transport");
    } finally {
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    }
  });
});

describe("retry layer over HTTP", () => {
  it("garbage and 500 faults are retried, then the answer arrives", async () => {
    const { url, bodies } = await serve({ faultFor: (n) => (n === 0 ? "garbage" : n === 1 ? "500" : null) });
    const { sleep, waits } = recordingSleep();
    const r = await new RetryingModel(model(url), { maxRetries: 3, sleep }).complete(request());
    expect(r.text).toContain("## Strategies to retain");
    expect(r.retries).toBe(2);
    expect(waits).toHaveLength(2);
    expect(bodies).toHaveLength(3);
  });
  it("a 429's Retry-After is honoured", async () => {
    const { url } = await serve({ faultFor: (n) => (n === 0 ? "429" : null), retryAfterS: 2 });
    const { sleep, waits } = recordingSleep();
    const r = await new RetryingModel(model(url), { maxRetries: 3, sleep }).complete(request());
    expect(r.retries).toBe(1);
    expect(waits[0]).toBeGreaterThanOrEqual(2000);
  });
  it("exhausted retries end as ModelCallError with the kind, and no key in the message", async () => {
    const { url, bodies } = await serve({ faultFor: () => "500" });
    const { sleep } = recordingSleep();
    const e = await new RetryingModel(model(url), { maxRetries: 2, sleep }).complete(request()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ModelCallError);
    expect(e).toMatchObject({ kind: "http_5xx", retries: 2 });
    expect((e as Error).message).toMatch(/retries exhausted after 2 retries/);
    expect((e as Error).message).not.toContain("SENTINEL");
    expect(bodies).toHaveLength(3);
  });
  it("an empty answer is not retried", async () => {
    const { url, bodies } = await serve({ faultFor: () => "empty" });
    const { sleep } = recordingSleep();
    const r = await new RetryingModel(model(url), { maxRetries: 3, sleep }).complete(request());
    expect(r).toMatchObject({ text: "", retries: 0 });
    expect(bodies).toHaveLength(1);
  });
});

describe("request shaping and scrubbing", () => {
  it("sends max_completion_tokens to OpenAI's own API and max_tokens elsewhere, unless told", () => {
    expect(maxTokensFieldFor("https://api.openai.com/v1")).toBe("max_completion_tokens");
    expect(maxTokensFieldFor("http://127.0.0.1:8000/v1")).toBe("max_tokens");
    expect(maxTokensFieldFor("http://127.0.0.1:8000/v1", "max_completion_tokens")).toBe("max_completion_tokens");
    expect(requestBody("m", request({ sampling: { max_tokens: 9 } }), "max_completion_tokens")).toMatchObject({ max_completion_tokens: 9 });
  });
  it("scrubs the key and anything shaped like one", () => {
    const s = scrubSecret(`Incorrect API key provided: ${SENTINEL_KEY}. Authorization: Bearer abc.def sk-proj-1234567890`, SENTINEL_KEY);
    expect(s).not.toContain("SENTINEL");
    expect(s).not.toContain("abc.def");
    expect(s).not.toContain("1234567890");
  });
});
