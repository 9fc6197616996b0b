import { describe, expect, it } from "vitest";
import { Rng } from "../../src/util/rng.js";
import { AttemptError, backoffDelayMs, kindOfStatus, parseRetryAfter, withRetry, type RetryOptions } from "../../src/models/retry.js";
import { ModelCallError } from "../../src/models/types.js";
import { recordingSleep } from "./helpers.js";

const headers = (h: Record<string, string>) => new Headers(h);

/** An attempt function failing with the given errors in turn, then answering "ok". */
function script(errors: AttemptError[]): { attempt: () => Promise<string>; calls: () => number } {
  let n = 0;
  return {
    calls: () => n,
    attempt: async () => {
      const e = errors[n++];
      if (e) throw e;
      return "ok";
    },
  };
}

function options(over: Partial<RetryOptions> = {}): RetryOptions & { waits: number[] } {
  const { sleep, waits } = recordingSleep();
  return { maxRetries: 3, rng: Rng.fromKey("test"), sleep, label: "openai:m @ host", waits, ...over };
}

describe("classification", () => {
  it("maps statuses to kinds; only 4xx other than 429 is not retryable", () => {
    expect(kindOfStatus(429)).toBe("http_429");
    expect(kindOfStatus(503)).toBe("http_5xx");
    expect(kindOfStatus(400)).toBe("http_4xx");
    expect(kindOfStatus(408)).toBe("http_4xx");
    expect(new AttemptError("x", "http_4xx").retryable).toBe(false);
    for (const k of ["http_429", "http_5xx", "timeout", "transport", "bad_response"] as const) expect(new AttemptError("x", k).retryable).toBe(true);
  });
  it("parses Retry-After as seconds, as an HTTP date, and OpenAI's retry-after-ms", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter(headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(parseRetryAfter(headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 01 Jan 2025 00:00:07 GMT" }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }), now)).toBe(0);
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(parseRetryAfter(headers({}), now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe("withRetry", () => {
  it("honours Retry-After on a 429, then succeeds", async () => {
    const s = script([new AttemptError("HTTP 429", "http_429", 2000)]);
    const o = options();
    await expect(withRetry(s.attempt, o)).resolves.toEqual({ value: "ok", retries: 1, kinds: ["http_429"] });
    expect(o.waits).toHaveLength(1);
    expect(o.waits[0]).toBeGreaterThanOrEqual(2000);
    expect(o.waits[0]).toBeLessThan(2000 + 500);
  });
  it("retries 5xx, timeouts, transport errors and broken bodies", async () => {
    const s = script([new AttemptError("a", "http_5xx"), new AttemptError("b", "timeout"), new AttemptError("c", "transport"), new AttemptError("d", "bad_response")]);
    const o = options({ maxRetries: 4 });
    await expect(withRetry(s.attempt, o)).resolves.toEqual({ value: "ok", retries: 4, kinds: ["http_5xx", "timeout", "transport", "bad_response"] });
    expect(s.calls()).toBe(5);
  });
  it("never retries a 4xx other than 429", async () => {
    const s = script([new AttemptError("HTTP 400: bad request", "http_4xx")]);
    const o = options();
    const err = await withRetry(s.attempt, o).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err).toMatchObject({ kind: "http_4xx", retries: 0 });
    expect((err as Error).message).toMatch(/^openai:m @ host: HTTP 400: bad request \(not retried\)$/);
    expect(s.calls()).toBe(1);
    expect(o.waits).toEqual([]);
  });
  it("gives up after maxRetries with a ModelCallError of the last kind", async () => {
    const s = script(Array.from({ length: 10 }, () => new AttemptError("HTTP 503", "http_5xx")));
    const o = options({ maxRetries: 3 });
    const err = await withRetry(s.attempt, o).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "ModelCallError", kind: "http_5xx", retries: 3 });
    expect(s.calls()).toBe(4);
    expect(o.waits).toHaveLength(3);
  });
  it("maxRetries 0 means one attempt", async () => {
    const s = script([new AttemptError("t", "timeout")]);
    await expect(withRetry(s.attempt, options({ maxRetries: 0 }))).rejects.toMatchObject({ kind: "timeout", retries: 0 });
    expect(s.calls()).toBe(1);
  });
  it("never retries an error that is not an AttemptError (a bug, or a model's answer) and passes it through", async () => {
    let n = 0;
    const boom = new TypeError("bug");
    await expect(
      withRetry(async () => {
        n++;
        throw boom;
      }, options()),
    ).rejects.toBe(boom);
    expect(n).toBe(1);
  });
});

describe("backoff", () => {
  it("is full jitter under an exponentially growing, capped ceiling", () => {
    const err = new AttemptError("x", "http_5xx");
    for (let retry = 0; retry < 8; retry++) {
      const ceiling = Math.min(4000, 100 * 2 ** retry);
      const o = options({ baseDelayMs: 100, maxDelayMs: 4000 });
      const many = Array.from({ length: 200 }, () => backoffDelayMs(retry, err, o));
      for (const d of many) {
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(ceiling);
      }
      // Full jitter spreads over the whole range, not just near the ceiling.
      expect(Math.min(...many)).toBeLessThan(ceiling * 0.2);
      expect(Math.max(...many)).toBeGreaterThan(ceiling * 0.8);
    }
  });
  it("is deterministic for the same seed (no Math.random)", () => {
    const err = new AttemptError("x", "http_5xx");
    const seq = (key: string) => {
      const o = options({ rng: Rng.fromKey(key) });
      return [0, 1, 2, 3].map((r) => backoffDelayMs(r, err, o));
    };
    expect(seq("call-a")).toEqual(seq("call-a"));
    expect(seq("call-a")).not.toEqual(seq("call-b"));
  });
  it("caps an absurd Retry-After", () => {
    const d = backoffDelayMs(0, new AttemptError("x", "http_429", 86_400_000), options({ maxRetryAfterMs: 60_000 }));
    expect(d).toBeGreaterThanOrEqual(60_000);
    expect(d).toBeLessThan(61_000);
  });
});
