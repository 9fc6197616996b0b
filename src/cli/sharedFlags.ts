/**
 * Flags shared by `run`, `train-loop` and `build-sft`: the protocol numbers and the endpoint
 * settings, parsed in one place so every command names them, defaults them and rejects them alike.
 */
import { totalEpisodes } from "../runner/schedule.js";
import { GAMES, parseGameList } from "../games/registry.js";
import type { Game } from "../games/types.js";
import type { ModelContext } from "../models/createModel.js";
import { DROPPABLE_PARAMS, loadModelsFile, MAX_TOKENS_PARAMS } from "../models/modelsFile.js";
import { looksLikeKey, registerSecret } from "../models/secrets.js";
import type { ProtocolSettings, ViewSettings } from "../runner/context.js";
import { PROTOCOL_SETTINGS, type SettingFlag, type SettingRow } from "../runner/protocolSettings.js";
import { DEFAULT_REPLAY_EPISODES } from "../runner/views.js";
import { EXTRA_VIEWS, VIEWS } from "../logs/schema.js";
import { MAX_TIMER_MS } from "../models/deadline.js";
import { LOW_SCORE_MODES, type LowScoreMode } from "../training/buildSft.js";
import { SFT_FORMATS, type SftFormat } from "../training/sftFormat.js";
import { intFlag, numberFlag, oneOf, UsageError, type IntRange } from "./args.js";

/** The commands that take the protocol's flags: `run` plays a protocol loop (it alone has `--checkpoint-every`). */
export type ProtocolCommand = "run" | "train-loop";

/** The flagged rows of PROTOCOL_SETTINGS that `command` offers, in the table's order. */
function flaggedRows(command: ProtocolCommand): (SettingRow & { flag: SettingFlag })[] {
  return PROTOCOL_SETTINGS.filter((r): r is SettingRow & { flag: SettingFlag } => r.flag !== null && (command === "run" || r.flag.runOnly !== true));
}

/** The protocol's flags on `command`, for parseFlags (from PROTOCOL_SETTINGS). */
export function protocolFlags(command: ProtocolCommand): Record<string, { type: "string" | "boolean" }> {
  return Object.fromEntries(flaggedRows(command).map((r) => [r.flag.name, { type: r.flag.kind.type === "switch" ? "boolean" : "string" }]));
}

/** A row's usage token: `[--max-steps 64]`, `[--tokenizer o200k|cl100k]`, `[--strict-contract]`. */
function usageToken(r: SettingRow & { flag: SettingFlag }): string {
  const k = r.flag.kind;
  const shown = k.type === "int" ? String(r.default) : k.type === "choice" ? k.choices.join("|") : k.type === "share" || k.type === "text" ? k.shown : null;
  return `[--${r.flag.name}${shown === null ? "" : ` ${shown}`}]`;
}

/** The usage lines of the protocol's flags on `command`: the tokens filled to USAGE_WIDTH, then one line per flag with help. */
export function protocolUsage(command: ProtocolCommand): string[] {
  const lines: string[] = [];
  let line = " ";
  for (const r of flaggedRows(command).filter((x) => x.flag.help === undefined)) {
    const token = usageToken(r);
    if (line.length > 1 && line.length + 1 + token.length > USAGE_WIDTH) {
      lines.push(line);
      line = " ";
    }
    line += ` ${token}`;
  }
  if (line.length > 1) lines.push(line);
  for (const r of flaggedRows(command).filter((x) => x.flag.help !== undefined)) lines.push(`  ${usageToken(r)}: ${r.flag.help}`);
  return lines;
}

/** Usage lines are filled up to this many characters (a wide terminal's usage stays readable). */
const USAGE_WIDTH = 110;

/** Where and how model calls go. */
export const ENDPOINT_FLAGS = {
  concurrency: { type: "string" },
  // Repeated or a comma list: a pool of endpoints serving one model (scale.md).
  "base-url": { type: "string", multiple: true },
  "api-key-env": { type: "string" },
  "models-file": { type: "string" },
  "max-retries": { type: "string" },
  "max-retry-after": { type: "string" },
  "timeout-ms": { type: "string" },
  "no-cache": { type: "boolean" },
  "max-tokens-param": { type: "string" },
  "drop-params": { type: "string" },
} as const;

/** BuildSFT's selection and format (`build-sft`, and each round of `train-loop`). */
export const SFT_FLAGS = {
  threshold: { type: "string" },
  "low-score": { type: "string" },
  "correct-model": { type: "string" },
  format: { type: "string" },
  "train-all-turns": { type: "boolean" },
} as const;

/** BuildSFT's options from SFT_FLAGS; a UsageError names the flag. */
export function sftFromFlags(v: Partial<Record<"threshold" | "low-score" | "correct-model" | "format", string>> & { "train-all-turns"?: boolean }): {
  threshold: number;
  lowScore: LowScoreMode;
  format: SftFormat;
  correctModel: string | null;
  maskEarlierAnswers: boolean;
} {
  const threshold = numberFlag("threshold", v.threshold, 0);
  const lowScore = oneOf("low-score", v["low-score"], LOW_SCORE_MODES, "drop");
  const format = oneOf("format", v.format, SFT_FORMATS, "openai-chat");
  if (v["correct-model"] !== undefined && lowScore !== "correct") throw new UsageError("--correct-model is only used with --low-score correct");
  if (v["train-all-turns"] && format !== "openai-chat") throw new UsageError("--train-all-turns only applies to --format openai-chat (sharegpt carries no per-turn weight)");
  return { threshold, lowScore, format, correctModel: v["correct-model"] ?? null, maskEarlierAnswers: !v["train-all-turns"] };
}

/**
 * The range of every numeric flag shared by run, train-loop and build-sft besides the protocol's
 * (their rows in PROTOCOL_SETTINGS hold theirs). The upper bounds are low enough that a typo fails
 * with its range instead of exhausting memory or Node's timer limit.
 */
export const FLAG_RANGES = {
  concurrency: { min: 1, max: 10_000 },
  "max-retries": { min: 0, max: 100 },
  /** Seconds: the longest wait a server's Retry-After can impose per retry (default 600). */
  "max-retry-after": { min: 0, max: 86_400 },
  /** Exploration episodes per verified batch (`--pathways verified`). */
  "broad-batch": { min: 1, max: 10_000 },
  /** Node's timers hold at most 2^31-1 ms; a larger delay is clamped to 1 ms. */
  "timeout-ms": { min: 1, max: MAX_TIMER_MS },
  /** Episodes of the id view per checkpoint (`--views ...,id`). */
  "view-episodes": { min: 1, max: 10_000 },
  /** K, the exploration seeds the replay view re-plays (`--views ...,replay`; at most --explore-episodes). */
  "replay-episodes": { min: 1, max: 10_000 },
} as const satisfies Record<string, IntRange>;
type RangedFlag = keyof typeof FLAG_RANGES;

/** A shared numeric flag, checked against its FLAG_RANGES entry. */
export function rangedFlag(flag: RangedFlag, value: string | undefined, fallback: number): number {
  return intFlag(flag, value, fallback, FLAG_RANGES[flag]);
}

/** Games named on --games; a game that is still a placeholder in this build is a config error. */
export function resolveGames(value: string | undefined): Game[] {
  if (value === undefined) throw new UsageError("--games is required: 'all' or a comma list");
  let names: string[];
  try {
    names = parseGameList(value);
  } catch (e) {
    throw new UsageError(`--games: ${(e as Error).message}`);
  }
  return names.map((n) => {
    const game = GAMES[n as keyof typeof GAMES];
    try {
      game.reset(0, "explore");
    } catch (e) {
      throw new UsageError(`--games: game '${n}' cannot be played in this build (${(e as Error).message})`);
    }
    return game;
  });
}

/** A share flag (`--max-bad-replies`): a share in [0, 1] (`0.5`) or a percentage (`50%`); `note` says what the ends mean. */
export function shareFlag(flag: string, value: string | undefined, fallback: number, note: string): number {
  if (value === undefined) return fallback;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(value);
  const n = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--${flag} must be a share in 0..1 or a percentage 0%..100% (${note}), got '${value}'`);
  return n;
}

/** One row's value from its flag (absent: the row's default); a UsageError names the flag. */
function settingFromFlag(r: SettingRow & { flag: SettingFlag }, value: string | boolean | undefined): unknown {
  const k = r.flag.kind;
  const text = typeof value === "string" ? value : undefined;
  switch (k.type) {
    case "int":
      return intFlag(r.flag.name, text, r.default as number, k.range);
    case "choice":
      return oneOf(r.flag.name, text, k.choices, r.default as string);
    case "switch":
      return value === true ? k.on : r.default;
    case "share":
      return shareFlag(r.flag.name, text, r.default as number, k.note);
    case "text":
      if (text === undefined) return r.default;
      try {
        return k.parse(text);
      } catch (e) {
        throw new UsageError(`--${r.flag.name}: ${(e as Error).message}`);
      }
  }
}

/**
 * The protocol numbers from the shared flags (names as on `s3gym run`, every PROTOCOL_SETTINGS row
 * with a flag; a row without one is left unset); a UsageError names the flag.
 */
export function settingsFromFlags(v: Readonly<Record<string, string | boolean | string[] | undefined>>): ProtocolSettings {
  const out: Record<string, unknown> = {};
  for (const r of flaggedRows("run")) {
    const raw = v[r.flag.name];
    const value = settingFromFlag(r, Array.isArray(raw) ? raw.join(",") : raw);
    if (value !== undefined) out[r.key] = value;
  }
  const settings = out as unknown as ProtocolSettings;
  checkSettings(settings);
  return settings;
}

/**
 * The checks between settings (each flag is checked alone where it is read): the reply's reserve
 * inside the context, and a schedule a machine can finish. A UsageError names the flags.
 */
export function checkSettings(settings: ProtocolSettings): void {
  if (settings.contextTokens <= settings.maxNewTokens) {
    throw new UsageError(`--context-tokens (${settings.contextTokens}) must exceed --max-new-tokens (${settings.maxNewTokens}): the reply is reserved inside the context`);
  }
  // Each flag within its range can still multiply into a schedule no machine finishes (10000
  // exploration episodes x a checkpoint each x 10000 evaluation episodes = 10^8 episodes per run).
  const planned = totalEpisodes(settings.exploreEpisodes, settings.checkpointEvery, settings.evalEpisodes);
  if (planned > MAX_PLANNED_EPISODES) {
    throw new UsageError(
      `--explore-episodes ${settings.exploreEpisodes}, --checkpoint-every ${settings.checkpointEvery} and --eval-episodes ${settings.evalEpisodes} plan ${planned} episodes per run, more than ${MAX_PLANNED_EPISODES}: checkpoint less often (a larger --checkpoint-every) or evaluate fewer episodes`,
    );
  }
}

/** The most episodes one run may plan (exploration plus every checkpoint's evaluation). */
export const MAX_PLANNED_EPISODES = 100_000;

/** `s3gym run`'s evaluation views (views.md). */
export const VIEW_FLAGS = {
  views: { type: "string" },
  "view-episodes": { type: "string" },
  "replay-episodes": { type: "string" },
} as const;

/**
 * `--views eval,id,replay [--view-episodes N] [--replay-episodes K]` -> the settings' `views`, or
 * undefined when `--views` is absent or names `eval` alone (the run is then exactly the paper's).
 * `eval` is always on; N defaults to `--eval-episodes`, K to 3 and may not exceed the exploration
 * episodes (a seed is replayed only once explored). A UsageError names the flag.
 */
export function viewsFromFlags(v: Partial<Record<"views" | "view-episodes" | "replay-episodes", string>>, settings: ProtocolSettings): ViewSettings | undefined {
  if (v.views === undefined) {
    const stray = (["view-episodes", "replay-episodes"] as const).filter((f) => v[f] !== undefined);
    if (stray.length > 0) throw new UsageError(`--${stray[0]} is only used with --views (e.g. --views eval,id,replay)`);
    return undefined;
  }
  const names = [...new Set(v.views.split(",").map((x) => x.trim()).filter(Boolean))];
  if (names.length === 0) throw new UsageError("--views is empty: give a comma list of eval, id, replay");
  for (const n of names) oneOf("views", n, VIEWS);
  const extra = EXTRA_VIEWS.filter((x) => names.includes(x));
  if (v["view-episodes"] !== undefined && !extra.includes("id")) throw new UsageError("--view-episodes sets the id view's episodes: add 'id' to --views, or drop it");
  if (v["replay-episodes"] !== undefined && !extra.includes("replay")) throw new UsageError("--replay-episodes sets the replay view's episodes: add 'replay' to --views, or drop it");
  const viewEpisodes = rangedFlag("view-episodes", v["view-episodes"], settings.evalEpisodes);
  const replayEpisodes = extra.includes("replay") ? rangedFlag("replay-episodes", v["replay-episodes"], Math.min(DEFAULT_REPLAY_EPISODES, settings.exploreEpisodes)) : 0;
  if (extra.includes("replay") && replayEpisodes > settings.exploreEpisodes) {
    throw new UsageError(`--replay-episodes ${replayEpisodes} exceeds --explore-episodes ${settings.exploreEpisodes}: the replay view re-plays exploration seeds, each once explored`);
  }
  if (extra.length === 0) return undefined;
  return { extra, viewEpisodes: extra.includes("id") ? viewEpisodes : 0, replayEpisodes: extra.includes("replay") ? replayEpisodes : 0 };
}

/** The model context from the shared flags (names as on `s3gym run`); a UsageError names the flag. */
export function modelContextFromFlags(
  v: Partial<Record<"concurrency" | "max-retries" | "max-retry-after" | "timeout-ms" | "api-key-env" | "models-file" | "max-tokens-param" | "drop-params", string>> & { "base-url"?: string | string[] },
  env: Record<string, string | undefined>,
): Partial<ModelContext> {
  const ctx: Partial<ModelContext> = {
    concurrency: rangedFlag("concurrency", v.concurrency, 8),
    maxRetries: rangedFlag("max-retries", v["max-retries"], 5),
    timeoutMs: rangedFlag("timeout-ms", v["timeout-ms"], 600_000),
    env,
  };
  if (v["max-retry-after"] !== undefined) ctx.backoff = { maxRetryAfterMs: rangedFlag("max-retry-after", v["max-retry-after"], 600) * 1000 };
  // Each URL is checked (http(s), distinct hosts) where the model resolves (createModel.ts's poolUrls).
  if (v["base-url"] !== undefined) ctx.baseUrl = typeof v["base-url"] === "string" ? v["base-url"] : v["base-url"].join(",");
  if (v["max-tokens-param"] !== undefined) ctx.maxTokensParam = oneOf("max-tokens-param", v["max-tokens-param"], MAX_TOKENS_PARAMS);
  if (v["drop-params"] !== undefined) {
    const list = v["drop-params"].split(",").map((x) => x.trim()).filter(Boolean);
    ctx.dropParams = list.map((x) => oneOf("drop-params", x, DROPPABLE_PARAMS));
  }
  if (v["api-key-env"] !== undefined) {
    // Neither message echoes the value: it may be a key pasted in the wrong place.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v["api-key-env"])) throw new UsageError("--api-key-env must be the NAME of an environment variable (letters, digits, _), not a key");
    if (looksLikeKey(v["api-key-env"])) {
      registerSecret(v["api-key-env"]);
      throw new UsageError("--api-key-env looks like a key, not the NAME of an environment variable (not shown): put the key in a variable (export MY_KEY=...) and pass --api-key-env MY_KEY");
    }
    ctx.apiKeyEnv = v["api-key-env"];
  }
  if (v["models-file"] !== undefined) {
    try {
      ctx.models = loadModelsFile(v["models-file"]);
    } catch (e) {
      throw new UsageError(`--models-file: ${(e as Error).message}`);
    }
  }
  return ctx;
}
