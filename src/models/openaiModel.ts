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
import { messageOfErrorBody, safeServerText } from "./errorBody.js";
import { MAX_TIMER_MS, startDeadline } from "./deadline.js";
import { httpFetch } from "./httpFetch.js";
import { RESERVED_BODY_FIELDS, type MAX_TOKENS_PARAMS } from "./modelsFile.js";
import { AttemptError, kindOfStatus, parseRetryAfter } from "./retry.js";
import { redactSecrets } from "./secrets.js";
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

/** Removes the key, every registered key value and anything shaped like a key; escapes control characters; cuts. */
export function scrubSecret(text: string, secret: string | null): string {
  return safeServerText(redactSecrets(text, [secret]), 400);
}

/** The reserved fields `extra_body` tries to set (empty when none). */
export function reservedFieldsIn(extra: Record<string, unknown> | undefined): string[] {
  return extra ? RESERVED_BODY_FIELDS.filter((f) => Object.prototype.hasOwnProperty.call(extra, f)) : [];
}

/**
 * The request body: messages, sampling, then extra_body (provider fields such as
 * `reasoning_effort`). extra_body may not set `model`, `messages` or `stream` (refused at config
 * time by the models file; refused here too, for a SamplingParams built in code).
 */
export function requestBody(model: string, request: CompletionRequest, maxTokensField: "max_tokens" | "max_completion_tokens"): Record<string, unknown> {
  const s: SamplingParams = request.sampling;
  const reserved = reservedFieldsIn(s.extra_body);
  if (reserved.length > 0) throw new Error(`extra_body may not set ${reserved.join(", ")}: the kit sends them itself`);
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
    return new AttemptError(`connection failed${cause}`, "transport", null, networkErrorCode(e));
  }
  if (e instanceof APIError && typeof e.status === "number") {
    // normalizingFetch put the server's own message, already made safe, in `error.message`.
    const said = (e.error as { message?: unknown } | undefined)?.message;
    const message = typeof said === "string" ? said : e.message.replace(/^\d{3}\s+/, "");
    return new AttemptError(`HTTP ${e.status}: ${scrubSecret(message, secret)}`, kindOfStatus(e.status), parseRetryAfter(e.headers, nowMs));
  }
  // The client parses a JSON content type with response.json(): a corrupt body surfaces as SyntaxError.
  if (e instanceof SyntaxError) return new AttemptError(`response body is not valid JSON: ${scrubSecret(e.message, secret)}`, "bad_response");
  // A connection lost while the body is read (after the headers: a proxy or server dropping it, a
  // restart) escapes the client's own classes: fetch's body reader throws `TypeError: terminated`
  // with the socket error as its cause. That is the network failing, not a bug.
  const net = networkErrorCode(e);
  if (net !== null) {
    const kind = /TIMEOUT/.test(net) || net === "ETIMEDOUT" ? "timeout" : "transport";
    return new AttemptError(`connection lost while reading the response (${net}): ${scrubSecret((e as Error).message, secret)}`, kind, null, net);
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

/** Bytes of an error body read (a proxy's HTML page or a megabyte dump needs no more). */
const ERROR_BODY_BYTES = 64 * 1024;

async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < max) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).toString("utf8").slice(0, max);
}

/**
 * The transport, with every error body rewritten to the one shape the openai client reads
 * (`{"error": {"message": ...}}`), the message taken from whatever shape the server used
 * (errorBody.ts) and made safe. Without it, vLLM's `{"object": "error", "message": ...}` reached the
 * user as "400 status code (no body)". Status and headers (Retry-After) are kept.
 */
export async function normalizingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await httpFetch(input, init);
  if (res.ok) return res;
  const message = messageOfErrorBody(await readCapped(res, ERROR_BODY_BYTES));
  const headers = new Headers(res.headers);
  for (const h of ["content-length", "content-encoding", "transfer-encoding"]) headers.delete(h);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ error: { message } }), { status: res.status, statusText: res.statusText, headers });
}

/** The kind of a JSON value, for protocol-error messages. */
function kindOf(x: unknown): string {
  return x === null ? "null" : Array.isArray(x) ? "an array" : typeof x === "object" ? "an object" : `a ${typeof x}`;
}

interface WireMessage {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}
/**
 * The usage shapes read (endpoints.md, "Usage, per provider"): OpenAI and vLLM report cached prompt
 * tokens as `prompt_tokens_details.cached_tokens`, DeepSeek as `prompt_cache_hit_tokens` (with
 * `prompt_cache_miss_tokens`, hit + miss = prompt_tokens); reasoning models' completion tokens spent
 * reasoning as `completion_tokens_details.reasoning_tokens` (part of completion_tokens).
 */
interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  prompt_cache_hit_tokens?: unknown;
  prompt_cache_miss_tokens?: unknown;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
}

/** Cached prompt tokens in whichever shape the provider used; null when none is reported. */
export function cachedTokensOf(u: WireUsage | null | undefined): number | null {
  const openai = num(u?.prompt_tokens_details?.cached_tokens);
  if (openai !== null) return openai;
  const hit = num(u?.prompt_cache_hit_tokens);
  if (hit !== null) return hit;
  // Only the miss count (no hit field): the rest of the prompt was served from the cache.
  const miss = num(u?.prompt_cache_miss_tokens);
  const prompt = num(u?.prompt_tokens);
  return miss !== null && prompt !== null && miss <= prompt ? prompt - miss : null;
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
    this.#client = new OpenAI({ baseURL: o.baseUrl, apiKey: o.apiKey, maxRetries: 0, timeout: MAX_TIMER_MS, logLevel: "off", fetch: normalizingFetch });
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
    // A 200 whose body is not a chat completion is a broken response, not a model answer. Some
    // servers (proxies, Ollama on a model error) answer 200 with an error body: keep what they said.
    const said = (raw as { error?: unknown } | null)?.error;
    if (said !== undefined && said !== null && !Array.isArray((raw as { choices?: unknown }).choices)) {
      throw new AttemptError(`the server answered 200 with an error: ${messageOfErrorBody(JSON.stringify(raw))}`, "bad_response");
    }
    const choice = (raw as { choices?: unknown } | null)?.choices;
    const first = Array.isArray(choice) ? (choice[0] as { message?: WireMessage; finish_reason?: unknown } | undefined) : undefined;
    if (!first || typeof first.message !== "object" || first.message === null) {
      throw new AttemptError("response is not a chat completion (no choices[0].message)", "bad_response");
    }
    const message = first.message;
    // Null or absent content is the model saying nothing (reasoning-only replies do that): data.
    // Anything else that is not a string (an array of parts, a number) is the server breaking the
    // protocol; reading it as "" would log a model's empty answer that never happened.
    if (message.content !== undefined && message.content !== null && typeof message.content !== "string") {
      throw new AttemptError(`protocol error: choices[0].message.content is ${kindOf(message.content)}, expected a string or null`, "protocol");
    }
    const text = typeof message.content === "string" ? message.content : "";
    const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
    const finishReason = typeof first.finish_reason === "string" ? first.finish_reason : null;
    const fingerprint = str((raw as { system_fingerprint?: unknown }).system_fingerprint);
    const served = str((raw as { model?: unknown }).model);
    return {
      text,
      reasoning,
      finishReason,
      usage: this.usageOf(raw, request, text, reasoning),
      latencyMs,
      cached: false,
      retries: 0,
      ...(fingerprint !== null ? { systemFingerprint: fingerprint.slice(0, 200) } : {}),
      // Only when it differs from the id asked for: a server that echoes the id adds nothing to the logs.
      ...(served !== null && served !== this.model ? { servedModel: served.slice(0, 200) } : {}),
    };
  }

  private usageOf(raw: unknown, request: CompletionRequest, text: string, reasoning: string | null): Usage {
    const u = (raw as { usage?: WireUsage | null }).usage;
    const tokensIn = num(u?.prompt_tokens);
    const tokensOut = num(u?.completion_tokens);
    if (tokensIn !== null && tokensOut !== null) {
      const reasoningTokens = num(u?.completion_tokens_details?.reasoning_tokens);
      return { tokensIn, tokensOut, tokensCached: cachedTokensOf(u), countedBy: "server", ...(reasoningTokens !== null ? { tokensReasoning: reasoningTokens } : {}) };
    }
    // No usage reported (some local servers): count with the tokenizer, reasoning included.
    return {
      tokensIn: countMessageTokens(request.messages, this.#tokenizer),
      tokensOut: countTokens(text, this.#tokenizer) + countTokens(reasoning ?? "", this.#tokenizer),
      tokensCached: null,
      countedBy: this.#tokenizer,
    };
  }
}
