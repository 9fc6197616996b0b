/**
 * The outermost layer: measures every call (success or failure, cached or not) and hands it to the
 * run context's `onCall`, which the runner writes to calls.jsonl. Identity fields come from the
 * request's call identity; this layer adds what it measured. Nothing here can carry a key: the
 * measured fields are numbers, the error is a class name, the host is a host.
 */
import type { CallRecord } from "../logs/schema.js";
import { costUsd } from "./cost.js";
import type { Price } from "./modelsFile.js";
import { ModelCallError, type CallIdentity, type CompletionRequest, type CompletionResult, type Model, type ResolvedModelInfo, type Usage } from "./types.js";

/**
 * What was measured for one call: the CallRecord fields that do not come from the identity (spelled
 * out, because Omit over the schema's passthrough index signature would lose them).
 */
export type CallMeasurement = Pick<CallRecord, "tokens_in" | "tokens_out" | "tokens_cached" | "latency_ms" | "retries" | "cached" | "error" | "cost_usd"> & { usage_note?: string };

/**
 * The endpoint's usage as recorded: cached prompt tokens above the prompt tokens cannot be true
 * (the cost would bill more cheap tokens than were sent), so that figure is dropped and flagged.
 */
export function soundUsage(u: Usage): { usage: Usage; note: string | null } {
  if (u.tokensCached !== null && u.tokensCached > u.tokensIn) {
    return { usage: { ...u, tokensCached: null }, note: `endpoint reported ${u.tokensCached} cached prompt tokens of ${u.tokensIn}; cached count ignored` };
  }
  return { usage: u, note: null };
}

export interface CallEvent {
  identity: CallIdentity;
  /** The model name the user wrote (spec or alias). */
  model: string;
  /** Host (and port) of the endpoint, or `builtin`. */
  endpointHost: string;
  /** `stop`, `length`, ... on success; null on failure or when unknown. */
  finishReason: string | null;
  measured: CallMeasurement;
}

export type OnCall = (event: CallEvent) => void;

/** The calls.jsonl line for an event (extra fields `sample` and `finish_reason` ride along). */
export function toCallRecord(e: CallEvent): CallRecord {
  const { runId, purpose, phase, checkpoint, episode, step, sample, view } = e.identity;
  return { run_id: runId, purpose, phase, checkpoint, episode, step, ...(view ? { view } : {}), ...e.measured, sample, finish_reason: e.finishReason };
}

export class ObservedModel implements Model {
  readonly spec: string;
  readonly endpointHost: string;
  readonly resolved?: ResolvedModelInfo;

  constructor(
    private readonly inner: Model,
    private readonly onCall: OnCall | undefined,
    private readonly price: Price | null,
    resolved?: ResolvedModelInfo,
  ) {
    this.spec = inner.spec;
    this.endpointHost = inner.endpointHost;
    const r = resolved ?? inner.resolved;
    if (r) this.resolved = r;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = performance.now();
    let result: CompletionResult;
    try {
      result = await this.inner.complete(request);
    } catch (e) {
      // Failures are measured too: an infrastructure failure has its kind; anything else is a bug
      // (recorded as `internal`) and propagates as it was.
      this.emit(request, null, {
        tokens_in: 0,
        tokens_out: 0,
        tokens_cached: null,
        latency_ms: Math.round(performance.now() - started),
        retries: e instanceof ModelCallError ? e.retries : 0,
        cached: false,
        error: e instanceof ModelCallError ? e.kind : "internal",
        cost_usd: null,
      });
      throw e;
    }
    const { usage, note } = soundUsage(result.usage);
    this.emit(request, result.finishReason, {
      tokens_in: usage.tokensIn,
      tokens_out: usage.tokensOut,
      tokens_cached: usage.tokensCached,
      ...(result.usage.countedBy !== undefined ? { tokens_counted_by: result.usage.countedBy } : {}),
      latency_ms: result.latencyMs,
      retries: result.retries,
      cached: result.cached,
      error: null,
      cost_usd: costUsd(usage, this.price),
      ...(note !== null ? { usage_note: note } : {}),
    });
    return result;
  }

  private emit(request: CompletionRequest, finishReason: string | null, measured: CallMeasurement): void {
    this.onCall?.({ identity: request.identity, model: this.spec, endpointHost: this.endpointHost, finishReason, measured });
  }
}
