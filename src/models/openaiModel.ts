/**
 * `openai:<model>` over the official `openai` package, against any OpenAI-compatible base URL.
 * One attempt per `complete`: the client's own retries are off (`maxRetries: 0`) because the retry
 * layer owns retries. Every failure leaves here as an AttemptError with a kind and a message that
 * has been scrubbed of the key. The key itself lives only inside the client, which sends it as the
 * Authorization header.
 *
 * What comes back is data whatever it says: empty or null content is the text "", a `length`
 * finish is reported as such, and reasoning models' `reasoning_content` / `reasoning` go to
 * `reasoning` (never parsed for actions).
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { MAX_TIMER_MS, startDeadline } from "./deadline.js";
import { httpFetch } from "./httpFetch.js";
import type { MAX_TOKENS_PARAMS } from "./modelsFile.js";
import { AttemptError, kindOfStatus, parseRetryAfter } from "./retry.js";
import { countMessageTokens, countTokens, type TokenizerName } from "./tokens.js";
import type { CompletionRequest, CompletionResult, Model, SamplingParams, Usage } from "./types.js";

export type MaxTokensParam = (typeof MAX_TOKENS_PARAMS)[number];

export interface OpenAIModelOptions {
  /** The name the user wrote (a spec or a models-file alias). */
  spec: string;
  /** The model id sent to the API. */
  model: string;
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxTokensParam?: MaxTokensParam;
  /** Counts usage when the endpoint reports none. */
  tokenizer?: TokenizerName;
}

/** Host (and port) of a base URL; never its credentials or query. */
export function endpointHostOf(baseUrl: string): string {
  return new URL(baseUrl).host;
}

/** Host and path of a base URL (the endpoint's identity in cache keys); no credentials, no query. */
export function endpointIdOf(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.host}${u.pathname.replace(/\/+$/, "")}`;
}

/** Removes the key (and anything shaped like a bearer token or an OpenAI-style key) from text. */
export function scrubSecret(text: string, secret: string | null): string {
  let out = secret && secret.length > 0 ? text.split(secret).join("[redacted]") : text;
  out = out.replace(/Bearer\s+\S+/gi, "Bearer [redacted]").replace(/\bsk-[A-Za-z0-9_*.-]{6,}/g, "sk-[redacted]");
  return out.length > 400 ? `${out.slice(0, 400)}...` : out;
}

/** The request body: messages, sampling, extra_body merged last (it may set any provider field). */
export function requestBody(model: string, request: CompletionRequest, maxTokensField: "max_tokens" | "max_completion_tokens"): Record<string, unknown> {
  const s: SamplingParams = request.sampling;
  const body: Record<string, unknown> = {
    model,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
  };
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.top_p !== undefined) body.top_p = s.top_p;
  if (s.seed !== undefined) body.seed = s.seed;
  if (s.max_tokens !== undefined) body[maxTokensField] = s.max_tokens;
  return { ...body, ...(s.extra_body ?? {}) };
}

/** OpenAI's own API wants max_completion_tokens (reasoning models reject max_tokens); most others max_tokens. */
export function maxTokensFieldFor(baseUrl: string, param: MaxTokensParam = "auto"): "max_tokens" | "max_completion_tokens" {
  if (param !== "auto") return param;
  const host = new URL(baseUrl).hostname;
  return host === "api.openai.com" || host.endsWith(".openai.com") ? "max_completion_tokens" : "max_tokens";
}

/** Turns whatever the client threw into a classified, scrubbed AttemptError; a bug is rethrown. */
export function toAttemptError(e: unknown, secret: string | null, nowMs: number): AttemptError {
  if (e instanceof AttemptError) return e;
  if (e instanceof APIConnectionTimeoutError) return new AttemptError("request timed out", "timeout");
  if (e instanceof APIConnectionError) {
    const cause = e.cause instanceof Error ? `: ${scrubSecret(e.cause.message, secret)}` : "";
    return new AttemptError(`connection failed${cause}`, "transport");
  }
  if (e instanceof APIError && typeof e.status === "number") {
    return new AttemptError(`HTTP ${e.status}: ${scrubSecret(e.message, secret)}`, kindOfStatus(e.status), parseRetryAfter(e.headers, nowMs));
  }
  // The client parses a JSON content type with response.json(): a corrupt body surfaces as SyntaxError.
  if (e instanceof SyntaxError) return new AttemptError(`response body is not valid JSON: ${scrubSecret(e.message, secret)}`, "bad_response");
  // A connection lost while the body is read (after the headers: a proxy or server dropping it, a
  // restart) escapes the client's own classes: fetch's body reader throws `TypeError: terminated`
  // with the socket error as its cause. That is the network failing, not a bug.
  const net = networkErrorCode(e);
  if (net !== null) {
    const kind = /TIMEOUT/.test(net) || net === "ETIMEDOUT" ? "timeout" : "transport";
    return new AttemptError(`connection lost while reading the response (${net}): ${scrubSecret((e as Error).message, secret)}`, kind);
  }
  throw e;
}

/** Node network errno codes that mean the connection failed (not the request, not our code). */
const NETWORK_ERRNO = new Set(["ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "EAI_AGAIN", "ENOTFOUND"]);

/**
 * The code of a network failure in `e` or its cause chain (undici's `UND_ERR_*`, or an errno code),
 * or `terminated` for fetch's body-read abort without a coded cause; null when `e` is not one.
 */
export function networkErrorCode(e: unknown): string | null {
  let cur: unknown = e;
  for (let depth = 0; depth < 5 && cur instanceof Error; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("UND_ERR_") || NETWORK_ERRNO.has(code))) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return e instanceof TypeError && e.message === "terminated" ? "terminated" : null;
}

interface WireMessage {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}
interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
}

const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : null);
const str = (x: unknown): string | null => (typeof x === "string" && x.length > 0 ? x : null);

export class OpenAIModel implements Model {
  readonly spec: string;
  readonly endpointHost: string;
  readonly model: string;
  // A private field: the client (which holds the key) never shows up in JSON.stringify or a log.
  readonly #client: OpenAI;
  readonly #secret: string;
  readonly #maxTokensField: "max_tokens" | "max_completion_tokens";
  readonly #tokenizer: TokenizerName;
  readonly #timeoutMs: number;

  constructor(o: OpenAIModelOptions) {
    this.spec = o.spec;
    this.model = o.model;
    this.endpointHost = endpointHostOf(o.baseUrl);
    this.#secret = o.apiKey;
    this.#maxTokensField = maxTokensFieldFor(o.baseUrl, o.maxTokensParam);
    this.#tokenizer = o.tokenizer ?? "o200k";
    this.#timeoutMs = o.timeoutMs;
    // httpFetch, not the built-in fetch: undici's own 300 s headers timeout would cut every call
    // longer than 5 minutes whatever --timeout-ms says (see httpFetch.ts). The client's own timer is
    // a plain setTimeout that a blocked event loop turns into a false timeout, so it is set out of
    // the way: the lag-tolerant deadline in complete() is the only clock.
    this.#client = new OpenAI({ baseURL: o.baseUrl, apiKey: o.apiKey, maxRetries: 0, timeout: MAX_TIMER_MS, logLevel: "off", fetch: httpFetch });
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = performance.now();
    // The client's timeout stops at the response headers; this one also bounds reading the body,
    // so a server that sends headers and then stalls cannot hang a run. It counts only time in
    // which the answer could have been read (deadline.ts): a blocked event loop is not the server's.
    const deadline = startDeadline(this.#timeoutMs);
    let raw: unknown;
    try {
      const body = requestBody(this.model, request, this.#maxTokensField);
      raw = await this.#client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, { signal: deadline.signal });
    } catch (e) {
      if (deadline.signal.aborted) throw new AttemptError("request timed out", "timeout");
      throw toAttemptError(e, this.#secret, Date.now());
    } finally {
      deadline.clear();
    }
    const latencyMs = Math.round(performance.now() - started);
    // A 200 whose body is not a chat completion is a broken response, not a model answer.
    const choice = (raw as { choices?: unknown } | null)?.choices;
    const first = Array.isArray(choice) ? (choice[0] as { message?: WireMessage; finish_reason?: unknown } | undefined) : undefined;
    if (!first || typeof first.message !== "object" || first.message === null) {
      throw new AttemptError("response is not a chat completion (no choices[0].message)", "bad_response");
    }
    const message = first.message;
    const text = typeof message.content === "string" ? message.content : "";
    const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
    const finishReason = typeof first.finish_reason === "string" ? first.finish_reason : null;
    return { text, reasoning, finishReason, usage: this.usageOf(raw, request, text, reasoning), latencyMs, cached: false, retries: 0 };
  }

  private usageOf(raw: unknown, request: CompletionRequest, text: string, reasoning: string | null): Usage {
    const u = (raw as { usage?: WireUsage | null }).usage;
    const tokensIn = num(u?.prompt_tokens);
    const tokensOut = num(u?.completion_tokens);
    if (tokensIn !== null && tokensOut !== null) {
      return { tokensIn, tokensOut, tokensCached: num(u?.prompt_tokens_details?.cached_tokens) };
    }
    // No usage reported (some local servers): count with the tokenizer, reasoning included.
    return {
      tokensIn: countMessageTokens(request.messages, this.#tokenizer),
      tokensOut: countTokens(text, this.#tokenizer) + countTokens(reasoning ?? "", this.#tokenizer),
      tokensCached: null,
    };
  }
}
