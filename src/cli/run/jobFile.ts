/**
 * `--job FILE` on `s3gym run` and `s3gym train-loop`: the command's settings read from a job file
 * (src/training/loopJob.ts: `{name, command, settings}`) instead of its flags, so a command that
 * starts others (`s3gym reproduce`) hands each child its settings as data. The file is checked by its
 * zod schema (a bad one is a UsageError naming the field); a protocol setting left out is its flag
 * left out (the default). Only `--progress` may be given beside `--job`.
 */
import { readFileSync } from "node:fs";
import type { RunJobSettings } from "../../runner/settings/jobSettings.js";
import { DEFAULT_SETTINGS } from "../../runner/loop/context.js";
import { JobFileSchema, type TrainLoopJobSettings } from "../../training/loopJob.js";
import { formatIssues } from "../../util/zodIssues.js";
import { escapeControl } from "../../util/outsideText.js";
import { pathwayNames, pathwayOptions, playsProtocolLoop, TRAINING_PATHWAY } from "../../pathways/registry.js";
import { labelFlag, UsageError } from "../shared/args.js";
import { checkSettings } from "../shared/sharedFlags.js";

/** The flags besides `--job` and `--progress` that were given: `--job` cannot be mixed with them. */
export function refuseFlagsBesideJob(values: Readonly<Record<string, unknown>>): void {
  const others = Object.keys(values).filter((k) => values[k] !== undefined && k !== "job" && k !== "progress");
  if (others.length > 0) {
    throw new UsageError(`--job FILE holds every setting of the job: it cannot be mixed with ${others.map((k) => `--${k}`).join(", ")} (only --progress may be given beside it)`);
  }
}

/** The job file at `path` for `command`, its settings' protocol numbers completed with their defaults. */
export function readJobFile(path: string, command: "run"): RunJobSettings;
export function readJobFile(path: string, command: "train-loop"): TrainLoopJobSettings;
export function readJobFile(path: string, command: "run" | "train-loop"): RunJobSettings | TrainLoopJobSettings {
  const shown = escapeControl(path);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`--job: cannot read '${shown}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--job ${shown}: not JSON (${(e as Error).message})`);
  }
  const parsed = JobFileSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`--job ${shown}: ${formatIssues(parsed.error, { max: 3, style: "brackets" })}`);
  const job = parsed.data;
  if (job.command !== command) throw new UsageError(`--job ${shown} is a '${job.command}' job: run it with 's3gym ${job.command} --job ${shown}'`);
  const settings = { ...DEFAULT_SETTINGS, ...job.settings.settings } as RunJobSettings["settings"];
  try {
    checkSettings(settings);
  } catch (e) {
    throw new UsageError(`--job ${shown}: settings: ${(e as Error).message}`);
  }
  const checked = { ...job.settings, settings } as RunJobSettings | TrainLoopJobSettings;
  if (command === "run") checkRunJob(checked as RunJobSettings, `--job ${shown}`);
  else checkLoopJob(checked as TrainLoopJobSettings, `--job ${shown}`);
  return checked;
}

/** The rules between a run job's fields that `s3gym run`'s flags have (each field alone is the schema's). */
function checkRunJob(job: RunJobSettings, where: string): void {
  for (const p of job.pathways)
    if (!pathwayNames().includes(p)) throw new UsageError(`${where}: settings.pathways: unknown pathway '${escapeControl(p)}' (expected one of ${pathwayNames().join(", ")})`);
  const loop = job.pathways.some(playsProtocolLoop);
  if (loop && job.models.length === 0) throw new UsageError(`${where}: settings.models is empty: the pathways ${job.pathways.filter(playsProtocolLoop).join(", ")} need a model`);
  if (!loop && job.models.length > 0) throw new UsageError(`${where}: settings.models must be empty for pathway training alone (the checkpoints are the models)`);
  if (job.pathways.includes(TRAINING_PATHWAY) !== (job.training !== null))
    throw new UsageError(
      `${where}: settings.training is ${job.training === null ? "null but the pathways include training (give its label and checkpoints)" : "set but the pathways do not include training"}`,
    );
  if (job.training !== null) labelFlag(`${where}: settings.training.label`, job.training.label);
  if (job.training !== null && job.settings.views !== undefined) throw new UsageError(`${where}: settings.settings.views applies to the protocol loop's pathways, not to pathway training`);
  for (const { pathway, rows } of pathwayOptions()) {
    const own = (job as unknown as Record<string, unknown>)[pathway] ?? null;
    if (job.pathways.includes(pathway) !== (own !== null))
      throw new UsageError(
        `${where}: settings.${pathway} is ${own === null ? `null but the pathways include ${pathway} (give ${rows.map((r) => r.key).join(" and ")})` : `set but the pathways do not include ${pathway}`}`,
      );
  }
}

/** The rules between a loop job's fields that `s3gym train-loop`'s flags have. */
function checkLoopJob(job: TrainLoopJobSettings, where: string): void {
  if (job.label !== null) labelFlag(`${where}: settings.label`, job.label);
  if (job.trainer === "builtin" && !job.model.startsWith("builtin:learner"))
    throw new UsageError(`${where}: settings.trainer 'builtin' fine-tunes builtin:learner[@ckpt][?judge=x]; settings.model is '${escapeControl(job.model)}'`);
  if (job.settings.exploreEpisodes < 1) throw new UsageError(`${where}: settings.settings.exploreEpisodes must be at least 1: BuildSFT needs exploration steps`);
  if (job.sft.correctModel !== null && job.sft.lowScore !== "correct") throw new UsageError(`${where}: settings.sft.correctModel is only used with lowScore 'correct'`);
  if (!job.sft.maskEarlierAnswers && job.sft.format !== "openai-chat") throw new UsageError(`${where}: settings.sft.maskEarlierAnswers false (train all turns) only applies to format 'openai-chat'`);
}
