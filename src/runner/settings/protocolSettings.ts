/**
 * The protocol settings, once: their type (ProtocolSettings) and one table row per setting saying
 * its flag, range or choices, default, help text, manifest key, whether a resume and the data
 * directory compare it, and what its key meant when an old manifest lacks it. Everything else is
 * derived from PROTOCOL_SETTINGS, never spelled again:
 *   - the flags, their parser, their usage lines and settings -> flags (src/cli/shared/sharedFlags.ts);
 *   - DEFAULT_SETTINGS (context.ts);
 *   - the manifest mapping in both directions and the absent-key defaults a resume applies
 *     (protocolRecord.ts, manifest.ts checkResumable);
 *   - the data directory's compared fields and their absent-key defaults (dataDirProtocol.ts).
 * A new setting is one row here (and its field in ProtocolSettings), plus its documented field in
 * SettingsRecord of src/logs/schema.ts when it is recorded (that file documents every logged field;
 * tests/runner/protocolSettings.test.ts fails when the two disagree).
 *
 * Rows are in the order of the recorded protocol's keys: a manifest's `config.protocol` is written
 * in this order, so moving a row changes the bytes of every new manifest.
 */
import { DEFAULT_PARSE_RULE, type ParseRule } from "../../agent/parseResponse.js";
import { ANSWER_FROM, type AnswerFrom } from "../../agent/reply.js";
import { DEFAULT_MAX_BAD_REPLIES } from "../../logs/qualityThresholds.js";
import { EXTRA_VIEWS, type ExtraView } from "../../logs/schema.js";
import { TOKENIZERS, type TokenizerName } from "../../models/tokens.js";
import { HISTORY_CUTS, type HistoryCut } from "../../pathways/history.js";
import { HYBRID_SETTING_ROWS } from "../../pathways/hybrid.js";
import { JUDGE_USAGE, parseJudge } from "../../pathways/judge.js";
import { VERIFIED_RECORD, type VerifiedSettings } from "../../pathways/verified.js";
import { rowsCovering, type IntRange, type Option, type OptionKind } from "../../util/options.js";

/** The views besides `eval` (played by runViewCheckpoint). */
export type { ExtraView };

/** `--views`, `--view-episodes`, `--replay-episodes` as the runner uses them. */
export interface ViewSettings {
  /** The extra views on, in the order id, replay (`eval` is always on). */
  extra: ExtraView[];
  /** Episodes of the `id` view per checkpoint. */
  viewEpisodes: number;
  /** K: the replay view re-plays exploration seeds 1..K. */
  replayEpisodes: number;
}

/** Every number of the protocol (protocol.md, "Defaults"): one config field each, one PROTOCOL_SETTINGS row each. */
export interface ProtocolSettings {
  exploreEpisodes: number;
  checkpointEvery: number;
  evalEpisodes: number;
  /** Step cap; a game whose config sets a shorter cap keeps its own. */
  maxSteps: number;
  /** History ICL budget (and the bound the summary prompt is cut to). */
  contextTokens: number;
  /** Reply reserve, sent as max_tokens on every call. */
  maxNewTokens: number;
  tokenizer: TokenizerName;
  rewardVisibility: "hidden" | "visible";
  /** How replies are read (agent/parseResponse.ts): KORGym-compatible `last-answer`, or `strict-contract`. */
  parseRule: ParseRule;
  runSeed: number;
  /** `--views` (views.md): the id and replay views; absent = the protocol's `eval` view alone (today's run). */
  views?: ViewSettings;
  /**
   * Verified runs only (verified.md): episodes per broad batch and the model of the curriculum and
   * verifier roles (null: the run's model). Absent for every other pathway, so their recorded
   * protocol is unchanged.
   */
  verified?: VerifiedSettings;
  /**
   * Where the Answer/Score lines are read (`--answer-from`): `content` (default; a reasoning field is
   * kept but never parsed, it may hold decoy lines), `reasoning`, or `both` (content, then the
   * reasoning when the content holds no action). Recorded in the manifest when not `content`.
   */
  answerFrom?: AnswerFrom;
  /** `--max-bad-replies`: the share (0..1) of bad step replies that stops a run as degenerate. Default 0.5. */
  maxBadReplies?: number;
  /**
   * `--history-cut`: how History's truncation moves (pathways/history.ts). `anchored` (default of
   * new runs) keeps the prompt a cacheable prefix; `per-step` is the rule of runs written before it.
   * Absent = `per-step`.
   */
  historyCut?: HistoryCut;
  /**
   * `--keep-think`: replay earlier turns' `<think>` blocks in this episode's later prompts. Default
   * (absent): dropped, they are the model's scratch work and can add a sixth to every prompt.
   */
  keepThink?: boolean;
  /**
   * `--judge` (docs/judging.md): which score the experience carries for each exploration step:
   * `verifier`, `shuffled`, `none` or `model:<spec>` (pathways/judge.ts). Absent = `self` (the
   * acting model's own self-scores: the paper's protocol).
   */
  judge?: string;
  /** `--hybrid-k`: earlier exploration steps the hybrid pathway retrieves per step (pathways/hybrid.ts). Absent = its default. */
  hybridK?: number;
  /** `--hybrid-summary-share`: the share of the hybrid pathway's experience budget reserved for the summary. Absent = its default. */
  hybridSummaryShare?: number;
}

/** An integer flag's bounds, both inclusive. */
export type SettingRange = IntRange;

/** How a setting's flag is read: an option row's kind (src/util/options.ts). */
export type FlagKind = OptionKind;

/** A setting's flag: its option row (name, kind, help; the default is the setting row's) and on which commands. */
export interface SettingFlag extends Omit<Option<unknown>, "default"> {
  /** Only on `s3gym run` (a protocol loop's schedule); other commands use the default. */
  runOnly?: true;
}

/** A flagged setting's option row, its default included (what the parser, usage and schemas read). */
export function settingOption(r: SettingRow & { flag: SettingFlag }): Option<unknown> {
  return { ...r.flag, default: r.default };
}

export interface SettingRecordSpec<V> {
  /** The key in a manifest's `config.protocol` (SettingsRecord of src/logs/schema.ts). */
  key: string;
  /** Whether a resume and the data-directory check refuse a change of it (dataDirProtocol.ts). */
  compared: boolean;
  /**
   * What the key meant when a manifest lacks it (written before it was recorded, or left out at its
   * default), as a recorded value. A key every new run records reads as this on resume.
   */
  absent?: unknown;
  /** Setting -> recorded value; undefined: not written. Default: the value, or `absent` when unset. */
  write?(value: V | undefined): unknown;
  /** Recorded value (undefined when missing) -> setting; undefined: unset. Default: the value, or `absent`. Throws naming `where`. */
  read?(recorded: unknown, where: string): V | undefined;
}

export interface SettingRow<K extends keyof ProtocolSettings = keyof ProtocolSettings> {
  key: K;
  /** null: set by flags of its own (`--views ...`, `--broad-batch`), parsed by the commands that offer them. */
  flag: SettingFlag | null;
  /** The value when the flag is absent. */
  default: ProtocolSettings[K] | undefined;
  /**
   * Whether the settings carry the default when nothing sets it (DEFAULT_SETTINGS, and a command line
   * or job file without the flag); false: left unset and read as the default where it is used (the
   * usage still shows it), so a library caller's settings stay as they always were.
   */
  inDefaults: boolean;
  /** How it is recorded in a manifest; null: not recorded (it does not change what the episodes are). */
  record: SettingRecordSpec<ProtocolSettings[K]> | null;
}

/** A row, type-checked against its setting. */
function row<K extends keyof ProtocolSettings>(r: SettingRow<K>): SettingRow<K> {
  return r;
}

/**
 * The integer ranges are far beyond any real protocol (the paper: 30 exploration episodes, 3
 * evaluation episodes, 64 steps) and low enough that a typo fails with its range instead of
 * exhausting memory.
 */
export const PROTOCOL_ROWS = [
  row({
    key: "exploreEpisodes",
    flag: { name: "explore-episodes", kind: { type: "int", range: { min: 0, max: 10_000 } } },
    default: 30,
    inDefaults: true,
    record: { key: "explore_episodes", compared: true },
  }),
  row({
    key: "checkpointEvery",
    flag: { name: "checkpoint-every", kind: { type: "int", range: { min: 1, max: 10_000 } }, runOnly: true },
    default: 3,
    inDefaults: true,
    record: { key: "checkpoint_every", compared: true },
  }),
  row({ key: "evalEpisodes", flag: { name: "eval-episodes", kind: { type: "int", range: { min: 1, max: 10_000 } } }, default: 3, inDefaults: true, record: { key: "eval_episodes", compared: true } }),
  row({ key: "maxSteps", flag: { name: "max-steps", kind: { type: "int", range: { min: 1, max: 100_000 } } }, default: 64, inDefaults: true, record: { key: "max_steps", compared: true } }),
  row({
    key: "contextTokens",
    flag: { name: "context-tokens", kind: { type: "int", range: { min: 1, max: 100_000_000 } } },
    default: 100_000,
    inDefaults: true,
    record: { key: "context_tokens", compared: true },
  }),
  // Not compared: a models-file entry may set its own max_tokens.
  row({
    key: "maxNewTokens",
    flag: { name: "max-new-tokens", kind: { type: "int", range: { min: 1, max: 100_000_000 } } },
    default: 14_000,
    inDefaults: true,
    record: { key: "max_new_tokens", compared: false },
  }),
  row({
    key: "tokenizer",
    flag: { name: "tokenizer", kind: { type: "choice", choices: TOKENIZERS } },
    default: "o200k",
    inDefaults: true,
    record: {
      key: "tokenizer",
      compared: true,
      read(r, where) {
        if (!(TOKENIZERS as readonly unknown[]).includes(r)) throw new Error(`${where}.tokenizer: '${String(r)}' is not a tokenizer of this kit (expected ${TOKENIZERS.join(" or ")})`);
        return r as TokenizerName;
      },
    },
  }),
  row({
    key: "rewardVisibility",
    flag: { name: "reward-visibility", kind: { type: "choice", choices: ["hidden", "visible"] } },
    default: "hidden",
    inDefaults: true,
    record: { key: "reward_visibility", compared: true },
  }),
  // Absent before it was recorded: those runs were read by the literal contract.
  row({
    key: "parseRule",
    flag: { name: "strict-contract", kind: { type: "switch", on: "strict-contract" satisfies ParseRule } },
    default: DEFAULT_PARSE_RULE,
    inDefaults: true,
    record: { key: "parse_rule", compared: true, absent: "strict-contract" },
  }),
  // Not compared: replicates share a data directory.
  row({ key: "runSeed", flag: { name: "run-seed", kind: { type: "int", range: { min: 0, max: 4_294_967_295 } } }, default: 0, inDefaults: true, record: { key: "run_seed", compared: false } }),
  row({
    key: "verified",
    flag: null,
    default: undefined,
    inDefaults: false,
    // Only verified runs record it, so every other run's protocol reads as before.
    record: {
      key: "verified",
      compared: false,
      write: VERIFIED_RECORD.write,
      read: VERIFIED_RECORD.read,
    },
  }),
  row({
    key: "answerFrom",
    flag: { name: "answer-from", kind: { type: "choice", choices: ANSWER_FROM } },
    default: "content",
    inDefaults: false,
    // Where answers are parsed changes what the episodes are; recorded only when not the default so
    // that runs written before the flag existed still resume.
    record: { key: "answer_from", compared: true, absent: "content", write: (v) => (v !== undefined && v !== "content" ? v : undefined), read: (r) => r as AnswerFrom | undefined },
  }),
  // Not recorded: it decides when a run stops, not what its episodes are.
  row({
    key: "maxBadReplies",
    flag: { name: "max-bad-replies", kind: { type: "share", shown: "50%", note: "1 or 100% never stops a run" } },
    default: DEFAULT_MAX_BAD_REPLIES,
    inDefaults: false,
    record: null,
  }),
  // Absent before it was recorded: those runs were cut per step.
  row({
    key: "historyCut",
    flag: { name: "history-cut", kind: { type: "choice", choices: HISTORY_CUTS } },
    default: "anchored",
    inDefaults: true,
    record: { key: "history_cut", compared: true, absent: "per-step" },
  }),
  row({
    key: "keepThink",
    flag: { name: "keep-think", kind: { type: "switch", on: true }, help: "replay earlier turns' <think> blocks (default: dropped from later prompts)" },
    default: undefined,
    inDefaults: false,
    // Recorded only when on, so the protocol of runs without it reads as before (docs/endpoints.md).
    record: { key: "think_replay", compared: true, absent: "drop", write: (v) => (v === true ? "keep" : undefined), read: (r) => (r === "keep" ? true : undefined) },
  }),
  row({
    key: "views",
    flag: null,
    default: undefined,
    inDefaults: false,
    // Only with --views: a run without them records (and compares on resume) exactly what it did before
    // views existed. Not compared here: a resume may add views (manifest.ts checkResumable).
    record: {
      key: "views",
      compared: false,
      write: (v) => (v ? { names: ["eval", ...v.extra], view_episodes: v.viewEpisodes, replay_episodes: v.replayEpisodes } : undefined),
      read: (r) => {
        const v = r as { names: string[]; view_episodes: number; replay_episodes: number } | undefined;
        return v ? { extra: EXTRA_VIEWS.filter((x) => v.names.includes(x)), viewEpisodes: v.view_episodes, replayEpisodes: v.replay_episodes } : undefined;
      },
    },
  }),
  row({
    key: "judge",
    flag: {
      name: "judge",
      kind: {
        type: "text",
        shown: JUDGE_USAGE,
        parse: (v) => {
          const j = parseJudge(v);
          return j === "self" ? undefined : j;
        },
      },
      help: "which score the experience carries per exploration step (docs/judging.md; default self)",
    },
    default: undefined,
    inDefaults: false,
    // Recorded only when not `self`, so every run without it records what it did before the axis.
    // Not compared across a data directory (runs under several judges sit side by side, each its own
    // run id); a resume compares every recorded key, so a run never changes judge.
    record: { key: "judge", compared: false, write: (v) => (v !== undefined && v !== "self" ? v : undefined), read: (r, where) => (r === undefined ? undefined : parseRecordedJudge(r, where)) },
  }),
  // The hybrid pathway's own settings: their flags and records live in pathways/hybrid.ts.
  row({ key: "hybridK", ...HYBRID_SETTING_ROWS.hybridK, default: undefined, inDefaults: false }),
  row({ key: "hybridSummaryShare", ...HYBRID_SETTING_ROWS.hybridSummaryShare, default: undefined, inDefaults: false }),
];

/** The rows, one per ProtocolSettings field (a field without a row does not compile). */
export const PROTOCOL_SETTINGS: readonly SettingRow[] = rowsCovering<ProtocolSettings>()(PROTOCOL_ROWS);

function parseRecordedJudge(r: unknown, where: string): string | undefined {
  if (typeof r !== "string") throw new Error(`${where}.judge: expected a judge name, got ${JSON.stringify(r)}`);
  const j = parseJudge(r);
  return j === "self" ? undefined : j;
}
