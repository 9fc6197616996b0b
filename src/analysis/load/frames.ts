/**
 * Data frames for ad hoc work (notebook 00 and friends): steps, episodes, checkpoints and runs of one
 * or more data directories, as danfojs DataFrames, or as plain column objects for code that cannot
 * resolve danfojs' types (tslab compiles notebooks with Node10 module resolution).
 *
 * Unlike the metrics' loader, frames hold every row in memory. Step text (observation, response,
 * feedback) is left out unless asked for, which is what makes a few hundred thousand steps fit.
 * Nulls: numeric columns use NaN for null (self_score, checkpoint), text columns keep null.
 */
import { dirname } from "node:path";
import type { DataFrame } from "danfojs";
import type { z } from "zod";
import { CheckpointRecord, EpisodeRecord, StepRecord, viewOf } from "../../logs/schema.js";
import { curveMetrics } from "../metrics/curves.js";
import { filterModels, loadDataset, type Dataset, type LoadOptions } from "./dataset.js";
import { awaitFramesSnapshot, FRAMES_SNAPSHOT_VAR } from "./framesSnapshot.js";
import { rememberDataset } from "./datasetMemo.js";
import { runFileStamps } from "../../logs/reader.js";
import { judgingStats, type RewardRange } from "../metrics/judging.js";
import { episodeCounts, gameRewardRanges, isJudged, runCurve, totalCounts } from "./runs.js";

/** A column-oriented table: column name -> values (all columns the same length). */
export type Columns = Record<string, (string | number | boolean | null)[]>;

/**
 * The step columns: every field of the step schema (`src/logs/schema.ts`) except the text ones, in the
 * schema's order, whether or not a run wrote it (a missing optional field is null). Step records may
 * carry further fields (logs of other tools); they are appended after these, in order of appearance.
 */
export const STEP_COLUMNS = [
  "run_id",
  "model",
  "game",
  "pathway",
  "phase",
  "view",
  "config",
  "checkpoint",
  "episode",
  "seed",
  "step",
  "action",
  "self_score",
  "parse_error",
  "valid",
  "reward",
  "score_after",
  "done",
  "tokens_in",
  "tokens_out",
  "latency_ms",
  "cached",
  "finish_reason",
  "tokens_cached",
  "history_keep",
  "memory_version",
  "retrieved_steps",
  "reasoning_chars",
  "tokens_counted_by",
  "turns_dropped",
  "answer_source",
  "experience_score",
  "experience_score_source",
  "experience_score_from",
  "experience_score_from_episode",
] as const;
/** The step text fields, kept only with `{ text: true }` (they are most of the bytes). */
export const STEP_TEXT_COLUMNS = ["observation", "response", "feedback", "reasoning"] as const;
export const EPISODE_COLUMNS = [
  "run_id",
  "model",
  "game",
  "pathway",
  "phase",
  "view",
  "config",
  "checkpoint",
  "episode",
  "seed",
  "score",
  "steps",
  "status",
  "error",
  "started_at",
  "ended_at",
] as const;
/** `n_scores` is the length of the record's `scores`; the scores themselves are in the episodes frame. */
export const CHECKPOINT_COLUMNS = ["run_id", "model", "game", "pathway", "checkpoint", "view", "n_scores", "mean", "status", "reason"] as const;
export const RUN_COLUMNS = [
  "run_id",
  "model",
  "game",
  "pathway",
  "status",
  "run_seed",
  "kit_version",
  "n_checkpoints",
  "n_valid",
  "y0",
  "avg",
  "max",
  "auc_plus",
  "naba",
  "n_steps",
  "n_explore_steps",
  "n_eval_steps",
  "agree",
  "nmae",
  "n_unscored",
] as const;
/** Columns where null becomes NaN (numeric), so arithmetic and danfojs' numeric dtype work. */
const NUMERIC_NULLABLE = new Set([
  "checkpoint",
  "self_score",
  "mean",
  "tokens_cached",
  "memory_version",
  "reasoning_chars",
  "turns_dropped",
  "experience_score",
  "experience_score_from",
  "experience_score_from_episode",
]);

/** What one column holds (after null -> NaN in numeric nullable columns; `history_keep` and `retrieved_steps` as JSON text). */
type Col<T> = T[];
/** Typed plain columns of the steps frame (`cols.steps.reward` is a `number[]`). */
export interface StepColumns extends Columns {
  run_id: Col<string>;
  model: Col<string>;
  game: Col<string>;
  pathway: Col<string>;
  phase: Col<string>;
  view: Col<string | null>;
  config: Col<string>;
  checkpoint: Col<number>;
  episode: Col<number>;
  seed: Col<number>;
  step: Col<number>;
  action: Col<string | null>;
  self_score: Col<number>;
  parse_error: Col<string | null>;
  valid: Col<boolean>;
  reward: Col<number>;
  score_after: Col<number>;
  done: Col<boolean>;
  tokens_in: Col<number>;
  tokens_out: Col<number>;
  latency_ms: Col<number>;
  cached: Col<boolean | null>;
  finish_reason: Col<string | null>;
  tokens_cached: Col<number>;
  history_keep: Col<string | null>;
  memory_version: Col<number>;
  retrieved_steps: Col<string | null>;
  reasoning_chars: Col<number>;
  tokens_counted_by: Col<string | null>;
  turns_dropped: Col<number>;
  answer_source: Col<string | null>;
}
export interface EpisodeColumns extends Columns {
  run_id: Col<string>;
  model: Col<string>;
  game: Col<string>;
  pathway: Col<string>;
  phase: Col<string>;
  view: Col<string | null>;
  config: Col<string>;
  checkpoint: Col<number | null>;
  episode: Col<number>;
  seed: Col<number>;
  score: Col<number>;
  steps: Col<number>;
  status: Col<string>;
  error: Col<string | null>;
  started_at: Col<string>;
  ended_at: Col<string>;
}
export interface CheckpointColumns extends Columns {
  run_id: Col<string>;
  model: Col<string>;
  game: Col<string>;
  pathway: Col<string>;
  checkpoint: Col<number>;
  view: Col<string>;
  n_scores: Col<number>;
  mean: Col<number>;
  status: Col<string>;
  reason: Col<string | null>;
}
/** One row per run; NaN where a metric does not apply (e.g. agree on a `none` run). */
export interface RunColumns extends Columns {
  run_id: Col<string>;
  model: Col<string>;
  game: Col<string>;
  pathway: Col<string>;
  status: Col<string | null>;
  run_seed: Col<number | null>;
  kit_version: Col<string | null>;
  n_checkpoints: Col<number>;
  n_valid: Col<number>;
  y0: Col<number>;
  avg: Col<number>;
  max: Col<number>;
  auc_plus: Col<number>;
  naba: Col<number>;
  n_steps: Col<number>;
  n_explore_steps: Col<number>;
  n_eval_steps: Col<number>;
  agree: Col<number>;
  nmae: Col<number>;
  n_unscored: Col<number>;
}

/** Plain columns of the four frames. */
export interface FrameColumns {
  steps: StepColumns;
  episodes: EpisodeColumns;
  checkpoints: CheckpointColumns;
  runs: RunColumns;
}

export interface FrameOptions {
  /** Keep observation, response and feedback text in the steps frame (default false). */
  text?: boolean;
  /** Keep only runs of these models. */
  models?: readonly string[];
  /** Warnings (torn or damaged lines, runs the loader left out) are passed here; default: collected silently. */
  onWarning?: (message: string) => void;
}

/**
 * Builds columns row by row: the named columns always exist; a field outside them (an extra field
 * of a converted log) becomes a new column, null in the rows before it appeared. Array and object
 * values are stored as JSON text (a frame cell holds a scalar).
 */
class ColumnBuilder {
  readonly cols: Columns;
  private rows = 0;
  /** The named columns' arrays, in `names` order. */
  private readonly named: (string | number | boolean | null)[][];
  /** Fields outside `names` that became columns, in order of appearance. */
  private readonly extraNames: string[] = [];
  /** The row each extra column first appeared in. */
  private readonly extraFirst = new Map<string, number>();
  /** Each row's run directory (the directory of the file it was read from). */
  private readonly from: string[] = [];

  constructor(
    private readonly names: readonly string[],
    private readonly extras: boolean,
    private readonly skip: ReadonlySet<string> = new Set(),
  ) {
    this.cols = Object.fromEntries(names.map((n) => [n, []]));
    this.named = names.map((n) => this.cols[n]!);
  }

  push(rec: Record<string, unknown>, from = ""): void {
    this.from.push(from);
    const names = this.names;
    for (let i = 0; i < names.length; i++) (this.named[i] as unknown[]).push(cellValue(names[i] as string, rec[names[i] as string]));
    if (this.extras) {
      for (const k of Object.keys(rec)) {
        if (k in this.cols || this.skip.has(k)) continue;
        this.cols[k] = new Array(this.rows).fill(null);
        (this.cols[k] as unknown[]).push(cellValue(k, rec[k]));
        this.extraNames.push(k);
        this.extraFirst.set(k, this.rows);
      }
      // Only an extra column can lack this row (the named ones were just filled).
      for (const k of this.extraNames) {
        const v = this.cols[k] as unknown[];
        if (v.length === this.rows) v.push(cellValue(k, undefined));
      }
    }
    this.rows++;
  }

  /** Removes the rows read from these run directories (and the extra columns only they brought). */
  dropFrom(dirs: ReadonlySet<string>): void {
    const keep = this.from.map((d) => !dirs.has(d));
    if (keep.every(Boolean)) return;
    for (const k of this.extraNames.filter((n) => !keep[this.extraFirst.get(n) ?? 0])) {
      if ((this.cols[k] as unknown[]).every((v, i) => !keep[i] || v === null)) {
        delete this.cols[k];
        this.extraNames.splice(this.extraNames.indexOf(k), 1);
      }
    }
    for (const a of Object.values(this.cols)) {
      let j = 0;
      for (let i = 0; i < a.length; i++) if (keep[i]) a[j++] = a[i] as string | number | boolean | null;
      a.length = j;
    }
    let j = 0;
    for (let i = 0; i < this.from.length; i++) if (keep[i]) this.from[j++] = this.from[i] as string;
    this.from.length = j;
    this.rows = j;
    for (const k of this.extraNames) this.extraFirst.set(k, 0);
  }
}

function cellValue(name: string, v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return NUMERIC_NULLABLE.has(name) ? Number.NaN : null;
  if (typeof v === "object") return JSON.stringify(v);
  return v as string | number | boolean;
}

/** A schema's type under its optional / nullable / default wrappers. */
function innerType(s: z.ZodType): string {
  let d = (s as unknown as { def: { type: string; innerType?: z.ZodType } }).def;
  while ((d.type === "optional" || d.type === "nullable" || d.type === "default") && d.innerType !== undefined) d = (d.innerType as unknown as { def: typeof d }).def;
  return d.type === "array" ? `array<${innerType((d as unknown as { element: z.ZodType }).element)}>` : d.type;
}

const PLAIN = new Set(["string", "enum", "literal", "number", "boolean"]);

/**
 * A record as its line parsed, with each declared field whose cell text zod's copy could change (an
 * object, a list of objects: zod keeps their declared keys only, in the schema's order) replaced by
 * zod's copy of that field, as a whole-record parse gives it. Fields of plain values (and lists of
 * them) are the same either way, and so is every top-level key: a cell is read by name, and the keys
 * the schema does not declare keep their order. The record passed validation, so each parse succeeds.
 */
function zodCopied(schema: z.ZodObject): (rec: Record<string, unknown>) => Record<string, unknown> {
  const nested = Object.entries(schema.shape as Record<string, z.ZodType>).filter(([, s]) => {
    const t = innerType(s);
    return !PLAIN.has(t) && !(t.startsWith("array<") && PLAIN.has(t.slice(6, -1)));
  });
  return (rec) => {
    for (const [name, s] of nested) if (rec[name] !== undefined && rec[name] !== null) rec[name] = s.parse(rec[name]);
    return rec;
  };
}

const stepCopy = zodCopied(StepRecord);
const episodeCopy = zodCopied(EpisodeRecord);
const checkpointCopy = zodCopied(CheckpointRecord);

/** The loader's hooks that collect frame columns during a load, and the columns once it is done. */
export interface FrameCollector {
  /** The hooks for `loadDataset`'s `also` (records as written). */
  hooks: NonNullable<LoadOptions["also"]>;
  /** The columns, once `full` (the data set that load returned) is known: rows of runs it left out go. */
  finish(full: Dataset): FrameColumns;
}

/**
 * Collects the frames' columns from one `loadDataset` pass: `loadColumns` runs it, and the SQL tables'
 * load (logDatabase.ts) can run the same hooks beside its own, so one validating pass gives both.
 */
export function frameCollector(opts: FrameOptions = {}): FrameCollector {
  const wanted = opts.models ? new Set(opts.models) : null;
  const steps = new ColumnBuilder(opts.text ? [...STEP_COLUMNS, ...STEP_TEXT_COLUMNS] : STEP_COLUMNS, true, opts.text ? new Set() : new Set(STEP_TEXT_COLUMNS));
  const episodes = new ColumnBuilder(EPISODE_COLUMNS, false);
  const checkpoints = new ColumnBuilder(CHECKPOINT_COLUMNS, false);
  const keep = (m: string): boolean => wanted === null || wanted.has(m);
  const onWarning = (w: { file: string; line: number; message: string }): void => opts.onWarning?.(`${w.file}:${w.line}: ${w.message}`);
  const read = new Set<string>();
  return {
    hooks: {
      // `view`: the evaluation view (views.md), `eval` where the record has none; null on exploration records.
      // The records as their lines parsed (the loader skips zod's copy of every line): each cell is read by
      // name, and the few nested fields whose text zod's copy would change are copied by zod (zodCopied).
      asWritten: true,
      checkpoint: (r, file) => keep(r.model) && (read.add(dirname(file)), checkpoints.push(checkpointCopy({ ...r, view: viewOf(r), n_scores: r.scores.length }), dirname(file))),
      episode: (r, file) => keep(r.model) && (read.add(dirname(file)), episodes.push(episodeCopy({ ...r, view: r.phase === "eval" ? viewOf(r) : null }), dirname(file))),
      step: (r: StepRecord, file) => keep(r.model) && (read.add(dirname(file)), steps.push(stepCopy({ ...r, view: r.phase === "eval" ? viewOf(r) : null }), dirname(file))),
      readWarning: onWarning,
    },
    finish(full) {
      // The records of a run the loader left out were handed on before its bad line: they go too. A run
      // directory that no run of the data set comes from is one the loader left out.
      const kept = new Set(full.runs.flatMap((r) => r.sources));
      const leftOut = new Set([...read].filter((d) => !kept.has(d)));
      for (const b of [steps, episodes, checkpoints]) b.dropFrom(leftOut);
      return {
        steps: steps.cols as StepColumns,
        episodes: episodes.cols as EpisodeColumns,
        checkpoints: checkpoints.cols as CheckpointColumns,
        runs: runColumns(opts.models ? filterModels(full, opts.models) : full, gameRewardRanges(full)),
      };
    },
  };
}

/**
 * Reads data directories into plain columns (steps, episodes, checkpoints, runs). Every line is
 * validated like the metrics' loader does; the runs columns carry each run's headline numbers
 * (curve metrics from the same functions as the tables, Agree/NMAE for history and memory runs).
 *
 * With the default options, the columns a run's SQL warm-up built from the same validated pass
 * (`S3GYM_FRAMES`, framesSnapshot.ts) answer instead, when they were made from these directories and
 * no run file changed since; a warm-up still building them is waited for.
 */
export async function loadColumns(dataDirs: string | readonly string[], opts: FrameOptions = {}): Promise<FrameColumns> {
  const dirs = typeof dataDirs === "string" ? [dataDirs] : [...dataDirs];
  if (opts.text !== true && opts.models === undefined && opts.onWarning === undefined) {
    const snap = await awaitFramesSnapshot<FrameColumns>(process.env[FRAMES_SNAPSHOT_VAR], dirs);
    if (snap !== null) return snap;
  }
  const collect = frameCollector(opts);
  // One pass: the loader validates every record for the runs' metrics and hands each to the frames.
  // The whole data set, then the model view: NMAE's range is the game's (all models), as in `report`.
  // Taken before the load, so the remembered Dataset is never newer than its stamps (datasetMemo.ts);
  // a directory that cannot be listed is left for the loader to name.
  let stamps: string[] | null = null;
  try {
    stamps = runFileStamps(dirs);
  } catch {
    stamps = null;
  }
  const full = await loadDataset(dirs, {
    // A run the loader leaves out (a line that breaks its schema) is said in its words.
    onWarning: (m) => m.startsWith("left out run ") && opts.onWarning?.(m),
    also: collect.hooks,
  });
  if (stamps !== null) rememberDataset(dirs, stamps, full);
  return collect.finish(full);
}

/**
 * One row per run: identity, manifest facts, curve metrics, and judging numbers where they apply.
 * `ranges` (NMAE's game-level reward ranges) defaults to those of `ds`; pass the whole data set's when
 * `ds` is a model-filtered view.
 */
export function runColumns(ds: Dataset, ranges: ReadonlyMap<string, RewardRange | null> = gameRewardRanges(ds)): RunColumns {
  const rows = new ColumnBuilder(RUN_COLUMNS, false);
  const nan = (v: number | null): number => (v === null ? Number.NaN : v);
  for (const run of ds.runs) {
    const curve = runCurve(run);
    const m = curveMetrics(curve);
    const range = ranges.get(run.game) ?? null;
    const j = isJudged(run) ? judgingStats(totalCounts(episodeCounts(run, range)), range) : null;
    const y0 = curve.find((p) => p.x === 0)?.y ?? null;
    rows.push({
      run_id: run.run_id,
      model: run.model,
      game: run.game,
      pathway: run.pathway,
      status: run.manifest?.status ?? null,
      run_seed: run.manifest?.run_seed ?? null,
      kit_version: run.manifest?.kit_version ?? null,
      n_checkpoints: run.checkpoints.length,
      n_valid: run.checkpoints.filter((c) => c.valid).length,
      y0: nan(y0),
      avg: nan(m.avg),
      max: nan(m.max),
      auc_plus: nan(m.auc_plus),
      naba: nan(m.naba),
      n_steps: run.counts.steps,
      n_explore_steps: run.counts.exploreSteps,
      n_eval_steps: run.counts.evalSteps,
      agree: nan(j?.agree ?? null),
      nmae: nan(j?.nmae ?? null),
      n_unscored: j === null ? Number.NaN : j.n_unscored,
    });
  }
  return rows.cols as RunColumns;
}

/** The four danfojs DataFrames. */
export interface Frames {
  steps: DataFrame;
  episodes: DataFrame;
  checkpoints: DataFrame;
  runs: DataFrame;
}

/**
 * Loads data directories into danfojs DataFrames (steps, episodes, checkpoints, runs). danfojs is
 * imported lazily (it pulls in TensorFlow.js: ~2 s and ~150 MB), so the rest of the kit never pays
 * for it. An empty table becomes an empty DataFrame with no columns.
 */
export async function loadFrames(dataDirs: string | readonly string[], opts: FrameOptions = {}): Promise<Frames> {
  const cols = await loadColumns(dataDirs, opts);
  // An optional peer of the installed kit (its xlsx dependency is fetched from outside the npm
  // registry): a clone has it from `npm ci`; a project that installed the kit installs it itself.
  let dfd: typeof import("danfojs");
  try {
    dfd = await import("danfojs");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND" && (e as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw e;
    throw new Error(
      `loadFrames needs danfojs, an optional peer of the kit: 'npm install danfojs' in your project (add "overrides": {"xlsx": "0.18.5"} to its package.json first, as the kit's own does: danfojs asks for an xlsx build outside the npm registry); loadColumns gives the same data as plain columns without it`,
    );
  }
  const frame = (c: Columns): DataFrame => {
    const n = (Object.values(c)[0] ?? []).length;
    return n === 0 ? new dfd.DataFrame([]) : new dfd.DataFrame(c);
  };
  return { steps: frame(cols.steps), episodes: frame(cols.episodes), checkpoints: frame(cols.checkpoints), runs: frame(cols.runs) };
}

/** Plain columns, or a danfojs DataFrame (typed structurally: notebooks cannot resolve danfojs' types). */
export type ColumnSource = Columns | { columns: string[]; column(name: string): { values: unknown } };

function isFrame(src: ColumnSource): src is { columns: string[]; column(name: string): { values: unknown } } {
  return Array.isArray((src as { columns?: unknown }).columns) && typeof (src as { column?: unknown }).column === "function";
}

/** A column's raw values, or an error naming the column and the ones that exist. */
function rawColumn(src: ColumnSource, name: string): unknown[] {
  const names = isFrame(src) ? src.columns : Object.keys(src);
  if (!names.includes(name)) throw new Error(`no column '${name}': the columns are ${names.join(", ") || "(none: the frame is empty)"}`);
  const v = isFrame(src) ? src.column(name).values : (src as Columns)[name];
  return Array.isArray(v) ? v : [];
}

function typed<T>(src: ColumnSource, name: string, kind: string, ok: (v: unknown) => boolean, map: (v: unknown) => T): T[] {
  const values = rawColumn(src, name);
  return values.map((v, i) => {
    if (!ok(v)) throw new Error(`column '${name}' is not ${kind}: row ${i} holds ${JSON.stringify(v)}`);
    return map(v);
  });
}

/** A numeric column as numbers (missing values as NaN); an error if a cell is not a number. */
export function numberColumn(src: ColumnSource, name: string): number[] {
  return typed(
    src,
    name,
    "numeric",
    (v) => v === null || v === undefined || typeof v === "number",
    (v) => (typeof v === "number" ? v : Number.NaN),
  );
}

/** A text column as strings (missing values as null); an error if a cell is not text. */
export function textColumn(src: ColumnSource, name: string): (string | null)[] {
  return typed(
    src,
    name,
    "text",
    (v) => v === null || v === undefined || typeof v === "string",
    (v) => (typeof v === "string" ? v : null),
  );
}

/** A boolean column (missing values as null); an error if a cell is not true/false. */
export function booleanColumn(src: ColumnSource, name: string): (boolean | null)[] {
  return typed(
    src,
    name,
    "boolean",
    (v) => v === null || v === undefined || typeof v === "boolean",
    (v) => (typeof v === "boolean" ? v : null),
  );
}
