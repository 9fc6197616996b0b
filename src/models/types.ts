/**
 * One interface for "something that answers a chat" (architecture.md, "Model" boundary).
 * Implementations: `openai:<model>` (any OpenAI-compatible endpoint) and `builtin:<policy>`.
 */
import type { ExtraView } from "../logs/schema.js";
import type { EpisodeState, Game } from "../games/types.js";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Who is calling, so that the cache key is exact and repeats/samples are never collapsed. */
export interface CallIdentity {
  runId: string;
  purpose: "step" | "summary" | "correction" | "curriculum" | "verifier" | "judge";
  phase: "explore" | "eval" | null;
  checkpoint: number | null;
  episode: number | null;
  step: number | null;
  /** Sample index for repeated sampling of the same prompt (0 normally). */
  sample: number;
  /**
   * An eval call of an evaluation view other than the protocol's (`id`, `replay`: runner/loop/views.ts).
   * Absent for `eval` and every other call, so their seeds and cache keys are what they always were,
   * while view episode i of checkpoint x never shares a key with eval episode i of checkpoint x.
   */
  view?: ExtraView;
}

export interface SamplingParams {
  temperature?: number;
  top_p?: number;
  /** Maximum new tokens (sent as max_completion_tokens / max_tokens). */
  max_tokens?: number;
  seed?: number;
  /** Extra JSON merged into the request body (e.g. { reasoning_effort: "low" }). */
  extra_body?: Record<string, unknown>;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  sampling: SamplingParams;
  identity: CallIdentity;
  /**
   * In-process only, never sent over HTTP nor part of a cache key: the live game state, for the
   * privileged `builtin:perfect-judge` and `builtin:ceiling` (instruments). Other models ignore it.
   */
  privileged?: { game: Game; state: EpisodeState };
  /**
   * In-process only, never sent: the kit's own count of the prompt's tokens (the run's tokenizer).
   * When set and the server reports usage, the call log compares the two (serverTruncation.ts).
   */
  promptTokens?: number;
}

export interface Usage {
  tokensIn: number;
  tokensOut: number;
  /** Prompt tokens served from the provider's prefix cache, when reported. */
  tokensCached: number | null;
  /**
   * Who counted: `server` (the endpoint's usage), or the local tokenizer's name (`o200k`, ...) when the
   * endpoint reported none: then the counts are an estimate with a tokenizer that may not be the
   * served model's. Absent for built-in models (no tokens) and for results cached before this field.
   */
  countedBy?: string;
  /**
   * Completion tokens spent on reasoning, when the provider reports them apart
   * (`completion_tokens_details.reasoning_tokens`); part of tokensOut. Absent when not reported.
   */
  tokensReasoning?: number;
}

export interface CompletionResult {
  /** The final answer text (content). Empty string when the model returned none. */
  text: string;
  /** Reasoning text for reasoning models (`reasoning_content`), else null. Never parsed for actions. */
  reasoning: string | null;
  /** `stop`, `length`, ... as the endpoint reported; null when unknown. */
  finishReason: string | null;
  usage: Usage;
  latencyMs: number;
  /** True when replayed from the on-disk cache. */
  cached: boolean;
  /** Transport retries made before this result. */
  retries: number;
  /** The failure kind of each retried attempt (`http_429`, `http_5xx`, ...), in order; absent when none. */
  retryKinds?: string[];
  /** The provider's `system_fingerprint` (the served build), when it returned one. */
  systemFingerprint?: string;
  /** The model id the reply names when it differs from the one asked for (e.g. a dated snapshot behind an alias). */
  servedModel?: string;
  /** Set by the call log: the server's prompt_tokens fell short of the kit's own count (serverTruncation.ts). */
  serverTruncated?: boolean;
  /** Set by an endpoint pool (poolModel.ts): where the call went and which endpoints the run left. */
  route?: CallRoute;
}

/** Where a call to an endpoint pool went: hosts only, never a URL's credentials, path or query. */
export interface CallRoute {
  /** Host (and port) of the endpoint that answered, or that the call last tried when it failed. */
  endpoint: string;
  /** The endpoints the run left on this call (down), in order; empty when it did not move. */
  movedFrom: string[];
}

/**
 * What a model name resolved to (createModel): the real spec behind a models-file alias and the
 * entry's sampling parameters. The run manifest records it and a resumed run must match it, since
 * the run id comes from the name alone. Never a key, a URL or a header.
 */
export interface ResolvedModelInfo {
  /** `openai:<model id>` or `builtin:<policy>`. */
  spec: string;
  /** The models-file entry's sampling (it overrides the runner's per field); {} without one. */
  sampling: SamplingParams;
  /** The NAME of the key's variable the calls send (entry, else --api-key-env); null for a built-in model. Never compared on resume. */
  apiKeyEnv?: string | null;
  /** Calls in flight per endpoint and key as used (entry, else --concurrency); null for a built-in model (not limited). Never compared on resume. */
  concurrency?: number | null;
}

export interface Model {
  /** The spec the user wrote, e.g. `openai:gpt-4o-mini`, `builtin:heuristic`. */
  spec: string;
  /** Host (and port) of the endpoint, or `builtin`. Never contains a key. */
  endpointHost: string;
  /** Set by createModel; absent on hand-built models (tests), which then go unrecorded. */
  readonly resolved?: ResolvedModelInfo;
  /**
   * True when the reply depends on the request's messages, sampling, phase and privileged state alone
   * (never on its checkpoint, episode or time): the same step request gets the same reply at every
   * checkpoint, so an evaluation episode played twice can be replayed (runner/loop/evalMemo.ts).
   * Set by the built-in models (not under independent noise); never by an endpoint; absent: false.
   */
  readonly deterministic?: boolean;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

/**
 * An infrastructure failure after retries (transport, timeout, 429, 5xx). Never a model's bad
 * answer: that is data. `kind` is the error class recorded in calls.jsonl.
 */
export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly kind: string,
    readonly retries: number,
    /** The failure kind of each retried attempt before the last. */
    readonly retryKinds: readonly string[] = [],
    /** Where a pool sent the call (poolModel.ts); absent for a single endpoint. */
    readonly route?: CallRoute,
  ) {
    super(message);
    this.name = "ModelCallError";
  }
}
