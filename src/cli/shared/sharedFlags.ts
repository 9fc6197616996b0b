/**
 * Flags shared by `run`, `train-loop` and `build-sft`: the protocol numbers and the endpoint
 * settings, parsed in one place so every command names them, defaults them and rejects them alike.
 */
import { totalEpisodes } from "../../runner/loop/schedule.js";
import { GAMES, parseGameList } from "../../games/registry.js";
import type { Game } from "../../games/types.js";
import type { ModelContext } from "../../models/assembleModel.js";
import { ENDPOINT_OPTION_ROWS, ENDPOINT_OPTIONS, endpointContextFromFlags } from "../../models/endpointOptions.js";
import type { ProtocolSettings, ViewSettings } from "../../runner/loop/context.js";
import { PROTOCOL_SETTINGS, settingOption, type SettingFlag, type SettingRow } from "../../runner/settings/protocolSettings.js";
import { listItems, optionFlags, optionRows, readOption, readOptions, shareFlag, usageLines, usageToken, type Option } from "../../util/options.js";
import { pathwayOptions } from "../../pathways/registry.js";
import { DEFAULT_REPLAY_EPISODES, VIEW_OPTIONS } from "../../runner/loop/views.js";
import { EXTRA_VIEWS, VIEWS } from "../../logs/schema.js";
import { SFT_OPTIONS, type SftSelection } from "../../training/buildSft.js";
import { intFlag, oneOf, UsageError, type IntRange } from "./args.js";

/** The commands that take the protocol's flags: `run` plays a protocol loop (it alone has `--checkpoint-every`). */
export type ProtocolCommand = "run" | "train-loop";

/** The flagged rows of PROTOCOL_SETTINGS that `command` offers, in the table's order. */
function flaggedRows(command: ProtocolCommand): (SettingRow & { flag: SettingFlag })[] {
  return PROTOCOL_SETTINGS.filter((r): r is SettingRow & { flag: SettingFlag } => r.flag !== null && (command === "run" || r.flag.runOnly !== true));
}

/** The option rows of the protocol's flags on `command`, in the table's order. */
function protocolOptions(command: ProtocolCommand): Option<unknown>[] {
  return flaggedRows(command).map(settingOption);
}

/** The protocol's flags on `command`, for parseFlags (from PROTOCOL_SETTINGS). */
export function protocolFlags(command: ProtocolCommand): Record<string, { type: "string" | "boolean" }> {
  return optionFlags(protocolOptions(command));
}

/** The usage lines of the protocol's flags on `command`: the tokens filled to USAGE_WIDTH, then one line per flag with help. */
export function protocolUsage(command: ProtocolCommand): string[] {
  return usageLines(protocolOptions(command));
}

/** Where and how model calls go: the endpoint rows' flags (src/models/endpointOptions.ts). */
export const ENDPOINT_FLAGS = optionFlags(ENDPOINT_OPTION_ROWS);

/** `--no-cache`, which the command reads itself (the cache folder is the command's). */
export function noCacheFlag(v: Readonly<Record<string, unknown>>): boolean {
  return v[ENDPOINT_OPTIONS.noCache.name] === true;
}

/** The `--models-file` path as given (the run records it), or undefined. */
export function modelsFilePath(v: Readonly<Record<string, unknown>>): string | undefined {
  const p = v[ENDPOINT_OPTIONS.modelsFile.name];
  return typeof p === "string" ? p : undefined;
}

/** `--concurrency` alone (build-sft's corrections), from its row. */
export function concurrencyFlag(v: Readonly<Record<string, unknown>>): number {
  return readOption(ENDPOINT_OPTIONS.concurrency, v[ENDPOINT_OPTIONS.concurrency.name] as string | undefined) as number;
}

/** The usage lines of the endpoint flags (from their rows). */
export function endpointUsage(): string[] {
  return usageLines(ENDPOINT_OPTION_ROWS);
}

/** BuildSFT's selection and format (`build-sft`, and each round of `train-loop`): the flags of its rows (training/buildSft.ts). */
export const SFT_FLAGS = optionFlags(optionRows(SFT_OPTIONS));

/** The usage line of BuildSFT's rows. */
export function sftUsage(): string[] {
  return usageLines(optionRows(SFT_OPTIONS));
}

/** BuildSFT's options from its rows, and the checks between them; a UsageError names the flag. */
export function sftFromFlags(v: Readonly<Record<string, string | boolean | string[] | undefined>>): SftSelection {
  const s = readOptions(SFT_OPTIONS, v);
  if (s.correctModel !== null && s.lowScore !== "correct") throw new UsageError("--correct-model is only used with --low-score correct");
  if (!s.maskEarlierAnswers && s.format !== "openai-chat") throw new UsageError("--train-all-turns only applies to --format openai-chat (sharegpt carries no per-turn weight)");
  return s;
}

/**
 * The range of every numeric flag shared by run, train-loop and build-sft besides the protocol's
 * (their rows in PROTOCOL_SETTINGS hold theirs). The upper bounds are low enough that a typo fails
 * with its range instead of exhausting memory or Node's timer limit.
 */
export const FLAG_RANGES = {
  concurrency: rangeOf(ENDPOINT_OPTIONS.concurrency),
  "max-retries": rangeOf(ENDPOINT_OPTIONS.maxRetries),
  /** Seconds: the longest wait a server's Retry-After can impose per retry (default 600). */
  "max-retry-after": rangeOf(ENDPOINT_OPTIONS.maxRetryAfter),
  /** Node's timers hold at most 2^31-1 ms; a larger delay is clamped to 1 ms. */
  "timeout-ms": rangeOf(ENDPOINT_OPTIONS.timeoutMs),
  /** Episodes of the id view per checkpoint (`--views ...,id`). */
  "view-episodes": rangeOf(VIEW_OPTIONS.viewEpisodes),
  /** K, the exploration seeds the replay view re-plays (`--views ...,replay`; at most --explore-episodes). */
  "replay-episodes": rangeOf(VIEW_OPTIONS.replayEpisodes),
} as const satisfies Record<string, IntRange>;
type RangedFlag = keyof typeof FLAG_RANGES;

/** An int row's range (for the ranges listed beside the other flags'). */
function rangeOf(o: Option<unknown>): IntRange {
  if (o.kind.type !== "int") throw new Error(`--${o.name} is not an integer flag`);
  return o.kind.range;
}

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

export { shareFlag };

/**
 * The protocol numbers from the shared flags (names as on `s3gym run`, every PROTOCOL_SETTINGS row
 * with a flag; a row without one is left unset); a UsageError names the flag.
 */
export function settingsFromFlags(v: Readonly<Record<string, string | boolean | string[] | undefined>>): ProtocolSettings {
  const out: Record<string, unknown> = {};
  for (const r of flaggedRows("run")) {
    // Absent: the row's default where the settings carry it (DEFAULT_SETTINGS), else left unset.
    const given = v[r.flag.name];
    const value = given === undefined && !r.inDefaults ? undefined : readOption(settingOption(r), given);
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

/** The flags of the pathways' own option rows (`--broad-batch`, `--verifier-model`: pathways/verified.ts), for `s3gym run`. */
export function pathwayFlags(): Record<string, { type: "string" | "boolean"; multiple?: boolean }> {
  return optionFlags(pathwayOptions().flatMap((p) => p.rows));
}

/** The usage lines of the pathways' own flags: one line per pathway that has any. */
export function pathwayUsage(): string[] {
  return pathwayOptions().map(({ pathway, rows }) => `  ${rows.map(usageToken).join(" ")}: --pathways ${pathway} only`);
}

/**
 * Each pathway's settings from its flags (names as flags): the settings of a pathway on `pathways`
 * (defaults filled in), null for one that is not; a pathway's flag given without it is a UsageError.
 * Keyed by pathway name, as a job file holds them.
 */
export function pathwaySettingsFromFlags(v: Readonly<Record<string, unknown>>, pathways: readonly string[]): Record<string, Record<string, unknown> | null> {
  const out: Record<string, Record<string, unknown> | null> = {};
  for (const { pathway, rows } of pathwayOptions()) {
    if (!pathways.includes(pathway)) {
      const many = rows.length > 1;
      if (rows.some((r) => v[r.name] !== undefined))
        throw new UsageError(
          `${rows.map((r) => `--${r.name}`).join(" and ")} ${many ? "are" : "is"} only used with --pathways ${pathway} (add '${pathway}' to --pathways, or drop ${many ? "them" : "it"})`,
        );
      out[pathway] = null;
      continue;
    }
    out[pathway] = Object.fromEntries(rows.map((r) => [r.key, readOption(r, v[r.name] as string | boolean | string[] | undefined)]));
  }
  return out;
}

/** `s3gym run`'s evaluation views (views.md). */
export const VIEW_FLAGS = optionFlags(optionRows(VIEW_OPTIONS));

/** The usage line of the view flags (from their rows in src/runner/loop/views.ts). */
export function viewUsage(): string[] {
  return usageLines(optionRows(VIEW_OPTIONS));
}

/**
 * `--views eval,id,replay [--view-episodes N] [--replay-episodes K]` -> the settings' `views`, or
 * undefined when `--views` is absent or names `eval` alone (the run is then exactly the paper's).
 * `eval` is always on; N defaults to `--eval-episodes`, K to 3 and may not exceed the exploration
 * episodes (a seed is replayed only once explored). A UsageError names the flag.
 */
export function viewsFromFlags(given: Readonly<Record<string, unknown>>, settings: ProtocolSettings): ViewSettings | undefined {
  const v = given as Partial<Record<"views" | "view-episodes" | "replay-episodes", string>>;
  // Read in this order (not readOptions): a stray --view-episodes is named before its value is checked.
  if (v.views === undefined) {
    const stray = (["view-episodes", "replay-episodes"] as const).filter((f) => v[f] !== undefined);
    if (stray.length > 0) throw new UsageError(`--${stray[0]} is only used with --views (e.g. --views eval,id,replay)`);
    return undefined;
  }
  const names = listItems(v.views);
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

/** The model context from the shared flags (names as on `s3gym run`, the endpoint rows); a UsageError names the flag. */
export function modelContextFromFlags(v: Readonly<Record<string, string | boolean | string[] | undefined>>, env: Record<string, string | undefined>): Partial<ModelContext> {
  const ctx = endpointContextFromFlags(v);
  return { concurrency: ctx.concurrency, maxRetries: ctx.maxRetries, timeoutMs: ctx.timeoutMs, env, ...ctx };
}
