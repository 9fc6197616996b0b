/**
 * `--job FILE` on `s3gym run` and `s3gym train-loop`: the command's settings read from a job file
 * (src/training/loopJob.ts: `{name, command, settings}`) instead of its flags, so a command that
 * starts others (`s3gym reproduce`) hands each child its settings as data. The file is checked by its
 * zod schema (a bad one is a UsageError naming the field); a protocol setting left out is its flag
 * left out (the default). Only `--progress` may be given beside `--job`.
 */
import { readFileSync } from "node:fs";
import { flagDefaultSettings, type RunJobSettings } from "../runner/jobSettings.js";
import { JobFileSchema, type TrainLoopJobSettings } from "../training/loopJob.js";
import { formatIssues } from "../util/zodIssues.js";
import { escapeControl } from "../util/outsideText.js";
import { UsageError } from "./args.js";
import { checkSettings } from "./sharedFlags.js";

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
  const settings = { ...flagDefaultSettings(), ...job.settings.settings } as RunJobSettings["settings"];
  try {
    checkSettings(settings);
  } catch (e) {
    throw new UsageError(`--job ${shown}: settings: ${(e as Error).message}`);
  }
  return { ...job.settings, settings } as RunJobSettings | TrainLoopJobSettings;
}
