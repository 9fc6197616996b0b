/**
 * Data frames for ad hoc work (notebook 00 and friends): steps, episodes, checkpoints and runs of one
 * or more data directories, as danfojs DataFrames, or as plain column objects for code that cannot
 * resolve danfojs' types (tslab compiles notebooks with Node10 module resolution).
 *
 * Unlike the metrics' loader, frames hold every row in memory. Step text (observation, response,
 * feedback) is left out unless asked for, which is what makes a few hundred thousand steps fit.
 * Nulls: numeric columns use NaN for null (self_score, checkpoint), text columns keep null.
 */
import type { DataFrame } from "danfojs";
import { discoverRuns, readRunDir } from "../logs/reader.js";
import type { StepRecord } from "../logs/schema.js";
import { curveMetrics } from "./curves.js";
import { filterModels, loadDataset, type Dataset } from "./dataset.js";
import { judgingStats, type RewardRange } from "./judging.js";
import { episodeCounts, gameRewardRanges, isJudged, runCurve, totalCounts } from "./runs.js";

/** A column-oriented table: column name -> values (all columns the same length). */
export type Columns = Record<string, (string | number | boolean | null)[]>;

/** Plain columns of the four frames. */
export interface FrameColumns {
  steps: Columns;
  episodes: Columns;
  checkpoints: Columns;
  runs: Columns;
}

export interface FrameOptions {
  /** Keep observation, response and feedback text in the steps frame (default false). */
  text?: boolean;
  /** Keep only runs of these models. */
  models?: readonly string[];
  /** Warnings (torn lines) are passed here; default: collected silently. */
  onWarning?: (message: string) => void;
}

const STEP_COLS = [
  "run_id", "model", "game", "pathway", "phase", "config", "checkpoint", "episode", "seed", "step", "action",
  "self_score", "parse_error", "valid", "reward", "score_after", "done", "tokens_in", "tokens_out", "latency_ms",
] as const;
const TEXT_COLS = ["observation", "response", "feedback"] as const;
const EPISODE_COLS = [
  "run_id", "model", "game", "pathway", "phase", "config", "checkpoint", "episode", "seed", "score", "steps",
  "status", "error", "started_at", "ended_at",
] as const;
const CHECKPOINT_COLS = ["run_id", "model", "game", "pathway", "checkpoint", "n_scores", "mean", "status", "reason"] as const;
/** Columns where null becomes NaN (numeric). */
const NUMERIC_NULLABLE = new Set(["checkpoint", "self_score", "mean"]);

function emptyColumns(names: readonly string[]): Columns {
  return Object.fromEntries(names.map((n) => [n, []]));
}

function push(cols: Columns, names: readonly string[], rec: Record<string, unknown>): void {
  for (const n of names) {
    const v = rec[n];
    (cols[n] as unknown[]).push(v === null || v === undefined ? (NUMERIC_NULLABLE.has(n) ? Number.NaN : null) : v);
  }
}

/**
 * Reads data directories into plain columns (steps, episodes, checkpoints, runs). Every line is
 * validated like the metrics' loader does; the runs columns carry each run's headline numbers
 * (curve metrics from the same functions as the tables, Agree/NMAE for history and memory runs).
 */
export async function loadColumns(dataDirs: string | readonly string[], opts: FrameOptions = {}): Promise<FrameColumns> {
  const dirs = typeof dataDirs === "string" ? [dataDirs] : [...dataDirs];
  const wanted = opts.models ? new Set(opts.models) : null;
  const stepCols = opts.text ? [...STEP_COLS, ...TEXT_COLS] : [...STEP_COLS];
  const out: FrameColumns = {
    steps: emptyColumns(stepCols),
    episodes: emptyColumns(EPISODE_COLS),
    checkpoints: emptyColumns(CHECKPOINT_COLS),
    runs: {},
  };
  const keep = (m: string): boolean => wanted === null || wanted.has(m);
  const onWarning = (w: { file: string; line: number; message: string }): void => opts.onWarning?.(`${w.file}:${w.line}: ${w.message}`);
  for (const loc of discoverRuns(dirs)) {
    await readRunDir(
      loc.runDir,
      {
        checkpoint: (r) => keep(r.model) && push(out.checkpoints, CHECKPOINT_COLS, { ...r, n_scores: r.scores.length }),
        episode: (r) => keep(r.model) && push(out.episodes, EPISODE_COLS, r),
        step: (r: StepRecord) => keep(r.model) && push(out.steps, stepCols, r),
      },
      { onWarning },
    );
  }
  // The whole data set, then the model view: NMAE's range is the game's (all models), as in `report`.
  const full = await loadDataset(dirs);
  out.runs = runColumns(opts.models ? filterModels(full, opts.models) : full, gameRewardRanges(full));
  return out;
}

/**
 * One row per run: identity, manifest facts, curve metrics, and judging numbers where they apply.
 * `ranges` (NMAE's game-level reward ranges) defaults to those of `ds`; pass the whole data set's when
 * `ds` is a model-filtered view.
 */
export function runColumns(ds: Dataset, ranges: ReadonlyMap<string, RewardRange | null> = gameRewardRanges(ds)): Columns {
  const cols = emptyColumns([
    "run_id", "model", "game", "pathway", "status", "run_seed", "kit_version", "n_checkpoints", "n_valid",
    "y0", "avg", "max", "auc_plus", "naba", "n_steps", "n_explore_steps", "n_eval_steps", "agree", "nmae", "n_unscored",
  ]);
  const nan = (v: number | null): number => (v === null ? Number.NaN : v);
  for (const run of ds.runs) {
    const curve = runCurve(run);
    const m = curveMetrics(curve);
    const range = ranges.get(run.game) ?? null;
    const j = isJudged(run) ? judgingStats(totalCounts(episodeCounts(run, range)), range) : null;
    const y0 = curve.find((p) => p.x === 0)?.y ?? null;
    push(cols, Object.keys(cols), {
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
  return cols;
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
  const dfd = await import("danfojs");
  const frame = (c: Columns): DataFrame => {
    const n = (Object.values(c)[0] ?? []).length;
    return n === 0 ? new dfd.DataFrame([]) : new dfd.DataFrame(c);
  };
  return { steps: frame(cols.steps), episodes: frame(cols.episodes), checkpoints: frame(cols.checkpoints), runs: frame(cols.runs) };
}
