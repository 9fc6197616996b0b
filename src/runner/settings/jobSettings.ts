/**
 * What `s3gym run` runs, as data: the typed settings the command builds from its flags
 * (src/cli/run/run.ts) and reads from a job file (`--job FILE`, src/cli/run/jobFile.ts; train-loop's own
 * settings are in src/training/loopJob.ts), so that a command that starts others (`s3gym
 * reproduce`) hands each child its settings as an object, never as argv strings the child re-parses.
 * Both paths end in the same object, and the command runs the same code after it.
 *
 * A job holds what a plan decides (models, games, pathways, the data directory, the protocol numbers,
 * views, shard, training, verified); the endpoint flags (`--base-url`, `--concurrency`, ...) are not
 * part of it and take their defaults, as with no flag.
 *
 * Pure: types, defaults and the zod schemas of a job file; no I/O (the CLI reads and writes the files).
 * In runner/ beside ProtocolSettings, the lowest layer that knows every type a run's settings hold.
 */
import { z } from "zod";
import { GAME_NAMES } from "../../games/types.js";
import { EXTRA_VIEWS } from "../../logs/schema.js";
import { pathwayOptions } from "../../pathways/registry.js";
import type { VerifiedSettings } from "../../pathways/verified.js";
import { PROTOCOL_SETTINGS, settingOption, type ProtocolSettings, type SettingFlag, type SettingRow } from "./protocolSettings.js";
import { asGiven, valueSchema, type OptionTable } from "../../util/options.js";
import type { Shard } from "../loop/schedule.js";

/** `s3gym run`'s settings: what its flags (or a job file) say to play. */
export interface RunJobSettings {
  /** `--models`: model specs of the protocol-loop pathways, duplicates merged, in the order given. */
  models: string[];
  /** `--games`: game names (`all` resolved to every game). */
  games: string[];
  /** `--pathways`, duplicates merged, in the order given. */
  pathways: string[];
  /** `--data` as given (the command resolves it against its working directory). */
  data: string;
  /** The protocol numbers (`--explore-episodes` ... `--run-seed`, `--views`): every flagged setting, defaults filled in. */
  settings: ProtocolSettings;
  /** `--shard i/n`; null: the whole matrix. (`--shard auto` is read from a scheduler's environment: flags only.) */
  shard: Shard | null;
  /** With a shard: write it into `<data>/shard-i-of-n` (true, the default) or into `data` itself (`--no-shard-subdir`). */
  shardSubdir: boolean;
  /** `--pathways training`: the run's label and its checkpoint specs in epoch order (`--checkpoints` / `--checkpoints-file`); null otherwise. */
  training: { label: string; checkpoints: string[] } | null;
  /** `--pathways verified`: episodes per broad batch and the roles' model (`--broad-batch`, `--verifier-model`; null: the run's model); null otherwise. */
  verified: VerifiedSettings | null;
  /**
   * `--rejudge J1,J2 --rejudge-models M1,...` (docs/judging.md): once the matrix is played, each
   * complete history or memory run of those models is rejudged under each judge (runner/resume/rejudge.ts)
   * in the same data directory; absent or null: none.
   */
  rejudge?: { judges: string[]; models: string[] } | null;
}

/** The matrix's flags as typed (`s3gym run` reads them into RunJobSettings: lists merged, `all` resolved, the folder checked). */
export const MATRIX_OPTIONS: OptionTable<{ models: string | undefined; games: string | undefined; pathways: string | undefined; data: string | undefined }> = {
  models: { name: "models", kind: { type: "text", shown: "M1,M2", parse: asGiven }, default: undefined, about: "model specs of the protocol-loop pathways" },
  games: { name: "games", kind: { type: "text", shown: "all|g1,g2", parse: asGiven }, default: undefined, about: "games to play" },
  pathways: { name: "pathways", kind: { type: "text", shown: "history,memory,none", parse: asGiven }, default: undefined, about: "pathways to play" },
  data: { name: "data", kind: { type: "text", shown: "DIR", parse: asGiven }, default: undefined, about: "the data directory the logs go to" },
};

const ViewsSchema = z.strictObject({
  extra: z.array(z.enum(EXTRA_VIEWS)),
  viewEpisodes: z.number().int().min(0),
  replayEpisodes: z.number().int().min(0),
});

/**
 * ProtocolSettings in a job file: one optional field per flagged row, checked like its flag (a field
 * left out is the flag left out: its default), and `views`; no other key.
 */
export const SettingsSchema = z.strictObject({
  ...Object.fromEntries(PROTOCOL_SETTINGS.filter((r) => r.flag !== null).map((r) => [r.key, valueSchema(settingOption(r as SettingRow & { flag: SettingFlag })).optional()])),
  views: ViewsSchema.optional(),
});

const names = z.array(z.string().min(1)).min(1);
export const GamesSchema = z.array(z.enum(GAME_NAMES)).min(1);

export const RunJobSettingsSchema = z.strictObject({
  models: z.array(z.string().min(1)),
  games: GamesSchema,
  pathways: names,
  data: z.string().min(1),
  settings: SettingsSchema,
  shard: z
    .strictObject({ index: z.number().int().min(1), count: z.number().int().min(1) })
    .refine((s) => s.index <= s.count, { message: "need 1 <= index <= count" })
    .nullable(),
  shardSubdir: z.boolean(),
  training: z.strictObject({ label: z.string().min(1), checkpoints: names }).nullable(),
  // A pathway's own settings under its name (verified: broadBatch, verifierModel), null when it is not played.
  ...Object.fromEntries(
    pathwayOptions().map(({ pathway, rows }) => [pathway, z.strictObject(Object.fromEntries(rows.map((r) => [r.key, r.default === null ? valueSchema(r).nullable() : valueSchema(r)]))).nullable()]),
  ),
  rejudge: z.strictObject({ judges: names, models: names }).nullable().optional(),
});
