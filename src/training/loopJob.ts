/**
 * What `s3gym train-loop` runs, as data (the typed settings its flags build, and what a job file
 * holds: `--job FILE`, src/cli/run/jobFile.ts), and the job file itself, for either command. The run side
 * is src/runner/settings/jobSettings.ts; this half is in training/ because BuildSFT's choices (LOW_SCORE_MODES,
 * SFT_FORMATS) are defined here. Pure: types, zod schemas and the file's text; no I/O.
 */
import { z } from "zod";
import { GamesSchema, RunJobSettingsSchema, SettingsSchema, type RunJobSettings } from "../runner/settings/jobSettings.js";
import type { ProtocolSettings } from "../runner/settings/protocolSettings.js";
import { LOW_SCORE_MODES, type LowScoreMode } from "./buildSft.js";
import { SFT_FORMATS, type SftFormat } from "./sftFormat.js";

/** BuildSFT's selection and format in each round (`--threshold`, `--low-score`, `--correct-model`, `--format`, `--train-all-turns`). */
export interface SftSettings {
  threshold: number;
  lowScore: LowScoreMode;
  format: SftFormat;
  correctModel: string | null;
  maskEarlierAnswers: boolean;
}

/** `s3gym train-loop`'s settings: what its flags (or a job file) say to run. */
export interface TrainLoopJobSettings {
  /** `--model`: M0, epoch 0 and round 1's explorer. */
  model: string;
  /** `--games`, `all` resolved to every game. */
  games: string[];
  /** `--rounds`. */
  rounds: number;
  /** `--trainer builtin`, or `--trainer-cmd CMD`. */
  trainer: "builtin" | { command: string };
  /** `--label`; null: the default, `<model>+train-loop`. */
  label: string | null;
  /** `--data` as given. */
  data: string;
  /** The protocol numbers, every flagged setting with its default filled in. */
  settings: ProtocolSettings;
  sft: SftSettings;
}

export const TrainLoopJobSettingsSchema = z.strictObject({
  model: z.string().min(1),
  games: GamesSchema,
  rounds: z.number().int().min(1).max(1000),
  trainer: z.union([z.literal("builtin"), z.strictObject({ command: z.string().min(1) })]),
  label: z.string().min(1).nullable(),
  data: z.string().min(1),
  settings: SettingsSchema,
  sft: z.strictObject({
    threshold: z.number(),
    lowScore: z.enum(LOW_SCORE_MODES),
    format: z.enum(SFT_FORMATS),
    correctModel: z.string().min(1).nullable(),
    maskEarlierAnswers: z.boolean(),
  }),
});

/** A job: the command it is for, its name (shown in messages), and the command's settings. */
export type Job = { name: string; command: "run"; settings: RunJobSettings } | { name: string; command: "train-loop"; settings: TrainLoopJobSettings };

/** A job file (`s3gym run --job FILE`, `s3gym train-loop --job FILE`). */
export const JobFileSchema = z.discriminatedUnion("command", [
  z.strictObject({ name: z.string(), command: z.literal("run"), settings: RunJobSettingsSchema }),
  z.strictObject({ name: z.string(), command: z.literal("train-loop"), settings: TrainLoopJobSettingsSchema }),
]);

/** A job file's text: indented JSON and a final newline (a person may read it, or edit it to rerun one job). */
export function jobFileText(job: Job): string {
  return `${JSON.stringify({ name: job.name, command: job.command, settings: job.settings }, null, 2)}\n`;
}

/** The default label of a loop: the base model's spec with a suffix, so its training.csv row is told apart from `run --pathways training`'s. */
export function defaultLoopLabel(baseModel: string): string {
  return `${baseModel}+train-loop`;
}
