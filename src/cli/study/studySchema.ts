/**
 * The study file (`s3gym.yaml`): one experiment written down, validated by zod, with a JSON Schema
 * for editors (`STUDY_JSON_SCHEMA`, written by `s3gym init` as `s3gym.schema.json`).
 *
 * The protocol block is not spelled here: its keys are the flags of the PROTOCOL_SETTINGS rows
 * (src/runner/settings/protocolSettings.ts), each checked by its row's kind (range, choices, switch, share).
 * A study key, the `s3gym run` flag and the manifest's recorded key are therefore the same setting,
 * and every error a flag gives (`--context-tokens (...) must exceed --max-new-tokens`) names the
 * study key too. The endpoint, view and cap blocks use the names of `s3gym run`'s flags as well.
 *
 * Models are models-file entries (src/models/modelsFile.ts: spec, base_url or a pool of them, the
 * NAME of the key's variable, prices, concurrency, sampling), or a bare spec string: a baseline
 * such as `builtin:heuristic` is one line.
 */
import { z } from "zod";
import { GAME_NAMES } from "../../games/types.js";
import { VIEWS } from "../../logs/schema.js";
import { DROPPABLE_PARAMS, MAX_TOKENS_PARAMS, ModelsFileEntry } from "../../models/modelsFile.js";
import { pathwayNames, pathwayOptions } from "../../pathways/registry.js";
import { PROTOCOL_SETTINGS, settingOption, type SettingFlag, type SettingRow } from "../../runner/settings/protocolSettings.js";
import { flagValueSchema } from "../../util/options.js";
import { FLAG_RANGES } from "../shared/sharedFlags.js";
import { FIGURE_SIZES, type FigureSize } from "../../report/figures/printLayout.js";

/** The flagged protocol rows `s3gym run` offers, in the table's order: the keys of a study's `protocol:`. */
export const STUDY_PROTOCOL_ROWS: readonly (SettingRow & { flag: SettingFlag })[] = PROTOCOL_SETTINGS.filter((r): r is SettingRow & { flag: SettingFlag } => r.flag !== null);

/** A protocol row's schema in a study, from its option row. */
function protocolValue(r: SettingRow & { flag: SettingFlag }): z.ZodType {
  return flagValueSchema(settingOption(r), "run");
}

export const StudyProtocol = z.strictObject(Object.fromEntries(STUDY_PROTOCOL_ROWS.map((r) => [r.flag.name, protocolValue(r).optional()])));

const ranged = (flag: keyof typeof FLAG_RANGES, about: string) => z.number().int().min(FLAG_RANGES[flag].min).max(FLAG_RANGES[flag].max).describe(about);

/** A model: a bare spec (`builtin:heuristic`, `openai:gpt-4o-mini`) or a models-file entry under an alias. */
export const StudyModel = z.union([
  z
    .string()
    .min(1)
    .regex(/^[^\s,]+$/, "a model spec has no spaces or commas")
    .describe("a model spec, e.g. builtin:heuristic or openai:gpt-4o-mini"),
  ModelsFileEntry,
]);

const Folder = z.string().min(1, "is empty: give a folder (relative to the study file's folder)");

export const StudyViews = z.strictObject({
  names: z.array(z.enum(VIEWS)).min(1).describe("eval (always on), id, replay (--views)"),
  "view-episodes": ranged("view-episodes", "episodes of the id view per checkpoint (--view-episodes)").optional(),
  "replay-episodes": ranged("replay-episodes", "exploration seeds the replay view re-plays (--replay-episodes)").optional(),
});

export const StudyEndpoint = z.strictObject({
  "base-url": z
    .union([z.url({ protocol: /^https?$/ }), z.array(z.url({ protocol: /^https?$/ })).min(1)])
    .describe("default base URL of models without their own base_url (--base-url)")
    .optional(),
  "api-key-env": z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the NAME of an environment variable (letters, digits, _), not a key")
    .describe("the NAME of the variable holding the key of models without their own api_key_env (--api-key-env)")
    .optional(),
  concurrency: ranged("concurrency", "calls in flight per endpoint for models without their own (--concurrency)").optional(),
  "max-retries": ranged("max-retries", "--max-retries").optional(),
  "max-retry-after": ranged("max-retry-after", "--max-retry-after, seconds").optional(),
  "timeout-ms": ranged("timeout-ms", "--timeout-ms, per attempt").optional(),
  "max-tokens-param": z.enum(MAX_TOKENS_PARAMS).describe("--max-tokens-param").optional(),
  "drop-params": z.array(z.enum(DROPPABLE_PARAMS)).describe("--drop-params").optional(),
});

export const StudyCaps = z.strictObject({
  "max-usd": z.number().positive().describe("stop between episodes before spend passes this many dollars (--max-usd)").optional(),
  "max-input-tokens": z.number().int().positive().describe("stop before input tokens pass this (--max-input-tokens)").optional(),
});

/** `all` or a list of games; one message naming them all when neither. */
const GamesField = z.union([z.literal("all"), z.array(z.enum(GAME_NAMES)).min(1)], { error: `must be 'all' or a list of ${GAME_NAMES.join(", ")}` });

/** The smoke profile: a run that checks every endpoint end to end in its own data folder. */
export const StudySmoke = z.strictObject({
  data: Folder.describe("the smoke run's data folder (default smoke/data)").optional(),
  out: Folder.describe("the smoke run's tables and figures (default smoke/figures)").optional(),
  protocol: StudyProtocol.describe("protocol settings of the smoke run, over the study's (default: 1 exploration episode, a checkpoint after it, 1 evaluation episode, 4 steps)").optional(),
  games: GamesField.describe("games of the smoke run (default: the study's)").optional(),
});

/** How `s3gym report STUDY.yaml` writes figures and LaTeX tables (its flags of the same names; a flag given wins). */
export const StudyFigures = z.strictObject({
  size: z
    .enum(Object.keys(FIGURE_SIZES) as [FigureSize, ...FigureSize[]])
    .describe("print width of every figure: column (3.3 in), page (7 in, the default) or slide (13.3 in) (--figure-size)")
    .optional(),
  theme: z.string().min(1, "is empty: give a theme JSON file (relative to the study file's folder)").describe("a theme JSON file: fonts, palette, line widths (--theme; docs/paper.md)").optional(),
  "captions-in-figure": z.boolean().describe("draw the title and caption into the image, as for slides (--captions-in-figure)").optional(),
  "tex-intervals": z.enum(["cell", "columns"]).describe("LaTeX tables: estimate and interval in one cell or two columns (--tex-intervals)").optional(),
});

/** The largest count `seeds:` takes (a count of replicates of the whole matrix: more is a typo, not a study). */
export const MAX_SEED_COUNT = 100;
const SEEDS_FORMS = `must be a list of run seeds such as [0, 1, 2], or a count 1..${MAX_SEED_COUNT} (run seeds 0..count-1)`;

export const StudyFile = z.strictObject({
  $schema: z.string().optional(),
  models: z
    .array(StudyModel)
    .min(1, "lists no model: give at least one (a spec such as builtin:heuristic, or an entry with alias and spec)")
    .describe("the models played, each a spec or an entry {alias, spec, base_url, api_key_env, price, concurrency, sampling}"),
  games: GamesField.describe("'all' or a list of games"),
  pathways: z
    .array(z.enum(pathwayNames().filter((p) => p !== "training") as [string, ...string[]]))
    .min(1)
    .describe("pathways of the protocol loop, e.g. [none, history, memory]"),
  control: z.boolean().describe("play the `none` control when a learning pathway is listed without it (default true): gain_vs_none pairs each pathway with it").optional(),
  protocol: StudyProtocol.describe("the protocol settings: the flags of s3gym run, one key each; left out = the flag's default").optional(),
  views: StudyViews.optional(),
  seeds: z
    .union(
      [
        z.array(z.number().int().min(0).max(4_294_967_295)).min(1),
        z.number({ error: SEEDS_FORMS }).int({ error: SEEDS_FORMS }).min(1, { error: SEEDS_FORMS }).max(MAX_SEED_COUNT, { error: SEEDS_FORMS }),
      ],
      { error: SEEDS_FORMS },
    )
    .describe(
      "run seeds: one replicate of the matrix each, into the same data folder; a list, or a count n for seeds 0..n-1 (default [0]). With two or more, the tables' intervals cover the model's expected result over run seeds, not one run",
    )
    .optional(),
  // A block per pathway with option rows of its own (verified: broad-batch, verifier-model), keys as its flags.
  ...Object.fromEntries(
    pathwayOptions().map(({ pathway, rows }) => [
      pathway,
      z
        .strictObject(Object.fromEntries(rows.map((r) => [r.name, flagValueSchema(r, "run").optional()])))
        .describe(`settings of pathway ${pathway}`)
        .optional(),
    ]),
  ),
  caps: StudyCaps.optional(),
  endpoint: StudyEndpoint.optional(),
  data: Folder.describe("the data folder the logs go to (default data), relative to this file").optional(),
  out: Folder.describe("where report, view and notebooks write (default figures), relative to this file").optional(),
  smoke: StudySmoke.optional(),
  figures: StudyFigures.optional(),
});
export type StudyFile = z.infer<typeof StudyFile>;

/** The JSON Schema of a study file, for editors (YAML language servers read it through `# yaml-language-server: $schema=...`). */
export function studyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(StudyFile, { target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  return { ...schema, title: "s3gym study file (s3gym.yaml)", description: "One s3gym experiment: models, games, pathways, protocol settings, views, seeds, caps, folders. See docs/study.md." };
}
