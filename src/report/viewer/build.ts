/**
 * `s3gym view`'s site generator: a data directory (any number of shards, as `report` reads them) in,
 * a static site out:
 *
 *   <out>/index.html          the page (styles and script inlined; html.ts)
 *   <out>/chunks/index.js     the overview: every run with status, Avg, NABA and its curve
 *   <out>/chunks/r<i>.js      run i: curve with intervals, checkpoints, memory diffs, cost, manifest, episodes
 *   <out>/chunks/r<i>d.js     run i's episodes: every step of every episode
 *   <out>/chunks/r<i>p.js     the exact prompts of each episode's steps (prompts.ts; null where not
 *                             rebuildable; the turns as references to the steps of r<i>d.js) and the
 *                             run's pool of long prompt texts, loaded only when a prompt is asked for
 *
 * Three files per run, whatever the number of episodes: a file per episode (and another per episode's
 * prompts) made 17,718 files for one reproduction, and creating them cost more than computing them.
 *
 * Scale: the curve numbers come from the analysis loader's compact data set (the same pass and the
 * same builders as `report`: analyzeCurves, analyzeTraining, the table formatters), then the runs are
 * read ONE AT A TIME with their text (src/logs/mergedRun.ts), written out and dropped; a run's episode file is
 * streamed one episode at a time (runFiles.ts; in this thread or, with `workers`, one run per worker
 * thread at a time: runPool.ts). The build time is linear in the data and the memory is bounded by
 * the largest run (per thread). A page loads only the files it shows (the run page never loads the episodes).
 */
import { existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import { namedWriteError, writeFileAtomic, writeFileNamed } from "../../util/atomicWrite.js";
import { pidIsAlive } from "../../util/pid.js";
import { join } from "node:path";
import { DEFAULT_B, DEFAULT_LEVEL, describeBootstrap, type BootstrapConfig, type Estimate } from "../../analysis/stats/bootstrap.js";
import { analyzeCurves, analyzeTraining, rowKey, type CurveSeries, type MainResultsRow, type TrainingRow } from "../../analysis/tables/curveTables.js";
import { compareText, loadDataset, type RunData } from "../../analysis/load/dataset.js";
import { distinct, isTraining, runCurve } from "../../analysis/load/runs.js";
import { fmt3, fmtEstimate } from "../tables.js";
import { indexHtml } from "./html.js";
import { runJobs } from "./runPool.js";
import { chunkScript, type RunJob, type RunResult } from "./runFiles.js";

export { chunkScript, isOverConfident, stepView, type StepView } from "./runFiles.js";

export interface ViewerOptions {
  /** Data directories (shards merged, as `report` reads them). */
  dataDirs: readonly string[];
  /** Where the site is written (index.html and chunks/). */
  outDir: string;
  /** Bootstrap resamples of the curve intervals (default: report's 2000). */
  B?: number;
  /** Seed of the bootstrap streams (default: report's 0). */
  seed?: number;
  /** Each loader warning as it happens. */
  onWarning?: (message: string) => void;
  /** After each run is written. */
  onRun?: (done: number, total: number) => void;
  /**
   * Worker threads writing runs in parallel (default 1: runs are written in this thread). Each run's
   * files are the same wherever it is written.
   */
  workers?: number;
  /** With workers: each worker's heap limit in MB (V8's old generation), null for V8's default. */
  heapMb?: number | null;
}

export interface ViewerSummary {
  outDir: string;
  runs: number;
  episodes: number;
  steps: number;
  /** Chunk files written (index.html not counted). */
  chunks: number;
  /** Bytes written, index.html included. */
  bytes: number;
  warnings: string[];
}

/** The folder the chunks go to, and the marker that says the viewer wrote it (so a rebuild may clear it). */
export const CHUNK_DIR = "chunks";
const MARKER = ".s3gym-view";

/** The status a run shows: the manifest's own (complete / failed / degenerate / ...), else derived. */
function runStatus(run: RunData): { status: string; note: string } {
  // A manifest is optional and may be partial (only its valid fields are kept): use its status when it has one.
  const status = run.manifest?.status;
  if (status !== undefined) return { status, note: "status from manifest.json" };
  const failed = run.checkpoints.some((c) => c.status !== "ok");
  return { status: failed ? "failed" : "complete", note: "no manifest.json: status derived from checkpoints.jsonl" };
}

/**
 * The folder this process builds its chunks in, beside `<out>/chunks`: the finished build replaces
 * `chunks/` by two renames, so a build killed at any point leaves the previous `chunks/` whole (or,
 * killed between the renames, none) and never a half-cleared folder a rerun would refuse. Stale
 * folders of builds whose process is gone are removed by the next build.
 */
export function chunkStagePath(outDir: string, pid = process.pid): string {
  return join(outDir, `.${CHUNK_DIR}-build-${pid}`);
}

const STAGE_NAME = new RegExp(`^\\.${CHUNK_DIR}-(?:build|old)-(\\d+)$`);

/** Removes the stage and retired folders of viewer builds whose process is no longer running. */
function removeDeadBuilds(outDir: string): void {
  for (const name of readdirSync(outDir)) {
    const m = STAGE_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid !== process.pid && pidIsAlive(pid)) continue;
    rmSync(join(outDir, name), { recursive: true, force: true });
  }
}

/**
 * Checks `<out>/chunks` (a folder of that name the viewer did not write is refused, nothing deleted),
 * clears dead builds' folders, and creates this build's stage folder with the marker.
 */
async function prepareOut(outDir: string): Promise<string> {
  const dir = join(outDir, CHUNK_DIR);
  if (existsSync(dir)) {
    const names = await readdir(dir);
    if (names.length > 0 && !names.includes(MARKER)) {
      throw new Error(`${dir} exists and was not written by s3gym view; choose another --out (nothing was deleted)`);
    }
  }
  removeDeadBuilds(outDir);
  const stage = chunkStagePath(outDir);
  await rm(stage, { recursive: true, force: true });
  await mkdir(stage, { recursive: true });
  await writeFileNamed(join(stage, MARKER), "written by s3gym view; the next build replaces this folder\n");
  return stage;
}

/**
 * Puts the finished stage in place of `<out>/chunks`: the old folder is renamed aside (then removed),
 * the stage renamed in. Two builds finishing at once each retry until their own rename lands; the last
 * one wins whole.
 */
function swapInChunks(outDir: string, stage: string): void {
  const dir = join(outDir, CHUNK_DIR);
  const old = join(outDir, `.${CHUNK_DIR}-old-${process.pid}`);
  for (let attempt = 0; ; attempt++) {
    try {
      if (existsSync(dir)) renameSync(dir, old);
      renameSync(stage, dir);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // Another build's folder landed between our two renames: take it aside too and try again.
      if ((code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOENT") || attempt >= 20) throw namedWriteError(dir, e);
      if (existsSync(old)) rmSync(old, { recursive: true, force: true });
    }
  }
  rmSync(old, { recursive: true, force: true });
}

interface CurveView {
  x: number;
  y: number;
  lo: number | null;
  hi: number | null;
  yText: string;
  loText: string;
  hiText: string;
}

/** The run page's curve: the report's series of the run's row (intervals), or a training run's epochs. */
function curveView(series: CurveSeries | undefined, run: RunData): CurveView[] {
  if (series) return series.points.map((p) => ({ x: p.x, y: p.y, lo: p.lo, hi: p.hi, yText: fmt3(p.y), loText: fmt3(p.lo), hiText: fmt3(p.hi) }));
  return runCurve(run)
    .filter((p) => p.y !== null)
    .map((p) => ({ x: p.x, y: p.y as number, lo: null, hi: null, yText: fmt3(p.y), loText: "", hiText: "" }));
}

function metricsView(row: MainResultsRow | undefined, training: TrainingRow | undefined): { name: string; text: string }[] {
  if (training) {
    return [
      ["y0", training.y0],
      ["y_final", training.y_final],
      ["dFinal", training.d_final],
      ["Avg (updated)", training.avg],
      ["Max (updated)", training.max],
      ["AUC+", training.auc_plus],
    ].map(([name, v]) => ({ name: name as string, text: fmt3(v as number | null) }));
  }
  const est = (e: Estimate | undefined): string => fmtEstimate(e ?? null);
  return [
    { name: "Avg", text: est(row?.avg) },
    { name: "Max", text: est(row?.max) },
    { name: "AUC+", text: est(row?.auc_plus) },
    { name: "NABA", text: est(row?.naba) },
  ];
}

/** Builds the site. See the module comment for the layout. */
export async function buildViewer(opts: ViewerOptions): Promise<ViewerSummary> {
  const warnings: string[] = [];
  const ds = await loadDataset(opts.dataDirs, {
    onWarning: (m) => {
      warnings.push(m);
      opts.onWarning?.(m);
    },
  });
  const cfg: BootstrapConfig = { B: opts.B ?? DEFAULT_B, seed: opts.seed ?? 0, level: DEFAULT_LEVEL };
  const ca = analyzeCurves(ds, cfg);
  const tr = analyzeTraining(ds);
  const rows = new Map(ca.rows.map((r) => [rowKey(r.model, r.game, r.pathway), r]));
  const series = new Map(ca.series.map((s) => [rowKey(s.model, s.game, s.pathway), s]));
  const trainingRows = new Map(tr.rows.map((r) => [r.run_id, r]));

  await mkdir(opts.outDir, { recursive: true });
  const chunkDir = await prepareOut(opts.outDir);
  let bytes = 0;
  let chunks = 0;
  const write = async (key: string, data: unknown): Promise<void> => {
    const text = chunkScript(key, data);
    await writeFileNamed(join(chunkDir, `${key}.js`), text);
    bytes += Buffer.byteLength(text);
    chunks++;
  };

  const jobs: RunJob[] = ds.runs.map((run, i) => {
    const key = rowKey(run.model, run.game, run.pathway);
    const row = isTraining(run) ? undefined : rows.get(key);
    const training = isTraining(run) ? trainingRows.get(run.run_id) : undefined;
    const { status, note } = runStatus(run);
    return {
      i,
      run_id: run.run_id,
      model: run.model,
      game: run.game,
      pathway: run.pathway,
      training: isTraining(run),
      sources: run.sources,
      status,
      statusNote: note,
      metrics: metricsView(row, training),
      curve: curveView(isTraining(run) ? undefined : series.get(key), run),
      curveNote: isTraining(run)
        ? "Training metrics as in `s3gym report` (training.csv): epoch 0 is the base model; no intervals."
        : `The report's row (${run.model} / ${run.game} / ${run.pathway}${row && row.runs.length > 1 ? `, mean of ${row.runs.length} runs` : ""}): ${describeBootstrap(cfg, "evaluation episodes within each checkpoint of each run")}`,
    };
  });
  let done = 0;
  const results = await runJobs(jobs, chunkDir, opts.workers ?? 1, opts.heapMb ?? null, () => opts.onRun?.(++done, jobs.length));
  const views = new Set<string>();
  let totalEpisodes = 0;
  let totalSteps = 0;
  const overview: unknown[] = [];
  for (let i = 0; i < ds.runs.length; i++) {
    const run = ds.runs[i] as RunData;
    const r = results[i] as RunResult;
    bytes += r.bytes;
    chunks += r.chunks;
    totalEpisodes += r.episodes;
    totalSteps += r.steps;
    for (const v of r.views) views.add(v);
    const key = rowKey(run.model, run.game, run.pathway);
    const row = isTraining(run) ? undefined : rows.get(key);
    const training = isTraining(run) ? trainingRows.get(run.run_id) : undefined;
    const status = (jobs[i] as RunJob).status;
    overview.push({
      i,
      run_id: run.run_id,
      model: run.model,
      game: run.game,
      pathway: run.pathway,
      status,
      training: isTraining(run),
      avg: fmtEstimate(row?.avg ?? null),
      naba: fmtEstimate(row?.naba ?? null),
      y0: training ? fmt3(training.y0) : "",
      dFinal: training ? fmt3(training.d_final) : "",
      spark: runCurve(run),
      views: r.views,
      episodes: r.episodes,
    });
  }

  await write("index", {
    dataDirs: opts.dataDirs,
    bootstrap: { method: ca.methods.size > 0 ? ca.methods.describe() : "no intervals", B: cfg.B, seed: cfg.seed, level: cfg.level },
    counts: { runs: ds.runs.length, episodes: totalEpisodes, steps: totalSteps },
    facets: {
      models: distinct(ds.runs.map((r) => r.model)),
      games: distinct(ds.runs.map((r) => r.game)),
      pathways: distinct(ds.runs.map((r) => r.pathway)),
      views: [...views].sort(compareText),
    },
    warnings: warnings.slice(0, 200),
    runs: overview,
  });
  swapInChunks(opts.outDir, chunkDir);
  const html = indexHtml();
  writeFileAtomic(join(opts.outDir, "index.html"), html, { durable: false });
  bytes += Buffer.byteLength(html);
  return { outDir: opts.outDir, runs: ds.runs.length, episodes: totalEpisodes, steps: totalSteps, chunks, bytes, warnings };
}
