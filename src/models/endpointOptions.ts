/**
 * The endpoint flags (`--concurrency`, `--base-url`, `--api-key-env`, `--models-file`, retries,
 * timeouts, `--no-cache`, `--max-tokens-param`, `--drop-params`): one option row each, owned here
 * beside the model context they set. Every command that calls models offers these rows; its parser
 * spec, usage lines and the context derive from them, and the defaults are the context's own
 * (CONTEXT_DEFAULTS, RETRY_DEFAULTS), never spelled again.
 */
import { MAX_TIMER_MS } from "./deadline.js";
import { CONTEXT_DEFAULTS, type ModelContext } from "./assembleModel.js";
import { DROPPABLE_PARAMS, loadModelsFile, MAX_TOKENS_PARAMS, type DroppableParam, type ModelsFileEntry } from "./modelsFile.js";
import { RETRY_DEFAULTS } from "./retry.js";
import { looksLikeKey, registerSecret } from "./secrets.js";
import { UsageError } from "../util/errors.js";
import { listOf, oneOf, optionRows, readOptions, type OptionTable } from "../util/options.js";

/** The endpoint flags' values (names as settings; `--max-retry-after` in seconds). */
export interface EndpointSettings {
  concurrency: number;
  maxRetries: number;
  timeoutMs: number;
  /** Seconds; unset: the retry layer's own ceiling. */
  maxRetryAfter: number | undefined;
  /** One URL or a comma list (a pool); each is checked where the model resolves (createModel.ts's poolUrls). */
  baseUrl: string | undefined;
  maxTokensParam: (typeof MAX_TOKENS_PARAMS)[number] | undefined;
  dropParams: DroppableParam[] | undefined;
  apiKeyEnv: string | undefined;
  /** The models file's entries (the flag names the file). */
  modelsFile: ModelsFileEntry[] | undefined;
  /** `--no-cache`: read by the command (the cache folder is the command's). */
  noCache: boolean;
}

/** `--api-key-env`: the NAME of a variable; neither message echoes the value (it may be a key pasted in the wrong place). */
function keyVariable(value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) throw new UsageError("--api-key-env must be the NAME of an environment variable (letters, digits, _), not a key");
  if (looksLikeKey(value)) {
    registerSecret(value);
    throw new UsageError("--api-key-env looks like a key, not the NAME of an environment variable (not shown): put the key in a variable (export MY_KEY=...) and pass --api-key-env MY_KEY");
  }
  return value;
}

/**
 * The rows, in the order they are read (the first bad flag is the one reported). The upper bounds are
 * low enough that a typo fails with its range instead of exhausting memory or Node's timer limit.
 */
export const ENDPOINT_OPTIONS: OptionTable<EndpointSettings> = {
  concurrency: { name: "concurrency", kind: { type: "int", range: { min: 1, max: 10_000 } }, default: CONTEXT_DEFAULTS.concurrency },
  maxRetries: { name: "max-retries", kind: { type: "int", range: { min: 0, max: 100 } }, default: CONTEXT_DEFAULTS.maxRetries },
  // Node's timers hold at most 2^31-1 ms; a larger delay is clamped to 1 ms.
  timeoutMs: { name: "timeout-ms", kind: { type: "int", range: { min: 1, max: MAX_TIMER_MS } }, default: CONTEXT_DEFAULTS.timeoutMs },
  // The longest wait a server's Retry-After can impose per retry.
  maxRetryAfter: { name: "max-retry-after", kind: { type: "int", range: { min: 0, max: 86_400 } }, default: undefined, arg: String(RETRY_DEFAULTS.maxRetryAfterMs / 1000) },
  // Repeated or a comma list: a pool of endpoints serving one model (scale.md).
  baseUrl: { name: "base-url", kind: { type: "text", shown: "URL[,URL...] (a pool: see docs/scale.md)", parse: (v) => v }, default: undefined, multiple: true },
  maxTokensParam: { name: "max-tokens-param", kind: { type: "choice", choices: MAX_TOKENS_PARAMS }, default: undefined },
  dropParams: { name: "drop-params", kind: { type: "text", shown: DROPPABLE_PARAMS.join(","), parse: (v) => listOf(v).map((x) => oneOf("drop-params", x, DROPPABLE_PARAMS)) }, default: undefined },
  apiKeyEnv: { name: "api-key-env", kind: { type: "text", shown: "NAME", parse: keyVariable }, default: undefined },
  modelsFile: { name: "models-file", kind: { type: "text", shown: "F", parse: loadModelsFile }, default: undefined },
  noCache: { name: "no-cache", kind: { type: "switch", on: true }, default: false },
};

/** The endpoint rows as a list (parser spec, usage). */
export const ENDPOINT_OPTION_ROWS = optionRows(ENDPOINT_OPTIONS);

/** The model context the endpoint flags set (names as flags); a UsageError names the flag. */
export function endpointContextFromFlags(v: Readonly<Record<string, string | boolean | string[] | undefined>>): Partial<ModelContext> {
  const s = readOptions(ENDPOINT_OPTIONS, v);
  const ctx: Partial<ModelContext> = { concurrency: s.concurrency, maxRetries: s.maxRetries, timeoutMs: s.timeoutMs };
  if (s.maxRetryAfter !== undefined) ctx.backoff = { maxRetryAfterMs: s.maxRetryAfter * 1000 };
  if (s.baseUrl !== undefined) ctx.baseUrl = s.baseUrl;
  if (s.maxTokensParam !== undefined) ctx.maxTokensParam = s.maxTokensParam;
  if (s.dropParams !== undefined) ctx.dropParams = s.dropParams;
  if (s.apiKeyEnv !== undefined) ctx.apiKeyEnv = s.apiKeyEnv;
  if (s.modelsFile !== undefined) ctx.models = s.modelsFile;
  return ctx;
}
