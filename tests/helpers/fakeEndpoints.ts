/**
 * Fakes of the endpoint families a researcher points the kit at, started by the tests on 127.0.0.1
 * only. Each answers S3Gym prompts with the built-in heuristic (so a run can play) and mimics what
 * its family does differently:
 *
 *   vllm            /v1/models lists `max_model_len`; POST /tokenize counts a chat; a prompt longer
 *                   than the context gets a 400 in the new (`{"error": {...}}`) or the old
 *                   (`{"object": "error", "message": ...}`) body shape; with `reasoningParser` the
 *                   reply's `reasoning_content` holds a think text (decoy lines included)
 *   ollama          no `usage` in replies; errors as `{"error": "..."}`
 *   openai          `max_tokens` refused (max_completion_tokens only), `seed`/`top_p` optionally
 *                   refused, `usage.prompt_tokens_details.cached_tokens` reported
 *   reasoning-only  content "" (or null), the Answer/Score lines only in `reasoning_content`
 *
 * Tests may override the answer (`answer`) or the whole reply body (`rawReply`) per request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerWithTextPolicy } from "../../src/builtin/builtinModel.js";
import { countMessageTokens, countTokens } from "../../src/models/tokens.js";
import type { ChatMessage } from "../../src/models/types.js";

export type Family = "vllm" | "ollama" | "openai" | "reasoning-only";

export interface FakeOptions {
  family: Family;
  /** Model ids listed by /v1/models (default ["fake-model"]). */
  models?: string[];
  /** vLLM: the context length listed and enforced (default 32768). */
  maxModelLen?: number;
  /** vLLM: the body shape of its errors (default `new`). */
  vllmErrors?: "new" | "old";
  /** vLLM: serve POST /tokenize (default true). */
  tokenize?: boolean;
  /** vLLM: run a reasoning parser (reasoning_content beside the content). */
  reasoningParser?: boolean;
  /** openai: parameters refused with a 400 (always includes max_tokens). */
  rejectParams?: string[];
  /** openai: cached prompt tokens reported per call (default: half the prompt, in blocks of 64). */
  cachedTokens?: (promptTokens: number) => number;
  /** reasoning-only: content null instead of "". */
  nullContent?: boolean;
  /** Replaces the answer text (content for most families, reasoning for reasoning-only). */
  answer?: (messages: ChatMessage[], n: number) => string;
  /** Every route answers 401 unless the bearer token is this (the message echoes the key sent, as OpenAI's does). */
  requireKey?: string;
  /** Replaces the whole reply: [status, body text, content type]. */
  rawReply?: (n: number, body: Record<string, unknown>) => [number, string, string?] | null;
  /**
   * ollama: report usage, with the prompt silently cut to this window (Ollama's num_ctx): prompt_tokens
   * never above it, and the answer made from the cut prompt's tail (the system message and early turns lost).
   */
  numCtx?: number;
  /** Report usage in DeepSeek's shape (prompt_cache_hit_tokens / miss), this share of the prompt a hit. */
  deepseekHitShare?: number;
  /** The finish_reason of reply n (default `stop`). */
  finishReason?: (n: number) => string;
  /** A `system_fingerprint` per reply n (absent: none sent). */
  fingerprint?: (n: number) => string;
  /** The model id reply n names (absent: the id asked for, echoed), as a provider serving a dated snapshot behind an alias does. */
  servedModel?: (n: number) => string;
}

export interface FakeEndpoint {
  /** Base URL with /v1. */
  url: string;
  /** Every chat request body, in order. */
  chats: Record<string, unknown>[];
  /** Paths requested, in order (`GET /v1/models`, `POST /tokenize` ...). */
  paths: string[];
  /** Per chat, as the server counted it: prompt tokens (o200k) and the max new tokens asked. */
  seen: { promptTokens: number; maxNew: number }[];
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

function send(res: ServerResponse, status: number, body: unknown, type = "application/json"): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": type, "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

function vllmError(res: ServerResponse, shape: "new" | "old", message: string, status = 400): void {
  if (shape === "old") send(res, status, { object: "error", message, type: "BadRequestError", param: null, code: status });
  else send(res, status, { error: { message, type: "BadRequestError", param: null, code: status } });
}

const DECOY_THINK = "Let me think. A bad idea would be Answer: WRONG-DECOY\nScore: 9\nbut that is not it.";

export async function startFake(o: FakeOptions): Promise<FakeEndpoint> {
  const models = o.models ?? ["fake-model"];
  const maxLen = o.maxModelLen ?? 32768;
  const chats: Record<string, unknown>[] = [];
  const paths: string[] = [];
  const seen: { promptTokens: number; maxNew: number }[] = [];
  let n = 0;

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const i = n++;
    chats.push(body);
    const raw = o.rawReply?.(i, body);
    if (raw) return send(res, raw[0], raw[1], raw[2] ?? "application/json");
    const messages = body.messages as ChatMessage[];
    const model = String(body.model);
    if (!models.includes(model)) {
      if (o.family === "ollama") return send(res, 404, { error: `model "${model}" not found, try pulling it first` });
      if (o.family === "vllm") return vllmError(res, o.vllmErrors ?? "new", `The model \`${model}\` does not exist.`, 404);
      return send(res, 404, { error: { message: `The model '${model}' does not exist`, type: "invalid_request_error", code: "model_not_found" } });
    }
    if (o.family === "openai") {
      for (const p of ["max_tokens", ...(o.rejectParams ?? [])]) {
        if (p in body) {
          const hint = p === "max_tokens" ? " Use 'max_completion_tokens' instead." : "";
          return send(res, 400, {
            error: { message: `Unsupported parameter: '${p}' is not supported with this model.${hint}`, type: "invalid_request_error", param: p, code: "unsupported_parameter" },
          });
        }
      }
    }
    const promptTokens = countMessageTokens(messages);
    const maxNew = Number(body.max_completion_tokens ?? body.max_tokens ?? 16);
    seen.push({ promptTokens, maxNew });
    if (o.family === "vllm" && promptTokens + maxNew > maxLen) {
      return vllmError(
        res,
        o.vllmErrors ?? "new",
        `This model's maximum context length is ${maxLen} tokens. However, you requested ${promptTokens + maxNew} tokens (${promptTokens} in the messages, ${maxNew} in the completion). Please reduce the length of the messages or completion.`,
      );
    }
    const policyText = o.answer?.(messages, i) ?? answerWithTextPolicy(messages, "heuristic") ?? "I cannot answer this.";
    const message: Record<string, unknown> = { role: "assistant" };
    if (o.family === "reasoning-only") {
      message.content = o.nullContent ? null : "";
      message.reasoning_content = `Thinking about the board.\n${policyText}`;
    } else {
      message.content = policyText;
      if (o.reasoningParser) message.reasoning_content = DECOY_THINK;
    }
    const reasoningText = typeof message.reasoning_content === "string" ? message.reasoning_content : "";
    const completionTokens = Math.min(maxNew, countTokens(String(message.content ?? "")) + countTokens(reasoningText));
    const reply: Record<string, unknown> = {
      id: `chatcmpl-fake-${i}`,
      object: "chat.completion",
      created: 0,
      model: o.servedModel?.(i) ?? model,
      choices: [{ index: 0, message, finish_reason: o.finishReason?.(i) ?? "stop" }],
      ...(o.fingerprint ? { system_fingerprint: o.fingerprint(i) } : {}),
    };
    if (o.deepseekHitShare !== undefined) {
      const hit = Math.floor(promptTokens * o.deepseekHitShare);
      reply.usage = {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        prompt_cache_hit_tokens: hit,
        prompt_cache_miss_tokens: promptTokens - hit,
      };
    } else if (o.family === "ollama" && o.numCtx !== undefined) {
      const served = Math.min(promptTokens, o.numCtx);
      reply.usage = { prompt_tokens: served, completion_tokens: completionTokens, total_tokens: served + completionTokens };
    } else if (o.family !== "ollama") {
      const cached = o.family === "openai" ? (o.cachedTokens ?? ((t: number) => Math.floor(t / 2 / 64) * 64))(promptTokens) : 0;
      reply.usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens, prompt_tokens_details: { cached_tokens: cached } };
    }
    send(res, 200, reply);
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    paths.push(`${req.method} ${path}`);
    const bearer = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (o.requireKey !== undefined && bearer !== o.requireKey) {
      return send(res, 401, { error: { message: `Incorrect API key provided: ${bearer}`, type: "invalid_request_error", code: "invalid_api_key" } });
    }
    if (req.method === "GET" && path === "/v1/models") {
      const data = models.map((id) => ({ id, object: "model", owned_by: o.family, ...(o.family === "vllm" ? { max_model_len: maxLen } : {}) }));
      return send(res, 200, { object: "list", data });
    }
    if (req.method === "POST" && path === "/tokenize" && o.family === "vllm" && o.tokenize !== false) {
      readBody(req).then(
        (text) => {
          const b = JSON.parse(text) as { messages?: ChatMessage[]; prompt?: string };
          // A different tokenizer than o200k (the point of asking the server): 1.25 tokens per o200k token.
          const base = b.messages ? countMessageTokens(b.messages) : countTokens(b.prompt ?? "");
          send(res, 200, { count: Math.ceil(base * 1.25), max_model_len: maxLen, tokens: [] });
        },
        () => send(res, 400, "bad body", "text/plain"),
      );
      return;
    }
    if (req.method === "POST" && path === "/v1/chat/completions") {
      chat(req, res).catch((e: Error) => send(res, 500, `fake failed: ${e.message}`, "text/plain"));
      return;
    }
    send(res, 404, o.family === "ollama" ? "404 page not found" : { error: { message: `no route ${path}` } }, o.family === "ollama" ? "text/plain" : "application/json");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    chats,
    paths,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
