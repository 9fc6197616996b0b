/**
 * The outermost layer: measures every call (success or failure, cached or not) and hands it to the
 * run context's `onCall`, which the runner writes to calls.jsonl. Identity fields come from the
 * request's call identity; this layer adds what it measured. Nothing here can carry a key: the
 * measured fields are numbers, the error is a class name, the host is a host.
 */
import type { CallRecord } from "../logs/schema.js";
import { costUsd } from "./cost.js";
import type { Price } from "./modelsFile.js";
import { isServerTruncated } from "../logs/qualityThresholds.js";
import { ModelCallError, type CallIdentity, type CallRoute, type CompletionRequest, type CompletionResult, type Model, type ResolvedModelInfo, type Usage } from "./types.js";

/**
 * What was measured for one call: the CallRecord fields that do not come from the identity (spelled
 * out, because Omit over the schema's passthrough index signature would lose them).
 */
export type CallMeasurement = Pick<CallRecord, "tokens_in" | "tokens_out" | "tokens_cached" | "latency_ms" | "retries" | "cached" | "error" | "cost_usd"> &
  Partial<Pick<CallRecord, "tokens_reasoning" | "retry_kinds" | "seed" | "system_fingerprint" | "served_model" | "tokens_in_local" | "server_truncated" | "endpoint" | "moved_from">> & {
    usage_note?: string;
  };

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

/** An endpoint pool's route as calls.jsonl fields (nothing for one endpoint). */
function routeFields(route: CallRoute | undefined): Pick<CallMeasurement, "endpoint" | "moved_from"> {
  if (!route) return {};
  return { endpoint: route.endpoint, ...(route.movedFrom.length > 0 ? { moved_from: [...route.movedFrom] } : {}) };
}

/** The endpoint host of the built-in models: nothing is sent, so no seed or prompt count is recorded (their logs stay as they were). */
const BUILTIN_HOST = "builtin";

export class ObservedModel implements Model {
  readonly spec: string;
  readonly endpointHost: string;
  readonly resolved?: ResolvedModelInfo;
  readonly deterministic: boolean;

  constructor(
    private readonly inner: Model,
    private readonly onCall: OnCall | undefined,
    private readonly price: Price | null,
    resolved?: ResolvedModelInfo,
  ) {
    this.spec = inner.spec;
    this.endpointHost = inner.endpointHost;
    this.deterministic = inner.deterministic === true;
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
        ...(e instanceof ModelCallError && e.retryKinds.length > 0 ? { retry_kinds: [...e.retryKinds] } : {}),
        ...this.sent(request),
        cached: false,
        error: e instanceof ModelCallError ? e.kind : "internal",
        cost_usd: null,
        ...routeFields(e instanceof ModelCallError ? e.route : undefined),
      });
      throw e;
    }
    const { usage, note } = soundUsage(result.usage);
    // Only a count the server made can reveal a cut it made; a local estimate is compared with itself.
    const local = request.promptTokens;
    const truncated = local !== undefined && usage.countedBy === "server" && isServerTruncated(local, usage.tokensIn);
    this.emit(request, result.finishReason, {
      tokens_in: usage.tokensIn,
      tokens_out: usage.tokensOut,
      tokens_cached: usage.tokensCached,
      ...(result.usage.countedBy !== undefined ? { tokens_counted_by: result.usage.countedBy } : {}),
      ...(usage.tokensReasoning !== undefined ? { tokens_reasoning: usage.tokensReasoning } : {}),
      // Built-in models report no usage: the kit's own count is then the only token count (cost_gain's axis).
      ...(local !== undefined ? { tokens_in_local: local } : {}),
      ...(truncated ? { server_truncated: true } : {}),
      ...(result.retryKinds && result.retryKinds.length > 0 ? { retry_kinds: [...result.retryKinds] } : {}),
      ...this.sent(request),
      ...(result.systemFingerprint !== undefined ? { system_fingerprint: result.systemFingerprint } : {}),
      ...(result.servedModel !== undefined ? { served_model: result.servedModel } : {}),
      latency_ms: result.latencyMs,
      retries: result.retries,
      cached: result.cached,
      error: null,
      cost_usd: costUsd(usage, this.price),
      ...(note !== null ? { usage_note: note } : {}),
      ...routeFields(result.route),
    });
    return truncated ? { ...result, serverTruncated: true } : result;
  }

  /** What the call log records of the request itself: the seed sent (beside the fingerprint that answered). */
  private sent(request: CompletionRequest): { seed?: number } {
    const seed = request.sampling.seed;
    return this.endpointHost !== BUILTIN_HOST && typeof seed === "number" && Number.isInteger(seed) ? { seed } : {};
  }

  private emit(request: CompletionRequest, finishReason: string | null, measured: CallMeasurement): void {
    this.onCall?.({ identity: request.identity, model: this.spec, endpointHost: this.endpointHost, finishReason, measured });
  }
}
