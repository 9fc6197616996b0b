/**
 * The models file (JSON or YAML): several endpoints, each under an alias that `--models` refers to,
 * with its sampling parameters, prices and concurrency. It names the ENVIRONMENT VARIABLE that holds
 * a key, never a key. Unknown fields are errors (a typo such as `temprature` must not be ignored).
 */
import { identifierProblem } from "../util/outsideText.js";
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { looksLikeKey } from "./secrets.js";
import { formatIssues } from "../util/zodIssues.js";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Request fields extra_body may not set: the kit sends them itself (openaiModel.ts refuses them too). */
export const RESERVED_BODY_FIELDS = ["model", "messages", "stream"] as const;
const RESERVED = RESERVED_BODY_FIELDS;

/**
 * Every number has both bounds: the same ranges as the flags (FLAG_RANGES in
 * cli/shared/sharedFlags.ts) for concurrency, a request seed that every OpenAI-compatible server takes
 * (0..2^32-1), and prices below $1M per million tokens (a misplaced decimal point, not a price).
 */
export const Sampling = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  /** Maximum new tokens per call (sent as max_completion_tokens or max_tokens, see max_tokens_param). */
  max_tokens: z.number().int().min(1).max(100_000_000).optional(),
  seed: z.number().int().min(0).max(4_294_967_295).optional(),
  /** Extra JSON merged into the request body, e.g. { reasoning_effort: "low" }; never `model`, `messages` or `stream`. */
  extra_body: z
    .record(z.string(), z.unknown())
    .refine((b) => !RESERVED.some((f) => Object.prototype.hasOwnProperty.call(b, f)), {
      message: "may not set model, messages or stream (the kit sends them itself; the model id goes in spec)",
    })
    .optional(),
});

/** Dollars per million tokens. `cached_input` prices prompt tokens served from the provider's cache. */
export const Price = z.strictObject({
  input: z.number().min(0).max(1_000_000),
  output: z.number().min(0).max(1_000_000),
  cached_input: z.number().min(0).max(1_000_000).optional(),
});
export type Price = z.infer<typeof Price>;

const BaseUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL, or a list of them" });

export const MAX_TOKENS_PARAMS = ["auto", "max_tokens", "max_completion_tokens"] as const;
/** Sampling parameters `drop_params` / `--drop-params` can keep from being sent. */
export const DROPPABLE_PARAMS = ["seed", "top_p", "temperature"] as const;
export type DroppableParam = (typeof DROPPABLE_PARAMS)[number];

export const ModelsFileEntry = z
  .strictObject({
    /** The name `--models` uses (no spaces or commas: `--models` is a comma list). */
    alias: z
      .string()
      .regex(/^[^\s,]+$/, "must be non-empty without spaces or commas")
      .refine((a) => identifierProblem(a) === null, { message: "must hold printable characters only (no control or invisible characters)" }),
    /** `openai:<model>` or `builtin:<policy>`. Checked by validateModelSpecs. */
    spec: z.string().min(1),
    /**
     * OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1); default --base-url / OPENAI_BASE_URL.
     * A list (or a comma list) is a pool of endpoints serving this one model: calls route by run
     * (scale.md). The list's checks (distinct hosts, at most 64) are createModel.ts's poolUrls.
     */
    base_url: z.union([BaseUrl, z.array(BaseUrl).min(1, "lists no URL: give one or more")]).optional(),
    /** The NAME of the environment variable holding the key (default --api-key-env / OPENAI_API_KEY). */
    api_key_env: z
      .string()
      .regex(ENV_NAME, "must be the NAME of an environment variable (letters, digits, _), not a key")
      .refine((n) => !looksLikeKey(n), "looks like a key, not the NAME of an environment variable (not shown): put the key in a variable and name it here")
      .optional(),
    sampling: Sampling.optional(),
    price: Price.optional(),
    /** Calls in flight on this endpoint and key (default --concurrency). */
    concurrency: z.number().int().min(1).max(10_000).optional(),
    /** How max_tokens is sent: `auto` = max_completion_tokens for api.openai.com, max_tokens elsewhere (default --max-tokens-param). */
    max_tokens_param: z.enum(MAX_TOKENS_PARAMS).optional(),
    /** Sampling parameters never sent to this endpoint, whoever sets them (for servers that refuse them; default --drop-params). */
    drop_params: z.array(z.enum(DROPPABLE_PARAMS)).optional(),
    /**
     * Whether requests carry the per-call `seed` the runner derives from the call identity (default
     * true). `false` for endpoints that reject the field; built-in models then draw from the identity.
     */
    send_seed: z.boolean().optional(),
  })
  .refine((e) => !(e.send_seed === false && e.sampling?.seed !== undefined), {
    path: ["send_seed"],
    message: "is false but sampling.seed is set: drop one of them",
  });
export type ModelsFileEntry = z.infer<typeof ModelsFileEntry>;

export const ModelsFile = z.strictObject({ models: z.array(ModelsFileEntry).min(1) }).superRefine((file, ctx) => {
  const seen = new Set<string>();
  file.models.forEach((m, i) => {
    if (seen.has(m.alias)) ctx.addIssue({ code: "custom", path: ["models", i, "alias"], message: `duplicate alias '${m.alias}'` });
    seen.add(m.alias);
  });
});
export type ModelsFile = z.infer<typeof ModelsFile>;

/**
 * Validates parsed data. The error names the file, each bad field and what was expected; it never
 * echoes values (a key pasted into the wrong field must not reach a terminal or a CI log).
 */
export function validateModelsFile(data: unknown, source: string): ModelsFileEntry[] {
  const r = ModelsFile.safeParse(data);
  if (!r.success) {
    throw new Error(`models file ${source}: ${formatIssues(r.error, { style: "brackets" })}`);
  }
  return r.data.models;
}

/** Parses text as JSON (`.json`) or YAML (anything else; YAML also reads JSON). */
export function parseModelsFile(text: string, source: string): ModelsFileEntry[] {
  let data: unknown;
  try {
    data = extname(source).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new Error(`models file ${source}: not valid ${extname(source).toLowerCase() === ".json" ? "JSON" : "YAML"}: ${(e as Error).message.split("\n")[0]}`);
  }
  return validateModelsFile(data, source);
}

export function loadModelsFile(path: string): ModelsFileEntry[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`models file ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? "error"})`);
  }
  return parseModelsFile(text, path);
}
