import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { CallRecord } from "../../src/logs/schema.js";
import { toCallRecord, type CallEvent } from "../../src/models/callLog.js";
import { createModelContext, mergeSampling, validateModelSpecs, type ModelContext } from "../../src/models/assembleModel.js";
import { createModel } from "../../src/runner/createModel.js";
import { parseModelsFile } from "../../src/models/modelsFile.js";
import { startServer, type RunningServer, type ServerOptions } from "../../src/builtin/server.js";
import { ModelCallError } from "../../src/models/types.js";
import { SENTINEL_KEY, identity, recordingSleep, request } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function serve(o: ServerOptions = {}): Promise<RunningServer & { bodies: Record<string, unknown>[]; peak: () => number }> {
  const bodies: Record<string, unknown>[] = [];
  let inFlight = 0;
  let peak = 0;
  const s = await startServer({
    ...o,
    onRequest: (b) => {
      bodies.push(b as Record<string, unknown>);
      peak = Math.max(peak, ++inFlight);
    },
    log: () => void inFlight--,
  });
  closers.push(() => s.close());
  return { ...s, bodies, peak: () => peak };
}

/** Every file under a directory, concatenated. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
}

function ctx(over: Partial<ModelContext> = {}): ModelContext & { events: CallEvent[]; waits: number[] } {
  const events: CallEvent[] = [];
  const { sleep, waits } = recordingSleep();
  const c = createModelContext({ env: { OPENAI_API_KEY: SENTINEL_KEY }, onCall: (e) => events.push(e), sleep, maxRetries: 3, timeoutMs: 5000, ...over });
  return Object.assign(c, { events, waits });
}

const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected an error");
};

describe("validateModelSpecs (fails fast, before any call)", () => {
  it("rejects an unknown scheme, naming the valid ones", () => {
    expect(errorOf(() => validateModelSpecs(["anthropic:claude"], ctx()))).toMatch(/unknown scheme 'anthropic'.*openai:<model>.*builtin:/);
  });
  it("names the variable to set when a key is missing, and never prints a key", () => {
    const c = ctx({ env: { SOME_OTHER: SENTINEL_KEY } });
    const msg = errorOf(() => validateModelSpecs(["openai:gpt-4o-mini"], c));
    expect(msg).toMatch(/set the environment variable OPENAI_API_KEY/);
    const msg2 = errorOf(() => validateModelSpecs(["openai:gpt-4o-mini"], { ...c, apiKeyEnv: "MY_KEY" }));
    expect(msg2).toMatch(/set the environment variable MY_KEY/);
    expect(msg + msg2).not.toContain("SENTINEL");
    expect(() => validateModelSpecs(["builtin:heuristic"], c)).not.toThrow(); // builtins need no key
    expect(() => validateModelSpecs(["openai:x"], ctx({ env: { OPENAI_API_KEY: "" } }))).toThrow(/OPENAI_API_KEY/);
  });
  it("rejects bad numbers and base URLs, naming the flag, and lists every problem at once", () => {
    const msg = errorOf(() => validateModelSpecs(["openai:m", "nope"], ctx({ maxRetries: -1, concurrency: 0, timeoutMs: Number.NaN, baseUrl: "not a url" })));
    expect(msg).toMatch(/^5 configuration problems/);
    for (const s of ["--max-retries", "--concurrency", "--timeout-ms", "--base-url", "model 'nope' has no scheme"]) expect(msg).toContain(s);
    expect(errorOf(() => validateModelSpecs([], ctx()))).toMatch(/--models is empty/);
  });
  it("resolves aliases of the models file, with their key variable and endpoint", () => {
    const models = parseModelsFile(
      "models:\n  - alias: local\n    spec: openai:s3gym-random\n    base_url: http://127.0.0.1:9/v1\n    api_key_env: LOCAL_KEY\n  - alias: bad\n    spec: foo:bar\n",
      "m.yaml",
    );
    const c = ctx({ models, env: { LOCAL_KEY: "x" } });
    const [r] = validateModelSpecs(["local"], c);
    expect(r).toMatchObject({ name: "local", spec: { scheme: "openai", model: "s3gym-random" }, endpointHost: "127.0.0.1:9", apiKeyEnv: "LOCAL_KEY" });
    expect(JSON.stringify(r)).not.toContain('"x"');
    expect(errorOf(() => validateModelSpecs(["bad"], c))).toMatch(/models file entry 'bad': spec: .*unknown scheme 'foo'/);
    expect(errorOf(() => validateModelSpecs(["unknown"], c))).toMatch(/alias of the models file: local, bad/);
    expect(errorOf(() => createModel("openai:m", ctx({ env: {} })))).toMatch(/OPENAI_API_KEY/);
  });
  it("reads OPENAI_BASE_URL when --base-url is absent", () => {
    const c = createModelContext({ env: { OPENAI_BASE_URL: "http://127.0.0.1:1234/v1", OPENAI_API_KEY: "k" } });
    expect(validateModelSpecs(["openai:m"], c)[0]!.endpointHost).toBe("127.0.0.1:1234");
    expect(validateModelSpecs(["openai:m"], createModelContext({ env: { OPENAI_API_KEY: "k" } }))[0]!.endpointHost).toBe("api.openai.com");
  });
});

describe("createModel", () => {
  it("composes cache -> limiter -> retry -> openai, and reports each call", async () => {
    const s = await serve({ faultFor: (n) => (n === 0 ? "garbage" : n === 1 ? "500" : null) });
    const cacheDir = mkdtempSync(join(tmpdir(), "s3gym-cm-"));
    const c = ctx({ baseUrl: s.url, cacheDir });
    const m = createModel("openai:s3gym-heuristic", c);
    expect(m).toMatchObject({ spec: "openai:s3gym-heuristic", endpointHost: new URL(s.url).host });
    const first = await m.complete(request());
    expect(first).toMatchObject({ cached: false, retries: 2 });
    const again = await createModel("openai:s3gym-heuristic", c).complete(request());
    expect(again).toMatchObject({ cached: true, latencyMs: 0, text: first.text });
    expect(s.bodies).toHaveLength(3); // the replay never reached the server
    expect(c.events.map((e) => [e.measured.cached, e.measured.retries, e.measured.error])).toEqual([
      [false, 2, null],
      [true, 0, null],
    ]);
    const rec = CallRecord.parse(toCallRecord(c.events[0]!));
    expect(rec).toMatchObject({ run_id: "run-test", purpose: "summary", phase: "explore", episode: 1, step: 0, sample: 0, finish_reason: "stop", cost_usd: null });
    expect(rec.tokens_in).toBeGreaterThan(0);
    // --no-cache: straight to the server.
    await createModel("openai:s3gym-heuristic", { ...c, cacheDir: null }).complete(request());
    expect(s.bodies).toHaveLength(4);
  });
  it("records a failure after retries with its kind, and caches nothing", async () => {
    const s = await serve({ faultFor: () => "429", retryAfterS: 1 });
    const cacheDir = mkdtempSync(join(tmpdir(), "s3gym-cm-"));
    const c = ctx({ baseUrl: s.url, cacheDir, maxRetries: 2 });
    const e = await createModel("openai:x", c)
      .complete(request())
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ModelCallError);
    expect(e).toMatchObject({ kind: "http_429", retries: 2 });
    expect(c.waits.every((w) => w >= 1000)).toBe(true);
    expect(c.events).toHaveLength(1);
    expect(c.events[0]!.measured).toMatchObject({ error: "http_429", retries: 2, cached: false, cost_usd: null });
    expect(CallRecord.safeParse(toCallRecord(c.events[0]!)).success).toBe(true);
    expect(readdirSync(cacheDir)).toEqual([]);
  });
  it("applies an alias's sampling, extra_body and price", async () => {
    const s = await serve();
    const models = parseModelsFile(
      JSON.stringify({
        models: [
          {
            alias: "cheap",
            spec: "openai:s3gym-random",
            base_url: s.url,
            sampling: { temperature: 0.2, max_tokens: 300, extra_body: { reasoning_effort: "low" } },
            price: { input: 1, output: 2 },
            max_tokens_param: "max_completion_tokens",
          },
        ],
      }),
      "m.json",
    );
    const c = ctx({ models });
    const m = createModel("cheap", c);
    expect(m.spec).toBe("cheap");
    await m.complete(request({ sampling: { temperature: 1, top_p: 0.5, max_tokens: 14000, extra_body: { keep: true } } }));
    expect(s.bodies[0]).toMatchObject({ model: "s3gym-random", temperature: 0.2, top_p: 0.5, max_completion_tokens: 300, reasoning_effort: "low", keep: true });
    const { tokens_in, tokens_out, cost_usd } = c.events[0]!.measured;
    expect(cost_usd).toBeCloseTo((tokens_in * 1 + tokens_out * 2) / 1e6, 12);
    expect(c.events[0]!.model).toBe("cheap");
  });
  it("keeps calls in flight per endpoint within --concurrency", async () => {
    const s = await serve({ latencyMs: 30 });
    const c = ctx({ baseUrl: s.url, concurrency: 2 });
    const a = createModel("openai:s3gym-heuristic", c);
    const b = createModel("openai:s3gym-random", c); // same endpoint and key: same limiter
    await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).complete(request({ identity: identity({ step: i }) }))));
    expect(s.bodies).toHaveLength(8);
    expect(s.peak()).toBe(2);
    expect(c.limiters.size).toBe(1);
  });
  it("builtin models answer in-process and are reported too", async () => {
    const c = ctx({ env: {} });
    const m = createModel("builtin:heuristic", c);
    expect(m.endpointHost).toBe("builtin");
    const r = await m.complete(request());
    expect(r.text).toContain("## Strategies to retain");
    expect(c.events[0]!.measured).toMatchObject({ tokens_in: 0, error: null, cached: false });
  });
  it("merges sampling field by field, the models-file entry winning", () => {
    expect(mergeSampling({ temperature: 1, max_tokens: 5, extra_body: { a: 1, b: 1 } }, { max_tokens: 9, extra_body: { b: 2 } })).toEqual({
      temperature: 1,
      max_tokens: 9,
      extra_body: { a: 1, b: 2 },
    });
    expect(mergeSampling({ temperature: 1 }, {})).toEqual({ temperature: 1 });
  });
});

describe("the API key never leaks", () => {
  /** A hostile endpoint that echoes the Authorization header in its error bodies, as some providers do. */
  async function echoingServer(status: number): Promise<string> {
    const srv: Server = createServer((req, res) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization}`, type: "invalid_request_error" } }));
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    closers.push(
      () =>
        new Promise((r) => {
          srv.close(() => r());
          srv.closeAllConnections();
        }),
    );
    return `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
  }

  it("appears in no error message, cache file, call record or model dump", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "s3gym-secret-"));
    const outputs: string[] = [];
    for (const status of [401, 503]) {
      const c = ctx({ baseUrl: await echoingServer(status), cacheDir, maxRetries: 1 });
      const e = await createModel("openai:m", c)
        .complete(request())
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ModelCallError);
      outputs.push((e as Error).message, (e as Error).stack ?? "", inspect(e, { depth: 20 }), JSON.stringify(c.events.map(toCallRecord)));
    }
    expect(outputs.join("\n")).toContain("[redacted]"); // the echo was there, and was scrubbed
    const s = await serve({ faultRate: 0.5, faults: ["429", "500", "garbage", "empty"], seed: 7, retryAfterS: 0 });
    const c = ctx({ baseUrl: s.url, cacheDir, maxRetries: 10 });
    const m = createModel("openai:s3gym-heuristic", c);
    for (let step = 0; step < 6; step++) await m.complete(request({ identity: identity({ step }) }));
    outputs.push(JSON.stringify(c.events.map(toCallRecord)), JSON.stringify(m), inspect(m, { depth: 20, showHidden: true }), allText(cacheDir));
    expect(allText(cacheDir).length).toBeGreaterThan(0);
    expect(outputs.join("\n")).not.toContain("SENTINEL");
    expect(JSON.stringify(s.bodies)).not.toContain("SENTINEL");
  });
});
