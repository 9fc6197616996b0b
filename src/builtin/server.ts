/**
 * `s3gym serve`: an OpenAI-compatible HTTP server that answers S3Gym prompts with the built-in text
 * policies (step prompts) and the deterministic summary (memory prompts). It is the test double for
 * every HTTP path and the latency source of the scheduling benchmark.
 *
 * Faults are drawn per request from a generator seeded by (seed, request counter), so a run against
 * the same server sees the same faults in the same request slots. `429`, `500`, `timeout` and
 * `garbage` are infrastructure faults (clients retry them); `empty` is a MODEL answer: a 200 with
 * content "", which the runner must log as a step with an unparsable reply.
 *
 * The server logs nothing by default and never looks at the Authorization header.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { TEXT_POLICY_NAMES, type TextPolicyName } from "../games/policies.js";
import { Rng } from "../util/rng.js";
import { answerWithTextPolicy } from "./builtinModel.js";
import { loadCheckpoint } from "./learner/checkpoint.js";
import { answerLearner } from "./learner/learner.js";
import { parseLearnerName } from "../models/modelSpec.js";
import { countTokens, MESSAGE_OVERHEAD_TOKENS } from "../models/tokens.js";
import { PrefixCache, type PromptPiece } from "../models/cache/prefixCache.js";
import type { ChatMessage } from "../models/types.js";

export const FAULT_KINDS = ["429", "500", "timeout", "garbage", "empty"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ServerOptions {
  /** 0 (default) = an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1: the server is for this machine only. */
  host?: string;
  /**
   * Policy for requests whose model is not `s3gym-random` / `s3gym-heuristic` / a learner name:
   * `random`, `heuristic`, or a learner name (`learner`, `learner?judge=0.3`). Default heuristic.
   */
  policy?: string;
  /** Delay before every answer (and every fault). */
  latencyMs?: number;
  /** Probability that a chat request gets a fault. */
  faultRate?: number;
  /** Which faults may be drawn (default: all five). */
  faults?: readonly FaultKind[];
  /** Seed of the fault draws. */
  seed?: number;
  /** Retry-After seconds sent with a 429 (default 1). */
  retryAfterS?: number;
  /** A `timeout` fault holds the connection this long (or until the client gives up), then drops it. */
  timeoutHoldMs?: number;
  /** Adds `reasoning_content` to every answer, like reasoning models on vLLM/DeepSeek. */
  reasoning?: boolean;
  /** Leaves `usage` out of answers, like some local servers (clients must count tokens themselves). */
  omitUsage?: boolean;
  /** Scripted faults for tests: overrides the random draw for request index n (0-based). */
  faultFor?: (n: number) => FaultKind | null;
  /** Sees every parsed chat request body (tests check what the model was shown). */
  onRequest?: (body: unknown) => void;
  /**
   * The tokenizer behind reported usage (default: o200k `countTokens`). Tests inject a wrapper to
   * count invocations. It must split text like o200k does (see `UsageCounter`).
   */
  countTokens?: (text: string) => number;
  /** Entries the usage counter caches (default 100000, approximately LRU); 0 counts every prompt in full, uncached. */
  usageCacheEntries?: number;
  /** One line per request (method, path, status, fault); never headers. */
  log?: (line: string) => void;
  /**
   * `--prefix-cache [--cache-tokens N]`: simulate an automatic prefix cache of this many tokens
   * (models/cache/prefixCache.ts) and report its hits as `usage.prompt_tokens_details.cached_tokens`.
   * Absent: no cache, `cached_tokens` is 0.
   */
  prefixCacheTokens?: number;
}

export interface RunningServer {
  /** The base URL to give clients, e.g. `http://127.0.0.1:8000/v1`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Model ids listed by /v1/models; a request naming one of them gets that policy. */
export const SERVED_MODELS: Record<string, TextPolicyName> = Object.fromEntries(TEXT_POLICY_NAMES.map((p) => [`s3gym-${p}`, p]));

type Answerer = (messages: readonly ChatMessage[], seed: number | undefined) => string | null;

/**
 * What answers a request naming `name`: a served policy id, a text policy name, or a learner name
 * (`learner`, `learner?judge=0.3`, `learner@<checkpoint file>`); null for any other name. Throws on a
 * learner name with bad options (the message names the option).
 */
export function servedAnswerer(name: string): Answerer | null {
  const policy = SERVED_MODELS[name] ?? ((TEXT_POLICY_NAMES as readonly string[]).includes(name) ? (name as TextPolicyName) : undefined);
  if (policy) return (messages, seed) => answerWithTextPolicy(messages, policy, seed);
  const learner = parseLearnerName(name);
  if (!learner) return null;
  if (learner.checkpoint !== null) loadCheckpoint(learner.checkpoint);
  return (messages, seed) => answerLearner(messages, learner, seed);
}

/** Limits an answer to `max` tokens, as a server does when max_tokens is reached. */
function truncateToTokens(text: string, max: number, count: (text: string) => number): string {
  if (count(text) <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(text.slice(0, mid)) <= max) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}

/** Texts and segments up to this length are cached under their own text; longer ones under their sha1. */
const RAW_KEY_MAX = 512;

/**
 * Calls `visit` with consecutive segments of `text` whose token counts add up to the count of the
 * whole text. A segment ends after a "\n" that is followed by a printable ASCII character other
 * than "/": o200k's (and cl100k's) pre-tokenizer always starts a new piece there (the only pieces
 * that may hold a newline are whitespace runs, which stop at a non-space, and a punctuation run's
 * trailing `[\r\n/]*`, which stops at anything but "\r", "\n" and "/"), and BPE never merges
 * across pieces. Special tokens contain no newline, so they never straddle a cut either.
 */
export function forEachCountingSegment(text: string, visit: (segment: string) => void): void {
  let start = 0;
  const last = text.length - 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < last; i = text.indexOf("\n", i + 1)) {
    const c = text.charCodeAt(i + 1);
    if (c > 0x20 && c < 0x7f && c !== 0x2f) {
      visit(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) visit(start === 0 ? text : text.slice(start));
}

/**
 * Prompt usage without re-tokenizing every prompt. A text is counted as the sum of its segments
 * (`forEachCountingSegment`: about one per line), and each segment's count is cached, keyed by the
 * segment (or its sha1 when long): the system prompt, earlier turns and the History blocks repeat
 * from call to call, and when the experience's truncation moves (at every step once the context is
 * full) only its new lines reach the tokenizer. The figures are exactly `countMessageTokens` /
 * `countTokens`.
 *
 * The cache is bounded and approximately LRU: two generations of at most `maxEntries / 2` entries;
 * a hit in the old one moves up, and when the young one fills, the old one is dropped. (A strict LRU
 * re-inserts on every hit, which over thousands of segments per prompt costs as much as tokenizing.)
 */
export class UsageCounter {
  /** key -> [the stored key, count]. */
  private young = new Map<string, [string, number]>();
  private old = new Map<string, [string, number]>();
  private readonly generation: number;

  constructor(
    private readonly tokenize: (text: string) => number = (t) => countTokens(t),
    maxEntries = 100_000,
  ) {
    this.generation = Math.floor(maxEntries / 2);
  }

  /** Entries held (at most `maxEntries`). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** Exactly `countTokens(text)`. */
  text(text: string): number {
    if (text.length === 0) return 0;
    if (this.generation <= 0) return this.tokenize(text);
    if (text.length <= RAW_KEY_MAX) return this.cached(text);
    let total = 0;
    forEachCountingSegment(text, (s) => {
      total += this.cached(s);
    });
    return total;
  }

  /** Exactly `countMessageTokens(messages)`: 3 priming tokens, and per message its overhead and content. */
  messages(messages: readonly ChatMessage[]): number {
    let n = 3;
    for (const m of messages) n += MESSAGE_OVERHEAD_TOKENS + this.text(m.content);
    return n;
  }

  /**
   * The prompt as prefix-cache pieces (models/cache/prefixCache.ts): the priming tokens, then per message
   * its role overhead and its content's counting segments, each with its (cached) count. The pieces'
   * tokens add up to exactly `messages(messages)`.
   */
  pieces(messages: readonly ChatMessage[]): PromptPiece[] {
    const out: PromptPiece[] = [{ key: "\u0000prime", tokens: 3 }];
    for (const m of messages) {
      out.push({ key: `\u0000${m.role}`, tokens: MESSAGE_OVERHEAD_TOKENS });
      if (m.content.length === 0) continue;
      forEachCountingSegment(m.content, (segment) => {
        out.push({ key: segment, tokens: this.generation <= 0 ? this.tokenize(segment) : this.cached(segment) });
      });
    }
    return out;
  }

  private cached(text: string): number {
    const raw = text.length <= RAW_KEY_MAX && text.charCodeAt(0) !== 0;
    const key = raw ? text : `\u0000${createHash("sha1").update(text).digest("base64")}`;
    let entry = this.young.get(key);
    if (entry !== undefined) return entry[1];
    entry = this.old.get(key);
    if (entry === undefined) {
      // Stored under a fresh copy: `key` may be a slice that pins a whole request body in memory
      // (a JSON round trip copies losslessly, lone surrogates too).
      const stored = raw ? (JSON.parse(JSON.stringify(key)) as string) : key;
      entry = [stored, this.tokenize(text)];
    }
    this.young.set(entry[0], entry);
    if (this.young.size >= this.generation) {
      this.old = this.young;
      this.young = new Map();
    }
    return entry[1];
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text).toString(), ...headers });
  res.end(text);
}

function openaiError(res: ServerResponse, status: number, message: string, type: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type, param: null, code: null } }, headers);
}

/** Message contents as plain text (OpenAI also allows an array of text parts). */
function toChatMessages(raw: unknown): ChatMessage[] | string {
  if (!Array.isArray(raw) || raw.length === 0) return "'messages' must be a non-empty array";
  const out: ChatMessage[] = [];
  for (const [i, m] of raw.entries()) {
    const role = (m as { role?: unknown })?.role;
    const content = (m as { content?: unknown })?.content;
    if (role !== "system" && role !== "user" && role !== "assistant") return `messages[${i}].role must be system, user or assistant`;
    let text: string | null = null;
    if (typeof content === "string") text = content;
    else if (Array.isArray(content)) text = content.map((p) => (typeof (p as { text?: unknown })?.text === "string" ? (p as { text: string }).text : "")).join("");
    if (text === null) return `messages[${i}].content must be a string`;
    out.push({ role, content: text });
  }
  return out;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? "127.0.0.1";
  const faults = opts.faults ?? FAULT_KINDS;
  const faultRate = opts.faultRate ?? 0;
  const seed = opts.seed ?? 0;
  let counter = 0;
  const tokenize = opts.countTokens ?? ((t: string) => countTokens(t));
  const usage = new UsageCounter(tokenize, opts.usageCacheEntries ?? 100_000);
  const held = new Set<NodeJS.Timeout>();
  const prefixCache = opts.prefixCacheTokens === undefined ? null : new PrefixCache({ capacityTokens: opts.prefixCacheTokens });

  const drawFault = (n: number): FaultKind | null => {
    if (opts.faultFor) return opts.faultFor(n);
    if (faultRate <= 0 || faults.length === 0) return null;
    const rng = Rng.fromKey(`serve|${seed}|${n}`);
    return rng.float() < faultRate ? rng.pick(faults) : null;
  };

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<string> {
    const n = counter++;
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(await readBody(req));
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      body = parsed as Record<string, unknown>;
    } catch {
      openaiError(res, 400, "request body must be a JSON object", "invalid_request_error");
      return "400 bad json";
    }
    opts.onRequest?.(body);
    if (opts.latencyMs) await delay(opts.latencyMs);
    const fault = drawFault(n);
    switch (fault) {
      case "429":
        openaiError(res, 429, "injected fault: rate limited", "rate_limit_error", { "retry-after": String(opts.retryAfterS ?? 1) });
        return "429 fault";
      case "500":
        openaiError(res, 500, "injected fault: internal server error", "server_error");
        return "500 fault";
      case "garbage":
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"id": "chatcmpl-garbage", "choices": [{"message": {"content": "Answer: ');
        return "200 garbage fault";
      case "timeout": {
        // Hold the request without answering; the client times out and drops it, or we drop it.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, opts.timeoutHoldMs ?? 120_000);
          held.add(t);
          res.on("close", () => {
            clearTimeout(t);
            resolve();
          });
        });
        res.destroy();
        return "timeout fault";
      }
      default:
        break;
    }
    if (body.stream === true) {
      openaiError(res, 400, "s3gym serve does not stream: send stream=false", "invalid_request_error");
      return "400 stream";
    }
    const messages = toChatMessages(body.messages);
    if (typeof messages === "string") {
      openaiError(res, 400, messages, "invalid_request_error");
      return "400 bad messages";
    }
    if (body.seed !== undefined && body.seed !== null && !Number.isSafeInteger(body.seed)) {
      openaiError(res, 400, `seed must be an integer, got ${JSON.stringify(body.seed).slice(0, 40)}`, "invalid_request_error");
      return "400 bad seed";
    }
    const model = typeof body.model === "string" ? body.model : "s3gym";
    let answer: Answerer;
    try {
      answer = servedAnswerer(model) ?? servedAnswerer(opts.policy ?? "heuristic")!;
    } catch (e) {
      openaiError(res, 400, `model: ${(e as Error).message}`, "invalid_request_error");
      return "400 bad model options";
    }
    const policy = SERVED_MODELS[model] ?? model;
    let text: string | null;
    try {
      // The request's `seed` decides the random draws, as in process (the runner always sends one).
      const seed = typeof body.seed === "number" ? body.seed : undefined;
      text = fault === "empty" ? "" : answer(messages, seed);
    } catch (e) {
      text = null;
      openaiError(res, 400, `cannot answer this prompt: ${(e as Error).message}`, "invalid_request_error");
      return "400 policy error";
    }
    if (text === null) {
      openaiError(res, 400, "this server answers S3Gym step and summary prompts only: the messages are neither", "invalid_request_error");
      return "400 not an S3Gym prompt";
    }
    const max = body.max_completion_tokens ?? body.max_tokens;
    let finish = "stop";
    if (typeof max === "number" && max >= 0 && usage.text(text) > max) {
      text = truncateToTokens(text, max, tokenize);
      finish = "length";
    }
    const message: Record<string, unknown> = { role: "assistant", content: text };
    const reasoning = opts.reasoning ? `(${policy} policy) reading the observation before answering.` : null;
    if (reasoning) message.reasoning_content = reasoning;
    // Usage is counted only when it is reported (some local servers leave it out).
    const promptTokens = opts.omitUsage ? 0 : usage.messages(messages);
    // The cache sees every answered prompt (as a server's would), reported or not.
    const cachedTokens = prefixCache ? prefixCache.lookup(usage.pieces(messages)).cachedTokens : 0;
    const completionTokens = opts.omitUsage ? 0 : usage.text(text) + (reasoning ? usage.text(reasoning) : 0);
    sendJson(res, 200, {
      id: `chatcmpl-s3gym-${n}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      ...(opts.omitUsage
        ? {}
        : { usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens, prompt_tokens_details: { cached_tokens: cachedTokens } } }),
    });
    return fault === "empty" ? "200 empty fault" : `200 ${finish}`;
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!.replace(/\/+$/, "");
    const started = Date.now();
    const done = (outcome: string): void => opts.log?.(`${req.method} ${path} ${outcome} ${Date.now() - started}ms`);
    if (req.method === "GET" && path === "/v1/models") {
      sendJson(res, 200, { object: "list", data: [...Object.keys(SERVED_MODELS), "learner"].map((id) => ({ id, object: "model", created: 0, owned_by: "s3gym" })) });
      return done("200");
    }
    if (req.method === "POST" && path === "/v1/chat/completions") {
      chat(req, res).then(done, (e: Error) => {
        if (!res.headersSent) openaiError(res, 500, "internal error", "server_error");
        done(`500 ${e.message}`);
      });
      return;
    }
    openaiError(res, 404, `no route ${req.method} ${path}: this server offers GET /v1/models and POST /v1/chat/completions`, "invalid_request_error");
    done("404");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/v1`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const t of held) clearTimeout(t);
        server.close((e) => (e ? reject(e) : resolve()));
        // Keep-alive and held connections would keep close() waiting forever.
        server.closeAllConnections();
      }),
  };
}
