/**
 * `s3gym train-loop`: explore with the current checkpoint -> build-sft -> the user's trainer command
 * -> evaluate the new checkpoint -> repeat (src/training/trainLoop.ts). Resumable: rerun the
 * same command. Exit codes: 0 every round done and every epoch evaluated; 1 the loop stopped (a
 * trainer failure, an exploration or evaluation that did not complete, nothing kept by BuildSFT);
 * 2 bad arguments or a rerun with other loop settings (nothing done).
 */
import { join, resolve } from "node:path";
import { createModelContext, validateModelSpecs, type ModelContext } from "../../models/assembleModel.js";
import { createModel } from "../../runner/createModel.js";
import { BUILTIN_TRAINER, runTrainLoop, TRAINER_PLACEHOLDERS } from "../../training/trainLoop.js";
import { Progress, type ProgressMode, type ProgressStream } from "../../runner/monitor/progress.js";
import { folderFlag, intFlag, labelFlag, oneOf, parseFlags, UsageError, type FlagValues } from "../shared/args.js";
import { readJobFile, refuseFlagsBesideJob } from "../run/jobFile.js";
import { defaultLoopLabel, type TrainLoopJobSettings } from "../../training/loopJob.js";
import {
  ENDPOINT_FLAGS,
  endpointUsage,
  modelContextFromFlags,
  noCacheFlag,
  protocolFlags,
  protocolUsage,
  resolveGames,
  settingsFromFlags,
  SFT_FLAGS,
  sftFromFlags,
  sftUsage,
} from "../shared/sharedFlags.js";

export const TRAIN_LOOP_USAGE = [
  's3gym train-loop --model M0 --games all|g1,g2 --rounds K --trainer-cmd "CMD {train} {round}" | --trainer builtin --data DIR [--label NAME]',
  "s3gym train-loop --job FILE [--progress ...]: the settings from a job file (docs/runner.md, 'Job files'), no other flag",
  ...protocolUsage("train-loop"),
  ...sftUsage(),
  ...endpointUsage(),
  "  [--progress auto|bar|lines|off]",
  "placeholders in --trainer-cmd (replaced by shell-quoted values; do not quote them yourself):",
  ...Object.entries(TRAINER_PLACEHOLDERS).map(([k, v]) => `  {${k}}  ${v}`),
  "the trainer prints the new checkpoint's model spec on its LAST stdout line.",
].join("\n");

const FLAGS = {
  job: { type: "string" },
  model: { type: "string" },
  games: { type: "string" },
  rounds: { type: "string" },
  "trainer-cmd": { type: "string" },
  trainer: { type: "string" },
  data: { type: "string" },
  label: { type: "string" },
  ...protocolFlags("train-loop"),
  ...SFT_FLAGS,
  ...ENDPOINT_FLAGS,
  progress: { type: "string" },
} as const;

export interface TrainLoopDeps {
  env?: Record<string, string | undefined>;
  stdout?: { write(text: string): unknown };
  stderr?: ProgressStream;
  modelContext?: Partial<ModelContext>;
  /** Working directory of the trainer command (default: the current one). */
  cwd?: string;
}

export { defaultLoopLabel } from "../../training/loopJob.js";

/** The loop's settings from its flags; a UsageError names the flag. */
function loopJobFromFlags(v: FlagValues<typeof FLAGS>): TrainLoopJobSettings {
  if (v.model === undefined || v.model.trim() === "") throw new UsageError("--model is required: the base model M0 (epoch 0 and round 1's explorer)");
  const games = resolveGames(v.games);
  if (v.rounds === undefined) throw new UsageError("--rounds is required: how many explore -> build-sft -> train -> evaluate rounds");
  const rounds = intFlag("rounds", v.rounds, undefined, { min: 1, max: 1000 });
  if (v.trainer !== undefined && v.trainer !== "builtin") throw new UsageError(`--trainer must be 'builtin' (the offline fine-tune of builtin:learner), got '${v.trainer}'`);
  if (v.trainer !== undefined && v["trainer-cmd"] !== undefined) throw new UsageError("give either --trainer builtin or --trainer-cmd, not both");
  if (v.trainer === "builtin" && !v.model.startsWith("builtin:learner")) throw new UsageError(`--trainer builtin fine-tunes builtin:learner[@ckpt][?judge=x]; --model is '${v.model}'`);
  if (v.trainer === undefined && (v["trainer-cmd"] === undefined || v["trainer-cmd"].trim() === "")) {
    throw new UsageError("--trainer-cmd is required: a shell command that trains on {train} and prints the new model spec on its last stdout line (or --trainer builtin for builtin:learner)");
  }
  if (v.data === undefined || v.data.trim() === "") throw new UsageError("--data is required: the data directory (training runs go to DIR/runs, the loop to DIR/train-loop)");
  if (v.label !== undefined && v.label.trim() === "") throw new UsageError("--label is empty");
  const settings = settingsFromFlags(v);
  if (settings.exploreEpisodes < 1) throw new UsageError("--explore-episodes must be at least 1: BuildSFT needs exploration steps");
  const sft = sftFromFlags(v);
  return {
    model: v.model,
    games: games.map((g) => g.name),
    rounds,
    trainer: v.trainer === "builtin" ? "builtin" : { command: v["trainer-cmd"]! },
    label: v.label === undefined ? null : labelFlag("--label", v.label.trim()),
    data: folderFlag("data", v.data),
    settings,
    sft,
  };
}

/** `--job FILE`: the loop's settings from a job file (jobFile.ts: checked field by field and between fields, as the flags are). */
function loopJobFromFile(v: FlagValues<typeof FLAGS>): TrainLoopJobSettings {
  refuseFlagsBesideJob(v);
  return readJobFile(v.job!, "train-loop");
}

/**
 * The settings `s3gym train-loop ARGV` would run, as data (flags or `--job FILE`): what a job file for
 * the same loop holds. Throws the UsageError the command would print.
 */
export function trainLoopSettingsFromArgv(argv: string[]): TrainLoopJobSettings {
  const { values: v } = parseFlags(argv, FLAGS, TRAIN_LOOP_USAGE);
  return v.job !== undefined ? loopJobFromFile(v) : loopJobFromFlags(v);
}

export async function trainLoopCommand(argv: string[], deps: TrainLoopDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  let progress: Progress | null = null;
  try {
    const { values: v } = parseFlags(argv, FLAGS, TRAIN_LOOP_USAGE);
    // The loop's settings as data, from the flags or a job file: the same code runs after.
    const job = v.job !== undefined ? loopJobFromFile(v) : loopJobFromFlags(v);
    const games = resolveGames(job.games.join(","));
    const { rounds, settings, sft } = job;
    const dataDir = resolve(folderFlag("data", job.data));
    const cache = !noCacheFlag(v);
    const ctx = createModelContext({ ...modelContextFromFlags(v, env), cacheDir: cache ? join(dataDir, "cache") : null, ...deps.modelContext });
    try {
      validateModelSpecs([job.model, ...(sft.correctModel ? [sft.correctModel] : [])], ctx);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const mode: ProgressMode = oneOf("progress", v.progress, ["auto", "bar", "lines", "off"] as const, "auto");
    progress = new Progress(stderr, { mode });
    const log = (line: string) => stderr.write(`${line}\n`);
    const result = await runTrainLoop({
      dataDir,
      baseModel: job.model,
      label: job.label ?? defaultLoopLabel(job.model),
      games,
      rounds,
      trainerCmd: job.trainer === "builtin" ? BUILTIN_TRAINER : job.trainer.command,
      settings,
      sft,
      createModel: (spec, onCall) => createModel(spec, { ...ctx, ...(onCall ? { onCall } : {}) }),
      validateSpec: (spec) => void validateModelSpecs([spec], ctx),
      events: progress,
      log,
      trainer: { env, ...(deps.cwd ? { cwd: deps.cwd } : {}), echo: stderr },
    });
    progress.close();
    for (const c of result.state.checkpoints.filter((x) => x.checkpoint <= rounds)) stdout.write(`epoch ${c.checkpoint}\t${c.model}\n`);
    for (const c of result.curves) {
      stdout.write(`${c.game}\t${c.runId}\t${c.means.map((m) => `epoch ${m.epoch}: ${m.mean === null ? "failed" : m.mean.toFixed(3)}`).join("\t")}\n`);
    }
    stdout.write(`train-loop: ${rounds} rounds done; state in ${join(result.dir, "state.json")}; 's3gym report --data ${job.data}' writes training.csv\n`);
    return 0;
  } catch (e) {
    progress?.close();
    // Whatever stopped the loop (a bad flag, a rerun with other loop settings, a TrainLoopError: the
    // trainer failed, a run did not complete) is thrown: src/cli/main.ts alone maps it to a line and a code.
    throw e;
  }
}
