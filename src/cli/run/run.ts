/**
 * `s3gym run`: the S3Gym protocol over a matrix of models x games x pathways (protocol.md), and the
 * training pathway's checkpoint curves (`--pathways training --checkpoints m0,m1,...`: each checkpoint
 * evaluated on every game's eval config, epoch = position in the list; src/runner/loop/evalList.ts).
 * Every configuration error (a bad number, an unknown game or pathway, an unknown model scheme, a
 * missing API key, a protocol clash with existing logs) fails before any model call, naming the
 * flag, with exit code 2. Runs whose checkpoints failed on infrastructure end with exit code 1.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { shellQuote } from "../../util/shellQuote.js";
import type { Game } from "../../games/types.js";
import { createModelContext, validateModelSpecs, type ModelContext, type ResolvedModel } from "../../models/assembleModel.js";
import { modelSpecNotice } from "../../models/modelSpec.js";
import { formatPreflight } from "../../models/preflight/preflight.js";
import { createModel } from "../../runner/createModel.js";
import { preflightModels } from "../../runner/monitor/endpointPreflight.js";
import { checkCheckpointModels, checkpointsFromSpecs, parseCheckpointList, parseCheckpointsFile, type CheckpointSpec } from "../../training/checkpoints.js";
import { runCheckpointList } from "../../runner/loop/evalList.js";
import type { ProtocolSettings } from "../../runner/loop/context.js";
import { pathwayNames, pathwayOptions, playsProtocolLoop, TRAINING_PATHWAY } from "../../pathways/registry.js";
import { Progress, type ProgressMode, type ProgressStream } from "../../runner/monitor/progress.js";
import { planMatrix, preflightRun, runMatrix, type RunOutcome } from "../../runner/loop/runLoop.js";
import { parseShard, planRuns, shardFromEnv, type MatrixEntry, type RunPlan, type Shard, type ShardSource } from "../../runner/loop/schedule.js";
import type { RunJobSettings } from "../../runner/settings/jobSettings.js";
import { readJobFile, refuseFlagsBesideJob } from "./jobFile.js";
import { checkShardPlan, makeShardPlan, recordShardPlan, SHARD_OPTIONS } from "../../runner/shards/shardPlan.js";
import { terminalSafe } from "../../models/secrets.js";
import { DEFAULT_MAX_BAD_REPLIES } from "../../logs/qualityThresholds.js";
import { checkDataDirProtocol } from "../../runner/shards/dataDirProtocol.js";
import { ESTIMATE_POLICY, estimateMatrix } from "../../runner/monitor/estimate.js";
import { formatEstimate, totalOf } from "./estimateTable.js";
import type { CapLimits } from "../../runner/monitor/spendCap.js";
import type { EstimateRow } from "../../runner/monitor/estimate.js";
import { runDir, shardDirName } from "../../logs/runDir.js";
import { commaList, optionFlags, optionRows, readOption, readOptions, usageLines, type OptionTable } from "../../util/options.js";
import { PROGRESS_OPTION } from "../../runner/monitor/progress.js";
import { PREFLIGHT_OPTIONS } from "../../runner/monitor/endpointPreflight.js";
import { ESTIMATE_OPTION } from "../../runner/monitor/estimate.js";
import { SPEND_CAP_OPTIONS } from "../../runner/monitor/spendCap.js";
import { CHECKPOINT_OPTIONS } from "../../training/checkpoints.js";
import { MATRIX_OPTIONS } from "../../runner/settings/jobSettings.js";
import { folderFlag, labelFlag, oneOf, parseFlagsAndPositionals, UsageError, withoutFlags, type FlagSpec, type FlagValues } from "../shared/args.js";
import { isStudyPath, loadStudy, recordStudy, SMOKE_PROTOCOL, studyFileIn, studyRecord, type Study, type StudyRecord } from "../study/loadStudy.js";
import { formatInterrupt } from "./runInterrupt.js";
import { commandRecord, episodeProgress } from "../../runner/monitor/runProgress.js";
import { formatRunSummary, formatTotals, reportCommand, summarizeRun } from "./runSummary.js";
import {
  ENDPOINT_FLAGS,
  endpointUsage,
  modelContextFromFlags,
  modelsFilePath,
  noCacheFlag,
  pathwayFlags,
  pathwaySettingsFromFlags,
  pathwayUsage,
  protocolFlags,
  protocolUsage,
  resolveGames,
  settingsFromFlags,
  VIEW_FLAGS,
  viewsFromFlags,
  viewUsage,
} from "../shared/sharedFlags.js";
import { judgeModel } from "../../pathways/judge.js";
import { readRejudgeSource, REJUDGE_OPTIONS, rejudgeRuns } from "../../runner/resume/rejudge.js";

/** The command's own rows: a job file instead of flags, and the smoke check. */
const RUN_OPTIONS = {
  job: { name: "job", kind: { type: "text", shown: "FILE", parse: (v: string) => v }, default: undefined, about: "the settings from a job file (docs/runner.md)" },
  smoke: {
    name: "smoke",
    kind: { type: "switch", on: true },
    default: false,
    help: "1 exploration episode, a checkpoint after it, 1 evaluation episode, 4 steps per game, into the study's\n              smoke folder (smoke/data) or, with flags, into <--data>-smoke: checks an endpoint end to end",
  },
} as const satisfies OptionTable<{ job: string | undefined; smoke: boolean }>;

export const RUN_USAGE = [
  "s3gym run STUDY.yaml [--smoke] [flags]: play a study file (docs/study.md); a flag given overrides the file's value",
  "s3gym run --models M1,M2 --games all|g1,g2 --pathways history,memory,none --data DIR",
  "s3gym run --pathways training --checkpoints M0,M1,... | --checkpoints-file F [--label NAME] --games ... --data DIR",
  "s3gym run --job FILE [--progress ...]: the settings from a job file (docs/runner.md, 'Job files'), no other flag",
  ...protocolUsage("run"),
  ...endpointUsage(),
  ...usageLines(optionRows(SHARD_OPTIONS)).map((l) => `${l}   (--shard-count: with --shard auto; --no-shard-subdir: with --shard)`),
  ...viewUsage(),
  ...usageLines([PROGRESS_OPTION, ...optionRows(PREFLIGHT_OPTIONS)]),
  ...pathwayUsage(),
  ...usageLines([...optionRows(REJUDGE_OPTIONS), ...optionRows(SPEND_CAP_OPTIONS), RUN_OPTIONS.smoke, ESTIMATE_OPTION]),
].join("\n");

/**
 * parseArgs' values of the command's own rows, typed (text, or a switch's boolean); every other row
 * (protocol, endpoint, shard, views, pathways) is read through its table.
 */
type RunFlagSpec = FlagSpec &
  Record<
    "job" | "models" | "games" | "pathways" | "data" | "progress" | "checkpoints" | "checkpoints-file" | "label" | "max-usd" | "max-input-tokens" | "rejudge" | "rejudge-models",
    { type: "string" }
  > &
  Record<"no-preflight" | "no-probe-window" | "estimate" | "smoke", { type: "boolean" }>;

/** The matrix's rows and the training list's rows are shown by the synopsis lines above (they go together). */
const FLAGS = {
  ...optionFlags([RUN_OPTIONS.job, ...optionRows(MATRIX_OPTIONS)]),
  ...protocolFlags("run"),
  ...optionFlags(optionRows(SHARD_OPTIONS)),
  ...ENDPOINT_FLAGS,
  ...VIEW_FLAGS,
  ...optionFlags([PROGRESS_OPTION, ...optionRows(CHECKPOINT_OPTIONS)]),
  ...pathwayFlags(),
  ...optionFlags([...optionRows(PREFLIGHT_OPTIONS), ESTIMATE_OPTION, ...optionRows(SPEND_CAP_OPTIONS), RUN_OPTIONS.smoke, ...optionRows(REJUDGE_OPTIONS)]),
} as unknown as RunFlagSpec;

/** A pathway's own settings as its runs get them (`{verified: {...}}` for a verified run), or nothing. */
function ownSettings(job: RunJobSettings, pathway: string): Partial<ProtocolSettings> {
  const own = pathwayOptions().some((o) => o.pathway === pathway) ? (job as unknown as Record<string, unknown>)[pathway] : null;
  return own ? ({ [pathway]: own } as Partial<ProtocolSettings>) : {};
}

/** The pathway evaluated from a checkpoint list instead of the protocol loop. */
const TRAINING = TRAINING_PATHWAY;

/** Injection points for tests and embedding; the CLI uses the real process. */
export interface RunCommandDeps {
  env?: Record<string, string | undefined>;
  stdout?: { write(text: string): unknown };
  stderr?: ProgressStream;
  /** Overrides of the model context (e.g. a fast backoff sleep in tests). */
  modelContext?: Partial<ModelContext>;
  /** Progress interval for the plain-lines mode (default 30 s). */
  progressIntervalMs?: number;
}

/** A stream whose text is redacted of every key in use and has its control characters escaped. */
function safeStream<T extends { write(text: string): unknown }>(s: T): T {
  const wrapped = Object.create(s) as T;
  wrapped.write = (text: string) => s.write(terminalSafe(text));
  return wrapped;
}

interface Parsed {
  /** The run's settings as data: what the flags or the job file said (everything below derives from it and the other flags). */
  job: RunJobSettings;
  /** Models of the protocol-loop pathways (empty when only `training` is asked). */
  models: string[];
  /** `--pathways training`: the run's label (the `model` of its records) and the checkpoint list. */
  training: { label: string; checkpoints: CheckpointSpec[] } | null;
  games: Game[];
  pathways: string[];
  dataDir: string;
  settings: ProtocolSettings;
  shard: Shard | null;
  /**
   * With a shard written to its own directory (`--data DIR --shard i/n|auto`: DIR/shard-i-of-n), its
   * plan (shardPlan.ts): where the number came from and the arguments a resume repeats; null otherwise.
   */
  shardPlan: { source: ShardSource | "flag"; argv: string[] } | null;
  cache: boolean;
  progress: ProgressMode;
  ctx: Partial<ModelContext>;
  modelsFile: string | null;
  /** `--pathways verified`: its schedule and roles' model (verified.md). */
  verified: { broadBatch: number; verifierModel: string | null } | null;
  /** Check every endpoint before the first step call (`--no-preflight` skips it). */
  preflight: boolean;
  /** Probe the window of a server that states none, one more call (`--no-probe-window` skips it). */
  probeWindow: boolean;
  /** `--estimate`: print what the run would cost instead of running it. */
  estimate: boolean;
  /** `--max-usd` / `--max-input-tokens` (spendCap.ts). */
  cap: CapLimits;
  /** `s3gym run STUDY.yaml`: the study and its resolved record (written to the data folder once the run starts); null with flags alone. */
  study: { study: Study; record: StudyRecord } | null;
}

/** `--checkpoints` / `--checkpoints-file` / `--label`: only with `--pathways training`, which needs one list. */
function parseTraining(v: { checkpoints?: string; "checkpoints-file"?: string; label?: string }, wanted: boolean): RunJobSettings["training"] {
  const given = [v.checkpoints !== undefined && "--checkpoints", v["checkpoints-file"] !== undefined && "--checkpoints-file", v.label !== undefined && "--label"].filter(Boolean);
  if (!wanted) {
    if (given.length > 0)
      throw new UsageError(`${given.join(", ")} ${given.length > 1 ? "are" : "is"} only used with --pathways training (add 'training' to --pathways, or drop ${given.length > 1 ? "them" : "it"})`);
    return null;
  }
  if (v.checkpoints === undefined && v["checkpoints-file"] === undefined) {
    throw new UsageError(
      "--pathways training needs --checkpoints M0,M1,... or --checkpoints-file F: 'training' is not run by 's3gym run' as a protocol loop, it evaluates a list of model checkpoints (specs in epoch order; epoch 0 = the base model)",
    );
  }
  if (v.checkpoints !== undefined && v["checkpoints-file"] !== undefined) throw new UsageError("give --checkpoints or --checkpoints-file, not both");
  let specs: string[];
  if (v.checkpoints !== undefined) {
    try {
      specs = parseCheckpointList(v.checkpoints);
    } catch (e) {
      throw new UsageError(`--checkpoints: ${(e as Error).message}`);
    }
  } else {
    let text: string;
    try {
      text = readFileSync(v["checkpoints-file"]!, "utf8");
    } catch (e) {
      throw new UsageError(`--checkpoints-file: cannot read '${v["checkpoints-file"]}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      specs = parseCheckpointsFile(text);
    } catch (e) {
      throw new UsageError(`--checkpoints-file ${v["checkpoints-file"]}: ${(e as Error).message}`);
    }
  }
  if (v.label !== undefined && v.label.trim() === "") throw new UsageError("--label is empty: name the training run (it is the `model` of its records and its row in training.csv)");
  // The label defaults to the base model's spec: training.csv's row then reads as that model's curve.
  return { label: labelFlag("--label", v.label?.trim() ?? specs[0]!), checkpoints: specs };
}

/** The study file named on the command line (one `.yaml`/`.yml` positional), or null; anything else positional is refused. */
function studyArg(positionals: readonly string[]): string | null {
  if (positionals.length === 0) return null;
  if (positionals.length > 1 || !isStudyPath(positionals[0]!)) {
    throw new UsageError(`unexpected argument${positionals.length > 1 ? "s" : ""} '${positionals.join(" ")}': s3gym run takes one study file (a .yaml path, docs/study.md) or flags alone`);
  }
  return positionals[0]!;
}

/** The values given on the command line (parseArgs leaves absent flags out; this drops undefined ones too). */
function givenOf(v: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined));
}

/**
 * `s3gym run ARGV`'s settings. With a study file, the study's flag values come first and the flags
 * given override them; `seed` (one of the study's seeds) sets --run-seed unless the flag is given.
 * Everything after that is the one path of flags and job files.
 */
function parse(argv: string[], env: Record<string, string | undefined>, seed: number | null = null): Parsed {
  const { values: given, positionals } = parseFlagsAndPositionals(argv, FLAGS, RUN_USAGE);
  const path = studyArg(positionals);
  if (given.job !== undefined) {
    if (path !== null) throw new UsageError("--job FILE and a study file cannot be mixed: give one of them");
    return parseJob(given, argv, env);
  }
  let v: FlagValues<RunFlagSpec> = given;
  let study: Study | null = null;
  if (path !== null) {
    if (modelsFilePath(given) !== undefined)
      throw new UsageError("--models-file cannot be given with a study file: list the models (with their endpoints, keys' names and prices) under the study's models:");
    study = loadStudy(path, { smoke: given.smoke === true });
    v = { ...study.flags, ...(seed !== null ? { "run-seed": String(seed) } : {}), ...givenOf(given) } as FlagValues<RunFlagSpec>;
  } else if (given.smoke === true) {
    if (given.data === undefined || given.data.trim() === "") throw new UsageError("--data is required: --smoke writes into <--data>-smoke, its own folder");
    const smokeFlags = Object.fromEntries(Object.entries(SMOKE_PROTOCOL).map(([k, x]) => [k, String(x)]));
    v = { ...smokeFlags, ...givenOf(given), data: `${given.data.replace(/[/\\]+$/, "")}-smoke` } as FlagValues<RunFlagSpec>;
  }
  const parsed = parseFlagValues(v, argv, env);
  if (study === null) return parsed;
  if (study.entries.length > 0) parsed.ctx = { ...parsed.ctx, models: study.entries };
  return { ...parsed, study: { study, record: studyRecord(study, givenOf(given)) } };
}

function parseFlagValues(v: FlagValues<RunFlagSpec>, argv: string[], env: Record<string, string | undefined>): Parsed {
  const pathways = commaList("pathways", v.pathways);
  for (const p of pathways) oneOf("pathways", p, pathwayNames());
  const training = parseTraining(v, pathways.includes(TRAINING));
  const loopPathways = pathways.filter(playsProtocolLoop);
  let models: string[] = [];
  if (loopPathways.length > 0) models = commaList("models", v.models);
  else if (v.models !== undefined) throw new UsageError("--models is not used by --pathways training alone: the checkpoints are the models (name the run with --label)");
  const games = resolveGames(v.games);
  if (v.data === undefined || v.data.trim() === "") throw new UsageError("--data is required: the data directory the logs go to");
  const settings = settingsFromFlags(v);
  const views = viewsFromFlags(v, settings);
  if (views) {
    if (training) throw new UsageError("--views applies to the protocol loop's pathways, not to --pathways training (a checkpoint list has no exploration to replay)");
    settings.views = views;
  }
  const { shard, source } = shardFromFlags(v, env);
  const noShardSubdir = readOptions(SHARD_OPTIONS, v).noShardSubdir;
  if (noShardSubdir && shard === null) throw new UsageError("--no-shard-subdir is only used with --shard (it writes the shard into --data itself instead of --data/shard-i-of-n)");
  const ctx = modelContextFromFlags(v, env);
  // Each pathway's own settings (verified: --broad-batch, --verifier-model), under its name.
  const own = pathwaySettingsFromFlags(v, pathways);
  const job = {
    models,
    games: games.map((g) => g.name),
    pathways,
    data: folderFlag("data", v.data),
    settings,
    shard,
    shardSubdir: !noShardSubdir,
    training,
    ...own,
    ...(v.rejudge !== undefined ? { rejudge: rejudgeFlags(v, models) } : {}),
  } as RunJobSettings;
  if (v.rejudge === undefined && v["rejudge-models"] !== undefined) throw new UsageError("--rejudge-models is only used with --rejudge (the judges to rejudge with)");
  return fromSettings(job, {
    source,
    argv,
    ctx,
    cache: !noCacheFlag(v),
    progress: readOption(PROGRESS_OPTION, v.progress) as ProgressMode,
    modelsFile: modelsFilePath(v) ?? null,
    ...readOptions(PREFLIGHT_OPTIONS, v),
    estimate: readOption(ESTIMATE_OPTION, v.estimate) as boolean,
    cap: readOptions(SPEND_CAP_OPTIONS, v),
  });
}

/**
 * `--job FILE`: the settings from a job file (jobFile.ts: each field checked by the file's schema,
 * the rules between fields as the flags have them); every other flag at its default.
 */
function parseJob(v: FlagValues<RunFlagSpec>, argv: string[], env: Record<string, string | undefined>): Parsed {
  refuseFlagsBesideJob(v);
  const job = readJobFile(v.job!, "run");
  return fromSettings(job, {
    source: "flag",
    argv,
    ctx: modelContextFromFlags(v, env),
    cache: true,
    progress: readOption(PROGRESS_OPTION, v.progress) as ProgressMode,
    modelsFile: null,
    preflight: true,
    probeWindow: true,
    estimate: false,
    cap: { maxUsd: null, maxInputTokens: null },
  });
}

/** `--rejudge J1,J2` and `--rejudge-models M1,...` (default: every model of the run), from their rows (runner/resume/rejudge.ts). */
function rejudgeFlags(v: FlagValues<RunFlagSpec>, all: readonly string[]): { judges: string[]; models: string[] } {
  const o = readOptions(REJUDGE_OPTIONS, v);
  const ms = o.models ?? [...all];
  for (const m of ms) if (!all.includes(m)) throw new UsageError(`--rejudge-models: '${m}' is not one of --models`);
  return { judges: o.judges!, models: ms };
}

/** The flags a job file does not hold (the endpoint's, the run's mode), parsed or at their defaults. */
interface OtherFlags {
  source: ShardSource | "flag";
  argv: string[];
  ctx: Partial<ModelContext>;
  cache: boolean;
  progress: ProgressMode;
  modelsFile: string | null;
  preflight: boolean;
  probeWindow: boolean;
  estimate: boolean;
  cap: CapLimits;
}

/** The run's settings (from flags or a job file) and the other flags -> what runCommand plays: one path for both. */
function fromSettings(job: RunJobSettings, o: OtherFlags): Parsed {
  const shard = job.shard;
  const subdir = shard !== null && job.shardSubdir;
  const dataDir = resolve(folderFlag("data", job.data));
  return {
    job,
    verified: job.verified,
    models: job.models,
    training: job.training ? { label: job.training.label, checkpoints: checkpointsFromSpecs(job.training.checkpoints) } : null,
    games: resolveGames(job.games.join(",")),
    pathways: job.pathways,
    // Each shard its own directory by default: run locks are machine-local, so two machines must
    // never write one directory (docs/scale.md).
    dataDir: subdir ? join(dataDir, shardDirName(shard)) : dataDir,
    settings: job.settings,
    shard,
    shardPlan: subdir ? { source: o.source, argv: withoutFlags(o.argv, ["shard", "shard-count", "data"], ["no-shard-subdir"]) } : null,
    cache: o.cache,
    progress: o.progress,
    ctx: o.ctx,
    modelsFile: o.modelsFile,
    preflight: o.preflight,
    probeWindow: o.probeWindow,
    estimate: o.estimate,
    cap: o.cap,
    study: null,
  };
}

/**
 * The settings `s3gym run ARGV` would play, as data (flags or `--job FILE`): what a job file for the
 * same run holds. Throws the UsageError the command would print.
 */
export function runSettingsFromArgv(argv: string[], env: Record<string, string | undefined> = {}): RunJobSettings {
  return parse(argv, env).job;
}

/** `--shard i/n`, `--shard auto` (the scheduler's environment) and `--shard-count`. */
function shardFromFlags(given: Readonly<Record<string, unknown>>, env: Record<string, string | undefined>): { shard: Shard | null; source: ShardSource | "flag" } {
  const v = given as { shard?: string; "shard-count"?: string };
  const count = (readOption(SHARD_OPTIONS.shardCount, v["shard-count"]) as number | undefined) ?? null;
  if (v.shard === undefined) {
    if (count !== null) throw new UsageError("--shard-count is only used with --shard auto (the number of shards of a Kubernetes indexed Job)");
    return { shard: null, source: "flag" };
  }
  if (v.shard.trim() === "auto") {
    try {
      return shardFromEnv(env, count);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  if (count !== null) throw new UsageError("--shard-count is only used with --shard auto: --shard i/n already says n");
  try {
    return { shard: parseShard(v.shard), source: "flag" };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * Checks `s3gym run` arguments without running anything (every flag error a run would give, as a
 * UsageError): `s3gym cluster` validates the run line of a job file before it is submitted.
 */
export function checkRunArgs(argv: string[], env: Record<string, string | undefined> = {}): void {
  parse(argv, env);
}

/**
 * `s3gym run`: flags, a job file, or a study file. A study plays once per run seed (each a replicate
 * of the matrix in the same data folder), its notes (the `none` control added, or the gain columns
 * that will stay empty) printed before anything runs. The exit code is the worst of the seeds'.
 */
export async function runCommand(argv: string[], deps: RunCommandDeps = {}): Promise<number> {
  const { values: given, positionals } = parseFlagsAndPositionals(argv, FLAGS, RUN_USAGE);
  const path = studyArg(positionals);
  if (path === null || given.job !== undefined) return runOnce(argv, deps, null);
  const study = loadStudy(path, { smoke: given.smoke === true });
  const stderr = safeStream(deps.stderr ?? process.stderr);
  for (const note of study.notes) stderr.write(`s3gym run: ${note}\n`);
  const seeds = (given as Record<string, unknown>)["run-seed"] !== undefined ? [null] : study.seeds;
  if (seeds.length > 1) stderr.write(`s3gym run: ${seeds.length} run seeds (${seeds.join(", ")}), played one after the other into ${study.data}\n`);
  let worst = 0;
  for (const seed of seeds) worst = Math.max(worst, await runOnce(argv, deps, seed));
  return worst;
}

async function runOnce(argv: string[], deps: RunCommandDeps, seed: number | null): Promise<number> {
  const env = deps.env ?? process.env;
  // Everything printed goes through terminalSafe: it may hold a server's words (error bodies, model
  // names) and must hold no key.
  // The progress display writes its own cursor moves to the raw stream and escapes what it shows.
  const stdout = safeStream(deps.stdout ?? process.stdout);
  const rawStderr = deps.stderr ?? process.stderr;
  const stderr = safeStream(rawStderr);
  let p: Parsed;
  let ctx: ModelContext;
  let maxNew: Map<string, number>;
  let resolved: ResolvedModel[] = [];
  let checkpointModels: ResolvedModel[] = [];
  /** `--verifier-model` when it is not one of --models (preflighted with them). */
  let roleModels: ResolvedModel[] = [];
  p = parse(argv, env, seed);
  ctx = createModelContext({ ...p.ctx, cacheDir: p.cache ? join(p.dataDir, "cache") : null, ...deps.modelContext });
  // Every model name, alias, base URL and key presence is checked before any call.
  resolved = p.models.length > 0 ? validateModelSpecs(p.models, ctx, { keys: !p.estimate }) : [];
  for (const m of p.models) {
    const notice = modelSpecNotice(m);
    if (notice) stderr.write(`s3gym run: note: ${m}: ${notice}\n`);
  }
  if (p.verified?.verifierModel) {
    try {
      // Preflighted with the others: the roles' endpoint must answer as well as the actor's.
      roleModels = validateModelSpecs([p.verified.verifierModel], ctx, { keys: !p.estimate }).filter((r) => !resolved.some((m) => m.name === r.name));
    } catch (e) {
      throw new UsageError(`--verifier-model: ${(e as Error).message}`);
    }
  }
  // The placebo permutes the self-scores of the run's exploration episodes, which an on-policy run has not played yet.
  if (p.settings.judge === "shuffled")
    throw new UsageError(
      "--judge shuffled permutes the self-scores of a recorded run's exploration episodes, so it is a rejudge's judge only: play the run under --judge self, then 's3gym rejudge --from <run> --judge shuffled' (or add --rejudge shuffled to this command)",
    );
  const judgeSpec = judgeModel(p.settings.judge);
  if (judgeSpec !== null) {
    if (p.training) throw new UsageError("--judge applies to the protocol loop's exploration, not to --pathways training");
    try {
      // Preflighted with the others: the external judge's endpoint must answer too.
      roleModels = [
        ...roleModels,
        ...validateModelSpecs([judgeSpec], ctx, { keys: !p.estimate }).filter((r) => !resolved.some((m) => m.name === r.name) && !roleModels.some((m) => m.name === r.name)),
      ];
    } catch (e) {
      throw new UsageError(`--judge: ${(e as Error).message}`);
    }
  }
  if (p.training) {
    try {
      checkpointModels = validateModelSpecs([...new Set(p.training.checkpoints.map((c) => c.model))], ctx);
    } catch (e) {
      throw new UsageError(`--checkpoints: ${(e as Error).message}`);
    }
  }
  // A models-file entry's max_tokens overrides --max-new-tokens for its calls, so the History
  // budget must reserve that instead.
  maxNew = new Map(resolved.map((r) => [r.name, r.sampling.max_tokens ?? p.settings.maxNewTokens]));
  for (const [name, n] of maxNew) {
    if (n >= p.settings.contextTokens) throw new UsageError(`model '${name}': max_tokens ${n} leaves no room in --context-tokens ${p.settings.contextTokens}`);
  }

  // Every run of the matrix (protocol-loop and training), this shard's, split by kind (runner/loop/schedule.ts).
  const plan: RunPlan = planRuns({
    models: p.models,
    games: p.games.map((g) => g.name),
    pathways: p.pathways,
    runSeed: p.settings.runSeed,
    trainingLabel: p.training?.label ?? null,
    shard: p.shard,
    ...(p.settings.judge !== undefined ? { judge: p.settings.judge } : {}),
  });
  const { matrix, selected, entries, trainingRuns } = plan;
  const games = new Map(p.games.map((g) => [g.name as string, g]));
  const settingsOf = (e: MatrixEntry): ProtocolSettings => ({
    ...p.settings,
    maxNewTokens: maxNew.get(e.model) ?? p.settings.maxNewTokens,
    // Only a pathway's own runs carry (and, for verified, record) its settings, under its name.
    ...ownSettings(p.job, e.pathway),
  });
  const make = (name: string, onCall?: Parameters<typeof createModel>[1]["onCall"]) => createModel(name, { ...ctx, ...(onCall ? { onCall } : {}) });
  // Protocol clashes with existing logs, and a training run whose epochs were played by other
  // models, are configuration errors: all found before any call.
  if (p.estimate) {
    // No model is made (an estimate needs no key); the directory's protocol is still checked,
    // since the run estimated would be refused.
    if (entries.length > 0) checkDataDirProtocol(p.dataDir, settingsOf(entries[0]!), new Set(entries.map((e) => e.runId)));
  } else {
    // Checked only: nothing is written until the preflight has passed, so a run refused before its
    // first episode leaves the data directory exactly as it was.
    if (p.shard && p.shardPlan) checkShardPlan(p.dataDir, makeShardPlan(matrix, p.shard, p.shardPlan.source, p.shardPlan.argv));
    planMatrix(
      p.dataDir,
      entries,
      settingsOf,
      (e) => make(e.model),
      (g) => games.get(g)!,
      { claim: false },
    );
  }
  for (const e of p.estimate ? [] : trainingRuns) {
    checkCheckpointModels(p.dataDir, e.runId, p.training!.checkpoints);
    const settings = { ...p.settings, exploreEpisodes: 0, checkpointEvery: 1 };
    preflightRun({ dataDir: p.dataDir, entry: e, game: games.get(e.game)!, model: make(p.training!.checkpoints[0]!.model), settings, recordModel: false });
  }
  if (p.estimate) {
    const rows = await estimateMatrix({
      entries,
      settingsOf,
      game: (name) => games.get(name)!,
      priceOf: (name) => resolved.find((r) => r.name === name)?.price ?? null,
    });
    const skipped = trainingRuns.length > 0 ? [`${trainingRuns.length} training run${trainingRuns.length > 1 ? "s" : ""} (--pathways training) not estimated: they evaluate a checkpoint list`] : [];
    stdout.write(formatEstimate(rows, { tokenizer: p.settings.tokenizer, policy: ESTIMATE_POLICY, skipped }));
    const fits = capFit(rows, p.cap);
    if (fits !== null) stdout.write(`${fits}\n`);
    return 0;
  }
  // Every endpoint checked before the first step call: model served, context long enough, the
  // sampling parameters accepted. A refusal names the fix; nothing has run.
  let preflightRecord: { model: string; host: string; max_model_len: number | null; token_ratio: number | null }[] = [];
  if (p.preflight) {
    const pre = await preflightModels([...resolved, ...checkpointModels, ...roleModels], {
      ctx,
      game: p.games[0]!,
      settingsOf: (name) => ({ ...p.settings, maxNewTokens: maxNew.get(name) ?? p.settings.maxNewTokens }),
      cacheDir: ctx.cacheDir,
      probeWindow: p.probeWindow,
    });
    for (const r of pre.reports) stderr.write(`s3gym run: ${formatPreflight(r)}\n`);
    for (const w of pre.warnings) stderr.write(`s3gym run: warning: ${terminalSafe(w)}\n`);
    if (pre.problems.length > 0) {
      stderr.write(`s3gym run: preflight refused ${pre.problems.length === 1 ? "1 problem" : `${pre.problems.length} problems`}; nothing was run (--no-preflight skips the check)\n`);
      return 2;
    }
    preflightRecord = pre.reports.map((r) => ({ model: r.name, host: r.host, max_model_len: r.maxModelLen, token_ratio: r.tokenRatio }));
  }
  // The whole matrix, recorded in the shard's directory (or checked against the plan there) before
  // any run: status reads it for every shard, started or not.
  if (p.shard && p.shardPlan) recordShardPlan(p.dataDir, makeShardPlan(matrix, p.shard, p.shardPlan.source, p.shardPlan.argv));
  mkdirSync(p.dataDir, { recursive: true });
  // The resolved study beside the runs it starts, once the run starts (a refusal above leaves the folder as it was).
  if (p.study) recordStudy(p.dataDir, p.study.record);
  const progress = new Progress(rawStderr, { mode: p.progress, ...(deps.progressIntervalMs ? { intervalMs: deps.progressIntervalMs } : {}) });
  if (p.shard)
    stderr.write(
      `s3gym run: shard ${p.shard.index}/${p.shard.count}${p.shardPlan && p.shardPlan.source !== "flag" ? ` (from ${p.shardPlan.source === "slurm" ? "the Slurm array task" : "the Kubernetes completion index"})` : ""}: ${selected.length} of ${matrix.length} runs into ${p.dataDir}\n`,
    );
  const command = commandRecord(argv, process.cwd());
  const invocation = {
    concurrency: ctx.concurrency,
    max_retries: ctx.maxRetries,
    timeout_ms: ctx.timeoutMs,
    cache: p.cache,
    shard: p.shard ? `${p.shard.index}/${p.shard.count}` : null,
    models_file: p.modelsFile,
    api_key_env: ctx.apiKeyEnv,
    answer_from: p.settings.answerFrom ?? "content",
    max_bad_replies: p.settings.maxBadReplies ?? DEFAULT_MAX_BAD_REPLIES,
    ...(ctx.maxTokensParam ? { max_tokens_param: ctx.maxTokensParam } : {}),
    ...(ctx.dropParams && ctx.dropParams.length > 0 ? { drop_params: [...ctx.dropParams] } : {}),
    // What each endpoint's preflight found (context length, the server's tokens per local token).
    ...(preflightRecord.length > 0 ? { preflight: preflightRecord } : {}),
    // The resolved study this invocation played (kept in the data folder under that file).
    ...(p.study ? { study: { sha256: p.study.record.sha256, file: studyFileIn(p.study.record.sha256) } } : {}),
    // What resumes the run (status and Ctrl-C print it): this folder and these arguments, redacted.
    command,
  };
  // Ctrl-C: say what finished, what resumes and how, then exit 130 (the logs are whole up to the last episode).
  const onInterrupt = () => {
    progress.close();
    stderr.write(
      formatInterrupt(
        p.dataDir,
        [...entries, ...trainingRuns].map((e) => e.runId),
        command,
      ),
    );
    process.exit(130);
  };
  process.once("SIGINT", onInterrupt);
  let outcomes: RunOutcome[];
  try {
    const [loop, ...trained] = await Promise.all([
      entries.length > 0
        ? runMatrix({
            dataDir: p.dataDir,
            entries,
            settings: settingsOf,
            game: (name) => games.get(name)!,
            createModel: (name, onCall) => make(name, onCall),
            events: progress,
            invocation,
            cap: p.cap,
          })
        : Promise.resolve([]),
      ...trainingRuns.map((e) =>
        runCheckpointList({
          dataDir: p.dataDir,
          modelName: e.model,
          game: games.get(e.game)!,
          settings: p.settings,
          checkpoints: p.training!.checkpoints,
          createModel: (name, onCall) => make(name, onCall),
          events: progress,
          command,
        }),
      ),
    ]);
    outcomes = [...(loop as RunOutcome[]), ...(trained as RunOutcome[])].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    const rj = p.job.rejudge;
    if (rj) {
      // The rejudged runs: each complete history or memory run of the named models, under each judge.
      const done = new Set(outcomes.filter((o) => o.status === "complete").map((o) => o.runId));
      const sources = entries
        .filter((e) => rj.models.includes(e.model) && done.has(e.runId) && (e.pathway === "history" || e.pathway === "memory"))
        .map((e) => readRejudgeSource(runDir(p.dataDir, e.runId)));
      const rejudged = await rejudgeRuns({
        dataDir: p.dataDir,
        sources,
        judges: rj.judges,
        game: (name) => games.get(name)!,
        createModel: (name, onCall) => make(name, onCall),
        events: progress,
        invocation,
      });
      outcomes = [...outcomes, ...rejudged].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    }
  } catch (e) {
    // Whatever stopped the matrix (a protocol clash found before any call: a ConfigError, exit 2; any
    // other failure: exit 1) is thrown: src/cli/main.ts alone maps it to a line and a code.
    progress.close();
    throw e;
  } finally {
    process.off("SIGINT", onInterrupt);
  }
  progress.close();

  const summaries = outcomes.map((o) => summarizeRun(p.dataDir, o));
  for (const s of summaries) stdout.write(`${formatRunSummary(s)}\n`);
  // The next step ends the total line (stdout keeps one line per run and the total).
  // A shard's next step is the matrix's status (the report reads every shard once all are done).
  const next = p.shardPlan
    ? `\tnext: s3gym status --data ${shellQuote(dirname(p.dataDir))}`
    : summaries.some((s) => s.checkpointsOk > 0)
      ? `\tnext: ${p.study ? studyReportCommand(p.study.study) : reportCommand(p.dataDir)}`
      : "";
  stdout.write(`${formatTotals(summaries)}${next}\n`);
  const capLine = capStopLine(p.dataDir, outcomes);
  if (capLine !== null) stdout.write(`${capLine}\n`);
  const bad = summaries.filter((s) => s.status !== "complete").length;
  return bad === 0 ? 0 : 1;
}

/**
 * `--estimate` with a cap: whether the planned matrix fits it. The dollars compared are the input at
 * the cached price plus the output at its cap (the most the run can be billed for); null without a cap.
 */
export function capFit(rows: readonly EstimateRow[], cap: CapLimits): string | null {
  const t = totalOf(rows);
  const parts: string[] = [];
  if (cap.maxUsd !== null) {
    const most = t.inputCachedUsd === null ? null : t.inputCachedUsd + (t.outputCapUsd ?? 0);
    parts.push(
      most === null
        ? `--max-usd ${cap.maxUsd}: cannot tell, no model has a price (use --max-input-tokens)`
        : `--max-usd ${cap.maxUsd}: the plan ${most <= cap.maxUsd ? "fits" : "does NOT fit"} (estimated at most $${most.toFixed(2)}: input at the cached price plus output at its cap)`,
    );
  }
  if (cap.maxInputTokens !== null) {
    parts.push(`--max-input-tokens ${cap.maxInputTokens}: the plan ${t.inputTokens <= cap.maxInputTokens ? "fits" : "does NOT fit"} (estimated ${t.inputTokens} input tokens)`);
  }
  return parts.length > 0 ? `cap: ${parts.join("; ")}` : null;
}

/**
 * The end line of a matrix the spend cap stopped: what it spent, how much remains (episodes not yet
 * logged of the runs it stopped) and how to go on; null when the cap stopped nothing.
 */
function capStopLine(dataDir: string, outcomes: readonly RunOutcome[]): string | null {
  const stopped = outcomes.filter((o) => o.status === "partial");
  if (stopped.length === 0) return null;
  let left = 0;
  for (const o of stopped) {
    const p = episodeProgress(runDir(dataDir, o.runId));
    left += Math.max(0, (p.planned ?? 0) - p.done);
  }
  return `spend cap: ${stopped[0]!.error ?? "reached"}; ${stopped.length} run${stopped.length > 1 ? "s" : ""} stopped partial with ${left} episode${left === 1 ? "" : "s"} left to play; rerun the same command with a higher cap to resume them (no step is lost or repeated)`;
}

/** The report command of a study's data: the study file again (its folders come from it). */
function studyReportCommand(study: Study): string {
  return `s3gym report ${shellQuote(study.file)}${study.smoke ? " --smoke" : ""}`;
}
