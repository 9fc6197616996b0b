/**
 * Turns what the user wrote on `--models` (a spec or a models-file alias) and the run context into a
 * model stack. Layers, outermost first:
 *
 *   observe (onCall) -> configure (alias name, sampling) -> cache -> limiter -> retry -> openai
 *   observe (onCall) -> configure -> cache -> pool -> [per endpoint: limiter -> retry -> openai]
 *   observe (onCall) -> configure -> builtin
 *
 * The cache sits outside the limiter so a hit costs no slot; the limiter outside the retry layer so a
 * call that is backing off keeps its slot (a 429 should slow the endpoint's traffic, not invite
 * another call). A pool (several base URLs, poolModel.ts) gives each endpoint its own limiter and
 * retry layer, so --concurrency is per endpoint and a dead endpoint's retries stop early.
 * Configuration errors surface before any call through validateModelSpecs.
 *
 * The built-in models live above this layer (`src/builtin/`), so `assembleModel` takes the innermost
 * model of a `builtin:` spec from its caller; `createModel` (`src/runner/createModel.ts`) is the one
 * place that wires the two together.
 */
import { ObservedModel, type OnCall } from "./callLog.js";
import { MAX_TIMER_MS } from "./deadline.js";
import { LimitedModel, LimiterRegistry } from "./limiter.js";
import { parseModelSpec, specText, type BuiltinSpec, type ModelSpec } from "./modelSpec.js";
import type { DroppableParam, ModelsFileEntry, Price } from "./modelsFile.js";
import { OpenAIModel, endpointHostOf, endpointIdOf, type MaxTokensParam } from "./openaiModel.js";
import { failoverHook, PoolModel } from "./pool/poolModel.js";
import { PoolRegistry } from "./pool/poolRouting.js";
import { CachedModel, ResponseCache } from "./cache/responseCache.js";
import { keyValueProblem, looksLikeKey, registerSecret, terminalSafe } from "./secrets.js";
import { ReplyGuard } from "./replyGuard.js";
import { RETRY_DEFAULTS, RetryingModel, realSleep, type RetryOptions } from "./retry.js";
import type { CompletionRequest, CompletionResult, Model, SamplingParams } from "./types.js";
import { ConfigError } from "../util/errors.js";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_API_KEY_ENV = "OPENAI_API_KEY";

/** Everything models need from one CLI invocation. Create one per invocation (createModelContext). */
export interface ModelContext {
  /**
   * `--base-url`, else OPENAI_BASE_URL, else null (OpenAI's own API). A models-file entry's base_url
   * wins. A comma list is a pool of endpoints serving one model (scale.md).
   */
  baseUrl: string | null;
  /** NAME of the environment variable holding the key (`--api-key-env`, default OPENAI_API_KEY). */
  apiKeyEnv: string;
  /** The models-file entries (empty without `--models-file`). */
  models: ModelsFileEntry[];
  /** Response cache directory, or null (`--no-cache`). */
  cacheDir: string | null;
  /** `--max-retries`: retries after the first attempt. */
  maxRetries: number;
  /** Per-attempt timeout in milliseconds. */
  timeoutMs: number;
  /** `--concurrency`: calls in flight per endpoint and key (a models-file entry may set its own). */
  concurrency: number;
  /** The run context's limiters (one per endpoint host + key variable). */
  limiters: LimiterRegistry;
  /** Endpoint health and run routing of every pool of the invocation (poolRouting.ts). */
  pools: PoolRegistry;
  /** Called once per model call, success or failure (the runner writes calls.jsonl from it). */
  onCall?: OnCall;
  /** Backoff sleep; tests inject a fast one. */
  sleep?: (ms: number) => Promise<void>;
  /** Where keys and OPENAI_BASE_URL are read; process.env by default. */
  env?: Record<string, string | undefined>;
  /** Backoff tuning (defaults: 500 ms base, 30 s cap, Retry-After capped at 10 min). */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number };
  /** Where a warning that does not stop the run goes (a cache that cannot be written); stderr by default. */
  onWarning?: (message: string) => void;
  /** `--max-tokens-param`: how the reply cap is sent where a models-file entry does not say (default auto). */
  maxTokensParam?: MaxTokensParam;
  /** `--drop-params`: sampling parameters never sent (a models-file entry's drop_params wins). */
  dropParams?: readonly DroppableParam[];
}

export const CONTEXT_DEFAULTS = { maxRetries: 5, timeoutMs: 600_000, concurrency: 8 } as const;

/** A context with defaults filled in and its own fresh limiter registry. */
export function createModelContext(o: Partial<ModelContext> = {}): ModelContext {
  const env = o.env ?? process.env;
  return {
    baseUrl: o.baseUrl ?? (env.OPENAI_BASE_URL || null),
    apiKeyEnv: o.apiKeyEnv ?? DEFAULT_API_KEY_ENV,
    models: o.models ?? [],
    cacheDir: o.cacheDir ?? null,
    maxRetries: o.maxRetries ?? CONTEXT_DEFAULTS.maxRetries,
    timeoutMs: o.timeoutMs ?? CONTEXT_DEFAULTS.timeoutMs,
    concurrency: o.concurrency ?? CONTEXT_DEFAULTS.concurrency,
    limiters: o.limiters ?? new LimiterRegistry(),
    pools: o.pools ?? new PoolRegistry(),
    env,
    ...(o.maxTokensParam ? { maxTokensParam: o.maxTokensParam } : {}),
    ...(o.dropParams ? { dropParams: o.dropParams } : {}),
    ...(o.onCall ? { onCall: o.onCall } : {}),
    ...(o.sleep ? { sleep: o.sleep } : {}),
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.onWarning ? { onWarning: o.onWarning } : {}),
  };
}

/** One response cache per context: its models share it, so a write failure is told once. */
const caches = new WeakMap<ModelContext, ResponseCache>();
function cacheOf(ctx: ModelContext, dir: string): ResponseCache {
  let c = caches.get(ctx);
  if (!c || c.dir !== dir) {
    c = new ResponseCache(dir, ctx.onWarning ?? ((m) => void process.stderr.write(`s3gym: warning: ${m}\n`)));
    caches.set(ctx, c);
  }
  return c;
}

/** A model name resolved against the context. Holds no key, only the NAME of its variable. */
export interface ResolvedModel {
  /** What the user wrote: a spec or an alias. */
  name: string;
  spec: ModelSpec;
  entry: ModelsFileEntry | null;
  /** Endpoint base URL (openai only; null for builtin); a pool's first URL. */
  baseUrl: string | null;
  /** Every base URL (openai: one, or a pool's; builtin: none). */
  baseUrls: string[];
  /** Host (and port) of the endpoint, a pool's hosts as a comma list, or `builtin`. */
  endpointHost: string;
  apiKeyEnv: string;
  concurrency: number;
  price: Price | null;
  /** The entry's sampling (it overrides the runner's per field). */
  sampling: SamplingParams;
  /** How the reply cap is sent (entry, else --max-tokens-param, else auto). */
  maxTokensParam: MaxTokensParam;
  /** Parameters never sent (entry, else --drop-params). */
  dropParams: readonly DroppableParam[];
}

/** Drops user:password@ from a URL before it is shown. */
function showUrl(url: string): string {
  return url.replace(/\/\/[^/@]*@/, "//");
}

/** Resolves one name; throws an Error naming the field at fault. Checks nothing in the environment. */
export function resolveModel(name: string, ctx: ModelContext): ResolvedModel {
  const entry = ctx.models.find((m) => m.alias === name) ?? null;
  const where = entry ? `models file entry '${name}'` : `model '${name}'`;
  let spec: ModelSpec;
  try {
    spec = parseModelSpec(entry ? entry.spec : name);
  } catch (e) {
    const hint = entry || ctx.models.length === 0 ? "" : ` (or an alias of the models file: ${ctx.models.map((m) => m.alias).join(", ")})`;
    throw new ConfigError(`${entry ? `${where}: spec: ` : ""}${(e as Error).message}${hint}`);
  }
  const common = {
    name,
    spec,
    entry,
    price: entry?.price ?? null,
    sampling: entry?.sampling ?? {},
    concurrency: entry?.concurrency ?? ctx.concurrency,
    maxTokensParam: entry?.max_tokens_param ?? ctx.maxTokensParam ?? "auto",
    // `send_seed: false` is dropping the runner's per-call seed.
    dropParams: dropList(entry?.drop_params ?? ctx.dropParams ?? [], entry?.send_seed === false),
  };
  if (spec.scheme === "builtin") return { ...common, baseUrl: null, baseUrls: [], endpointHost: "builtin", apiKeyEnv: "" };
  const field = entry?.base_url !== undefined ? `${where}: base_url` : "--base-url / OPENAI_BASE_URL";
  const baseUrls = poolUrls(entry?.base_url ?? ctx.baseUrl ?? DEFAULT_BASE_URL, field);
  return { ...common, baseUrl: baseUrls[0]!, baseUrls, endpointHost: baseUrls.map(endpointHostOf).join(","), apiKeyEnv: entry?.api_key_env ?? ctx.apiKeyEnv };
}

/** The most endpoints one pool may list (far above a real replica count; a typo, not a pool). */
export const MAX_POOL_ENDPOINTS = 64;

/**
 * The base URLs of `value` (a URL, a comma list of URLs, or a models file's list): each an http(s)
 * URL, on distinct hosts (host:port: two paths of one server are one endpoint). Throws a
 * ConfigError naming `field`, the item and the fix.
 */
export function poolUrls(value: string | readonly string[], field: string): string[] {
  const list = (typeof value === "string" ? value.split(",") : [...value]).map((u) => u.trim());
  if (list.length > MAX_POOL_ENDPOINTS) throw new ConfigError(`${field}: ${list.length} URLs, at most ${MAX_POOL_ENDPOINTS} per model`);
  const hosts = new Map<string, number>();
  list.forEach((u, i) => {
    const which = list.length > 1 ? ` (URL ${i + 1} of ${list.length})` : "";
    let url: URL | null = null;
    try {
      url = new URL(u);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw new ConfigError(`${field}${which}: '${showUrl(u)}' is not an http(s) URL (e.g. http://127.0.0.1:8000/v1${list.length > 1 ? "; a pool is a comma list of such URLs" : ""})`);
    }
    const seen = hosts.get(url.host);
    if (seen !== undefined) throw new ConfigError(`${field}: URLs ${seen + 1} and ${i + 1} are both on ${url.host}: a pool lists each server once`);
    hosts.set(url.host, i);
  });
  return list;
}

function numberProblems(ctx: ModelContext): string[] {
  const p: string[] = [];
  if (!Number.isInteger(ctx.maxRetries) || ctx.maxRetries < 0) p.push(`--max-retries must be an integer >= 0, got ${ctx.maxRetries}`);
  // Node clamps a timer above 2^31-1 ms to 1 ms: such a timeout would time out every call at once.
  if (!Number.isFinite(ctx.timeoutMs) || ctx.timeoutMs <= 0 || ctx.timeoutMs > MAX_TIMER_MS) p.push(`--timeout-ms must be a number in 1..${MAX_TIMER_MS}, got ${ctx.timeoutMs}`);
  if (!Number.isInteger(ctx.concurrency) || ctx.concurrency < 1) p.push(`--concurrency must be an integer >= 1, got ${ctx.concurrency}`);
  return p;
}

function keyProblem(r: ResolvedModel, ctx: ModelContext): string | null {
  if (r.spec.scheme !== "openai") return null;
  // A key pasted where the NAME goes: refused without echoing it (it is a secret, and it is redacted
  // from everything printed later in case something else does echo it).
  if (looksLikeKey(r.apiKeyEnv)) {
    registerSecret(r.apiKeyEnv);
    const field = r.entry?.api_key_env ? `models file entry '${r.name}': api_key_env` : "--api-key-env";
    return `model '${r.name}': ${field} looks like a key, not the NAME of an environment variable (not shown); put the key in a variable (export MY_KEY=...) and name it (${field === "--api-key-env" ? "--api-key-env MY_KEY" : "api_key_env: MY_KEY"})`;
  }
  const key = (ctx.env ?? process.env)[r.apiKeyEnv];
  if (key && key.length > 0) {
    registerSecret(key);
    const bad = keyValueProblem(key);
    return bad ? `model '${r.name}': the value of ${r.apiKeyEnv} ${bad}; set it again without the stray character` : null;
  }
  // Names the variable, never a value.
  return `model '${r.name}' needs an API key: set the environment variable ${r.apiKeyEnv} (or name another variable with --api-key-env NAME or api_key_env in the models file; a local server without auth accepts any value, e.g. ${r.apiKeyEnv}=EMPTY)`;
}

/**
 * Checks every model name before any call: scheme, alias, base URL, key presence, numbers. Throws
 * one Error listing every problem; returns the resolved models (safe to put in a manifest).
 */
export function validateModelSpecs(specs: readonly string[], ctx: ModelContext, o: { keys?: boolean } = {}): ResolvedModel[] {
  const problems = numberProblems(ctx);
  const resolved: ResolvedModel[] = [];
  if (specs.length === 0) problems.push("--models is empty: name at least one model (e.g. builtin:heuristic or openai:gpt-4o-mini)");
  for (const s of specs) {
    try {
      const r = resolveModel(s, ctx);
      // `run --estimate` calls no endpoint: it needs no key (o.keys false).
      const k = o.keys === false ? null : keyProblem(r, ctx);
      if (k) problems.push(k);
      resolved.push(r);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.length === 1 ? problems[0]! : `${problems.length} configuration problems: ${problems.join("; ")}`);
  return resolved;
}

/** The entry's sampling overrides the request's field by field; extra_body merges (entry wins). */
export function mergeSampling(request: SamplingParams, entry: SamplingParams): SamplingParams {
  const merged: SamplingParams = { ...request, ...entry };
  if (request.extra_body || entry.extra_body) merged.extra_body = { ...request.extra_body, ...entry.extra_body };
  return merged;
}

function dropList(list: readonly DroppableParam[], noSeed: boolean): DroppableParam[] {
  return noSeed && !list.includes("seed") ? [...list, "seed"] : [...list];
}

/** `sampling` without the dropped parameters. */
export function dropSampling(sampling: SamplingParams, drop: readonly DroppableParam[]): SamplingParams {
  if (drop.length === 0) return sampling;
  const out: SamplingParams = { ...sampling };
  for (const p of drop) delete out[p];
  return out;
}

/** What a call sends for `request` to this model: the entry's sampling merged in, dropped parameters out. */
export function sentSampling(r: Pick<ResolvedModel, "sampling" | "dropParams">, request: SamplingParams): SamplingParams {
  return dropSampling(mergeSampling(request, r.sampling), r.dropParams);
}

/** Gives the stack the user's name and applies the entry's sampling before the cache key is taken. */
class ConfiguredModel implements Model {
  constructor(
    readonly spec: string,
    private readonly inner: Model,
    private readonly sampling: SamplingParams,
    private readonly drop: readonly DroppableParam[] = [],
  ) {}

  get endpointHost(): string {
    return this.inner.endpointHost;
  }

  /** A models-file entry's sampling or dropped parameters (a dropped seed: draws from the call's identity) may make the replies vary: never claimed then. */
  get deterministic(): boolean {
    return this.inner.deterministic === true && Object.keys(this.sampling).length === 0 && this.drop.length === 0;
  }

  complete(request: CompletionRequest): Promise<CompletionResult> {
    return this.inner.complete({ ...request, sampling: dropSampling(mergeSampling(request.sampling, this.sampling), this.drop) });
  }
}

/** limiter -> retry -> guard -> openai for one base URL; `onFailedAttempt` is a pool's health hook. */
function endpointStack(resolved: ResolvedModel, baseUrl: string, ctx: ModelContext, onFailedAttempt?: RetryOptions["onFailedAttempt"]): Model {
  const spec = resolved.spec as Extract<ModelSpec, { scheme: "openai" }>;
  const openai = new OpenAIModel({
    spec: resolved.name,
    model: spec.model,
    baseUrl,
    apiKey: (ctx.env ?? process.env)[resolved.apiKeyEnv]!,
    timeoutMs: ctx.timeoutMs,
    maxTokensParam: resolved.maxTokensParam,
  });
  const onLongWait = ctx.onWarning ?? ((m: string) => void process.stderr.write(`s3gym: ${terminalSafe(m)}\n`));
  const retrying = new RetryingModel(new ReplyGuard(openai), {
    maxRetries: ctx.maxRetries,
    sleep: ctx.sleep ?? realSleep,
    onLongWait,
    ...RETRY_DEFAULTS,
    ...ctx.backoff,
    ...(onFailedAttempt ? { onFailedAttempt } : {}),
  });
  return new LimitedModel(retrying, ctx.limiters.get(endpointHostOf(baseUrl), resolved.apiKeyEnv, resolved.concurrency));
}

/** Makes the innermost model of a `builtin:` spec (the built-ins live above this layer). */
export type BuiltinFactory = (spec: BuiltinSpec) => Model;

/** Builds the stack of one resolved model; `builtin` supplies the innermost model of a builtin spec. */
export function assembleModel(resolved: ResolvedModel, ctx: ModelContext, builtin: BuiltinFactory): Model {
  let inner: Model;
  if (resolved.spec.scheme === "builtin") {
    inner = builtin(resolved.spec);
  } else {
    const urls = resolved.baseUrls;
    if (urls.length === 1) {
      inner = endpointStack(resolved, urls[0]!, ctx);
    } else {
      const ids = urls.map(endpointIdOf);
      const router = ctx.pools.router(ids);
      const now = ctx.pools.now;
      inner = new PoolModel(
        urls.map((u, i) => {
          const health = ctx.pools.healthOf(ids[i]!);
          return { host: endpointHostOf(u), health, model: endpointStack(resolved, u, ctx, failoverHook(health, router, i, now)) };
        }),
        router,
        now,
      );
    }
    // Every endpoint of a pool serves the same model: a cached answer is the pool's, whichever
    // endpoint gave it. The key names the pool's endpoints as a set (the order of the list aside).
    const endpoint = urls.length === 1 ? endpointIdOf(urls[0]!) : `pool:${urls.map(endpointIdOf).sort().join(",")}`;
    if (ctx.cacheDir) inner = new CachedModel(inner, cacheOf(ctx, ctx.cacheDir), { endpoint, model: resolved.spec.model });
  }
  const real = specText(resolved.spec);
  return new ObservedModel(new ConfiguredModel(resolved.name, inner, resolved.sampling, resolved.dropParams), ctx.onCall, resolved.price, {
    spec: real,
    sampling: dropSampling(resolved.sampling, resolved.dropParams),
    // What the manifest's provenance records as used: the entry's values, not the flags' defaults.
    apiKeyEnv: resolved.spec.scheme === "builtin" ? null : resolved.apiKeyEnv,
    concurrency: resolved.spec.scheme === "builtin" ? null : resolved.concurrency,
  });
}
