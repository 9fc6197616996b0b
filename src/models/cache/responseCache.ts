/**
 * The exact on-disk response cache (architecture.md, "Cache"). The key is the sha256 of the canonical
 * JSON of everything that makes a call this call: endpoint, model, full messages, the sampling
 * parameters actually sent, and the call identity (run, purpose, phase, checkpoint, episode, step,
 * sample index), so neither repeats nor samples are ever collapsed. Only successes are stored; errors
 * are never cached. One file per key under a two-hex-digit shard, written to a temporary file and
 * renamed, so a crash never leaves a torn entry. Entries hold the result only: no messages, no
 * headers, no key.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../util/atomicWrite.js";
import { canonicalJson } from "../../util/canonicalJson.js";
import type { CallIdentity, ChatMessage, CompletionRequest, CompletionResult, Model, SamplingParams } from "../types.js";
import { stringifyWellFormed } from "../../util/wellFormedJson.js";
import { redactDeep } from "../../util/secretText.js";

export interface CacheKeyInput {
  /** Host and path of the endpoint (no credentials, no query), e.g. `api.openai.com/v1`. */
  endpoint: string;
  /** The model id sent to the API. */
  model: string;
  messages: readonly ChatMessage[];
  sampling: SamplingParams;
  identity: CallIdentity;
}

const FORMAT = 1;

export function cacheKey(input: CacheKeyInput): string {
  const { runId, purpose, phase, checkpoint, episode, step, sample, view } = input.identity;
  const material = {
    format: FORMAT,
    endpoint: input.endpoint,
    model: input.model,
    // Only role and content: stray properties on a message object must not change the key.
    messages: input.messages.map((m) => ({ role: m.role, content: m.content })),
    sampling: input.sampling,
    // `view` is absent (undefined, dropped by canonicalJson) for every call but a view's: old keys hold.
    identity: { runId, purpose, phase, checkpoint, episode, step, sample, view },
  };
  return createHash("sha256").update(canonicalJson(material)).digest("hex");
}

const Entry = z.object({
  format: z.literal(FORMAT),
  key: z.string(),
  result: z.object({
    text: z.string(),
    reasoning: z.string().nullable(),
    finishReason: z.string().nullable(),
    usage: z.object({ tokensIn: z.number(), tokensOut: z.number(), tokensCached: z.number().nullable(), countedBy: z.string().optional(), tokensReasoning: z.number().optional() }),
  }),
});
type CachedResult = z.infer<typeof Entry>["result"];

export class ResponseCache {
  /** Why writing stopped (the first failure), or null while the cache is writable. */
  writeFailure: string | null = null;

  /**
   * @param onWriteFailure told once, on the first entry that cannot be written (ENOSPC, EACCES,
   *   ENOTDIR ...): the cache then stops writing and the run goes on without it.
   */
  constructor(
    readonly dir: string,
    private readonly onWriteFailure: (message: string) => void = () => {},
  ) {}

  pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The stored result, or null on a miss. An unreadable or foreign entry counts as a miss. */
  get(key: string): CachedResult | null {
    let text: string;
    try {
      text = readFileSync(this.pathOf(key), "utf8");
    } catch {
      return null;
    }
    try {
      const entry = Entry.safeParse(JSON.parse(text));
      return entry.success && entry.data.key === key ? entry.data.result : null;
    } catch {
      return null;
    }
  }

  /**
   * Stores a result unless writing has failed before. A failure never reaches the caller: the
   * answer was paid for and is good, and losing its cache entry only costs a repeated call later
   * (it used to end the run, logging the paid call as `internal` with 0 tokens and no cost).
   */
  offer(key: string, result: CompletionResult): void {
    if (this.writeFailure !== null) return;
    try {
      this.put(key, result);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      this.writeFailure = code;
      this.onWriteFailure(`response cache ${this.dir}: cannot write an entry (${code}); continuing without caching new answers (answers already cached are still replayed)`);
    }
  }

  put(key: string, result: CompletionResult): void {
    const file = this.pathOf(key);
    mkdirSync(join(this.dir, key.slice(0, 2)), { recursive: true });
    const entry = {
      format: FORMAT,
      key,
      result: { text: result.text, reasoning: result.reasoning, finishReason: result.finishReason, usage: result.usage },
    };
    // Not durable: a lost entry is only a repeated call, and a sync per call would cost more.
    // A lone surrogate in a reply is stored as U+FFFD, as the logs record it (util/wellFormedJson.ts).
    writeFileAtomic(file, stringifyWellFormed(redactDeep(entry)) + "\n", { durable: false });
  }
}

/** The cache layer as a Model: a hit never reaches the limiter, the retry layer or the network. */
export class CachedModel implements Model {
  readonly spec: string;
  readonly endpointHost: string;

  constructor(
    private readonly inner: Model,
    private readonly cache: ResponseCache,
    private readonly keyBase: { endpoint: string; model: string },
  ) {
    this.spec = inner.spec;
    this.endpointHost = inner.endpointHost;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const key = cacheKey({ ...this.keyBase, messages: request.messages, sampling: request.sampling, identity: request.identity });
    const hit = this.cache.get(key);
    if (hit) return { ...hit, latencyMs: 0, cached: true, retries: 0 };
    const result = await this.inner.complete(request); // a failure throws: nothing is written
    this.cache.offer(key, result);
    return result;
  }
}
