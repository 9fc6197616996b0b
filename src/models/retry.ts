/**
 * Retries for infrastructure failures only (architecture.md, "Retries"): transport errors, timeouts,
 * HTTP 429 and 5xx, and bodies that are not a chat completion at all. Never a 4xx other than 429
 * (the request is wrong; repeating it cannot help) and never a well-formed answer whose text is
 * malformed (that is the model's answer: data for the step log).
 *
 * Backoff: exponential with full jitter, the jitter drawn from a generator seeded by the call's
 * identity, so a rerun waits the same way. A Retry-After header is honoured (never retried sooner).
 */
import { Rng } from "../util/rng.js";
import { canonicalJson } from "../util/canonicalJson.js";
import { ModelCallError, type CompletionRequest, type CompletionResult, type Model } from "./types.js";

/**
 * Error classes recorded in calls.jsonl. `protocol`: a well-formed 200 that breaks the chat
 * completion contract in a way a retry cannot fix (content that is an array of parts or a number).
 */
export type FailureKind = "http_429" | "http_5xx" | "http_4xx" | "timeout" | "transport" | "bad_response" | "protocol";

/** One failed attempt, already classified (and already scrubbed of secrets) by the adapter. */
export class AttemptError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    /** Milliseconds the server asked us to wait (Retry-After), or null. */
    readonly retryAfterMs: number | null = null,
    /** The network error code behind a transport failure (`ECONNREFUSED`, ...), or null: a pool reads it. */
    readonly networkCode: string | null = null,
  ) {
    super(message);
    this.name = "AttemptError";
  }

  get retryable(): boolean {
    return this.kind !== "http_4xx" && this.kind !== "protocol";
  }
}

/** The failure kind of an HTTP status that is not a success. */
export function kindOfStatus(status: number): FailureKind {
  if (status === 429) return "http_429";
  if (status >= 500) return "http_5xx";
  return "http_4xx";
}

/**
 * Milliseconds from a Retry-After value: delta-seconds ("2", "0.5") or an HTTP date. Also reads
 * OpenAI's `retry-after-ms`. Null when absent or unparsable; never negative.
 */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, nowMs: number): number | null {
  if (!headers) return null;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const v = headers.get("retry-after")?.trim();
  if (!v) return null;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

export interface RetryOptions {
  /** Retries after the first attempt (0 = one attempt only). */
  maxRetries: number;
  /** First backoff ceiling; doubles each retry. */
  baseDelayMs?: number;
  /** Ceiling of the exponential backoff. */
  maxDelayMs?: number;
  /** A Retry-After beyond this is capped, so a confused server cannot stall a run for hours. */
  maxRetryAfterMs?: number;
  /** Seeded per call identity; the only source of jitter. */
  rng: Rng;
  sleep: (ms: number) => Promise<void>;
  /** Prefix of the final error message, e.g. `openai:gpt-4o-mini @ api.openai.com`. */
  label: string;
  /** Told before a wait longer than LONG_WAIT_MS (a big Retry-After), so that it never looks like a hang. */
  onLongWait?: (message: string) => void;
  now?: () => number;
  /**
   * Told of every retryable failed attempt before its backoff; true stops retrying here with an
   * EndpointDownError, so an endpoint pool (poolModel.ts) sends the call to another endpoint instead.
   */
  onFailedAttempt?: (e: AttemptError) => boolean;
}

/** Retries stopped because the endpoint is down and its pool has another one: the call moves. */
export class EndpointDownError extends ModelCallError {
  override name = "EndpointDownError";
}

/** `maxRetryAfterMs`: the documented cap on one Retry-After wait (10 minutes; `--max-retry-after S` changes it). */
export const RETRY_DEFAULTS = { baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 600_000 } as const;

/** Waits longer than this are announced (onLongWait): 30 s without a word reads as a frozen run. */
export const LONG_WAIT_MS = 30_000;

/** The wait before retry number `retry` (0-based) after `err`. */
export function backoffDelayMs(retry: number, err: AttemptError, o: RetryOptions): number {
  const base = o.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs;
  const ceiling = Math.min(o.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs, base * 2 ** retry);
  if (err.retryAfterMs !== null) {
    // At least what the server asked for, plus a little jitter so that callers told the same
    // Retry-After do not come back in one burst.
    return Math.min(err.retryAfterMs, o.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs) + o.rng.float() * base;
  }
  return o.rng.float() * ceiling; // full jitter
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable AttemptError, or retries run out.
 * AttemptErrors end as ModelCallError(kind, retries); any other error (a bug, not the network)
 * propagates untouched and is never retried.
 */
export async function withRetry<T>(attempt: () => Promise<T>, o: RetryOptions): Promise<{ value: T; retries: number; kinds: FailureKind[] }> {
  // The kind of each failed attempt that was retried: progress and run quality show retries by kind.
  const kinds: FailureKind[] = [];
  for (let retries = 0; ; retries++) {
    try {
      return { value: await attempt(), retries, kinds };
    } catch (e) {
      if (!(e instanceof AttemptError)) throw e;
      if (!e.retryable) throw new ModelCallError(`${o.label}: ${e.message} (not retried)`, e.kind, retries, kinds);
      if (o.onFailedAttempt?.(e)) throw new EndpointDownError(`${o.label}: ${e.message} (endpoint down: moving the call)`, e.kind, retries, kinds);
      if (retries >= o.maxRetries) throw new ModelCallError(`${o.label}: ${e.message} (retries exhausted after ${retries} retries)`, e.kind, retries, kinds);
      kinds.push(e.kind);
      const wait = backoffDelayMs(retries, e, o);
      if (wait > LONG_WAIT_MS) {
        const cap = (o.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs) / 1000;
        o.onLongWait?.(
          `${o.label}: ${e.kind} (${e.message}); waiting ${Math.round(wait / 1000)} s before retry ${retries + 1} of ${o.maxRetries} (a Retry-After is capped at ${cap} s: --max-retry-after S)`,
        );
      }
      await o.sleep(wait);
    }
  }
}

export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The retry layer as a Model: one seeded generator per call, total wall time as the latency. */
export class RetryingModel implements Model {
  readonly spec: string;
  readonly endpointHost: string;

  constructor(
    private readonly inner: Model,
    private readonly options: Omit<RetryOptions, "rng" | "label">,
  ) {
    this.spec = inner.spec;
    this.endpointHost = inner.endpointHost;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const rng = Rng.fromKey(`retry|${this.spec}|${canonicalJson(request.identity)}`);
    const started = performance.now();
    const { value, retries, kinds } = await withRetry(() => this.inner.complete(request), {
      ...this.options,
      rng,
      label: `${this.spec} @ ${this.endpointHost}`,
    });
    return { ...value, retries, ...(kinds.length > 0 ? { retryKinds: kinds } : {}), latencyMs: Math.round(performance.now() - started) };
  }
}
