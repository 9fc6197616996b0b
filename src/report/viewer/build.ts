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
 * streamed one episode at a time. The build time is linear in the data and the memory is bounded by
 * the largest run. A page loads only the files it shows (the run page never loads the episodes).
 */
import { existsSync } from "node:fs";
import { mkdir, open, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { splitReasoning } from "../../agent/parseResponse.js";
import { DEFAULT_B, DEFAULT_LEVEL, describeBootstrap, type BootstrapConfig, type Estimate } from "../../analysis/bootstrap.js";
import { analyzeCurves, analyzeTraining, rowKey, type CurveSeries, type MainResultsRow, type TrainingRow } from "../../analysis/curveTables.js";
import { compareText, loadDataset, type RunData } from "../../analysis/dataset.js";
import { distinct, isTraining, runCurve } from "../../analysis/runs.js";
import { fmt3, fmtEstimate } from "../tables.js";
import type { StepRecord } from "../../logs/schema.js";
import { summarizeCalls, type UsageTotals } from "../../runner/usage.js";
import { lineDiff } from "./diff.js";
import { indexHtml } from "./html.js";
import { episodePrompts, replayInput, TextPool } from "./prompts.js";
import { readMergedRun, viewOf, type MergedEpisode, type MergedRun } from "../../logs/mergedRun.js";

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

/** The text of a chunk file: one call of the page's loader; JSON is a valid JS expression. */
export function chunkScript(key: string, data: unknown): string {
  return `S3V_CHUNK(${JSON.stringify(key)}, ${JSON.stringify(data)});\n`;
}

/** A step is over-confident when the model claimed a gain the verifier did not give: s > 0 and r <= 0. */
export function isOverConfident(s: { self_score: number | null; reward: number }): boolean {
  return s.self_score !== null && s.self_score > 0 && s.reward <= 0;
}

/** The status a run shows: the manifest's own (complete / failed / degenerate / ...), else derived. */
function runStatus(run: RunData): { status: string; note: string } {
  // A manifest is optional and may be partial (only its valid fields are kept): use its status when it has one.
  const status = run.manifest?.status;
  if (status !== undefined) return { status, note: "status from manifest.json" };
  const failed = run.checkpoints.some((c) => c.status !== "ok");
  return { status: failed ? "failed" : "complete", note: "no manifest.json: status derived from checkpoints.jsonl" };
}

function episodeLabel(e: { phase: string; checkpoint: number | null; episode: number; view: string }): string {
  if (e.phase === "explore") return `explore ${e.episode}`;
  return `x=${e.checkpoint} ${e.view === "eval" ? "eval" : e.view} ${e.episode}`;
}

/** Clears (or creates) `<out>/chunks`; refuses a folder of that name the viewer did not write. */
async function prepareOut(outDir: string): Promise<string> {
  const dir = join(outDir, CHUNK_DIR);
  if (existsSync(dir)) {
    const names = await readdir(dir);
    if (names.length > 0 && !names.includes(MARKER)) {
      throw new Error(`${dir} exists and was not written by s3gym view; choose another --out (nothing was deleted)`);
    }
    await rm(dir, { recursive: true, force: true });
  }
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, MARKER), "written by s3gym view; the next build replaces this folder\n");
  return dir;
}

export interface StepView {
  step: number;
  observation: string;
  reasoning: string;
  answer: string;
  action: string | null;
  parse_error: string | null;
  self_score: number | null;
  reward: number;
  score_after: number;
  valid: boolean;
  feedback: string;
  done: boolean;
  tokens_in: number;
  tokens_out: number;
  latency_ms: number;
  cached: boolean;
  over: boolean;
}

/** A step as its page shows it (the episode file's step); the packed prompts refer to its observation, feedback and answer. */
export function stepView(s: StepRecord): StepView {
  const split = splitReasoning(s.response);
  // A reasoning model's separate reasoning text, when the log carries it, goes with the think block.
  const extra = typeof (s as { reasoning?: unknown }).reasoning === "string" ? ((s as { reasoning?: string }).reasoning as string) : "";
  return {
    step: s.step,
    observation: s.observation,
    reasoning: [extra, split.reasoning].filter((t) => t.length > 0).join("\n\n"),
    answer: split.visible.replace(/^\s*\n/, ""),
    action: s.action,
    parse_error: s.parse_error,
    self_score: s.self_score,
    reward: s.reward,
    score_after: s.score_after,
    valid: s.valid,
    feedback: s.feedback,
    done: s.done,
    tokens_in: s.tokens_in,
    tokens_out: s.tokens_out,
    latency_ms: s.latency_ms,
    cached: s.cached === true,
    over: isOverConfident(s),
  };
}

/**
 * The run's calls, tokens and dollars (calls.jsonl). Copies of one run in several directories hold
 * the same calls up to where each copy was taken, so adding them would count calls twice: the copy
 * with the most calls is used.
 */
function usageOf(sources: readonly string[]): UsageTotals | null {
  let best: UsageTotals | null = null;
  for (const d of sources) {
    if (!existsSync(join(d, "calls.jsonl"))) continue;
    const u = summarizeCalls(d);
    if (best === null || u.calls > best.calls) best = u;
  }
  return best;
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
    await writeFile(join(chunkDir, `${key}.js`), text);
    bytes += Buffer.byteLength(text);
    chunks++;
  };

  /**
   * A chunk written piece by piece (`S3V_CHUNK(key, {"eps":[...], ...fields})`): one item in memory at
   * a time; `end` may add fields after the list (the prompt file's text pool).
   */
  const streamed = async (key: string) => {
    const fh = await open(join(chunkDir, `${key}.js`), "w");
    let first = true;
    const put = async (text: string) => {
      await fh.write(text);
      bytes += Buffer.byteLength(text);
    };
    await put(`S3V_CHUNK(${JSON.stringify(key)}, {"eps":[`);
    return {
      add: async (item: unknown) => {
        await put(`${first ? "" : ",\n"}${JSON.stringify(item)}`);
        first = false;
      },
      end: async (fields: Record<string, unknown> = {}) => {
        const extra = Object.entries(fields).map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`).join("");
        await put(`]${extra}});\n`);
        await fh.close();
        chunks++;
      },
    };
  };

  const overview: unknown[] = [];
  const views = new Set<string>();
  let totalEpisodes = 0;
  let totalSteps = 0;
  for (let i = 0; i < ds.runs.length; i++) {
    const run = ds.runs[i] as RunData;
    const merged: MergedRun = await readMergedRun(run.sources, {
      onWarning: () => undefined, // the loader above already reported every torn line
    });
    const key = rowKey(run.model, run.game, run.pathway);
    const row = isTraining(run) ? undefined : rows.get(key);
    const training = isTraining(run) ? trainingRows.get(run.run_id) : undefined;
    const curve = curveView(isTraining(run) ? undefined : series.get(key), run);
    const { status, note } = runStatus(run);
    const replay = replayInput(merged);

    const episodeFile = await streamed(`r${i}d`);
    const promptFile = await streamed(`r${i}p`);
    const pool = new TextPool();
    const episodeRows: Record<string, unknown>[] = [];
    const byCheckpoint = new Map<number, { j: number; label: string; score: string }[]>();
    const runViews = new Set<string>();
    for (let j = 0; j < merged.episodes.length; j++) {
      const ep = merged.episodes[j] as MergedEpisode;
      const head = ep.record ?? (ep.steps[0] as StepRecord);
      const view = viewOf(head as { phase: string; view?: unknown });
      if (head.phase === "eval") runViews.add(view);
      const steps = ep.steps.map(stepView);
      let scale = 0;
      for (const st of steps) scale = Math.max(scale, Math.abs(st.reward), Math.abs(st.self_score ?? 0));
      const prompts = episodePrompts(replay, ep, pool, steps);
      const base = { phase: head.phase, checkpoint: head.checkpoint, episode: head.episode, view };
      const label = episodeLabel(base);
      const status = ep.record ? ep.record.status : "unfinished";
      const score = ep.record ? String(ep.record.score) : "";
      const episode = {
        i,
        j,
        run_id: run.run_id,
        title: `${label} (seed ${head.seed})`,
        ...base,
        config: head.config,
        seed: head.seed,
        status,
        error: ep.record?.error ?? (ep.record ? null : "no episode record: the episode did not finish"),
        score,
        started_at: ep.record?.started_at ?? null,
        ended_at: ep.record?.ended_at ?? null,
        end_observation: typeof (ep.record as { end_observation?: unknown } | null)?.end_observation === "string" ? (ep.record as unknown as { end_observation: string }).end_observation : null,
        prompt: typeof prompts === "string" ? prompts : true,
        scale,
        steps,
      };
      // Item j of the run's episode and prompt files: the episode; its packed prompts when rebuildable.
      await episodeFile.add(episode);
      await promptFile.add(typeof prompts === "string" ? null : prompts);
      episodeRows.push({
        j,
        label,
        ...base,
        seed: head.seed,
        status,
        error: ep.record?.error ?? null,
        score,
        steps: steps.length,
        over: steps.filter((s) => s.over).length,
        parseErrors: steps.filter((s) => s.parse_error !== null).length,
      });
      if (head.phase === "eval" && head.checkpoint !== null) {
        const list = byCheckpoint.get(head.checkpoint) ?? [];
        // A failed episode's score means nothing (metrics leave it out): its status stands instead.
        list.push({ j, label: view === "eval" ? `#${head.episode}` : `${view} #${head.episode}`, score: status === "ok" ? score : status });
        byCheckpoint.set(head.checkpoint, list);
      }
      totalSteps += steps.length;
    }
    await episodeFile.end();
    await promptFile.end({ texts: pool.entries });
    totalEpisodes += merged.episodes.length;
    for (const v of runViews) views.add(v);

    const memory = merged.memory.map((m, k) => ({
      after_episode: m.after_episode,
      parsed: m.parsed,
      error: m.error,
      diff: lineDiff(k > 0 ? (merged.memory[k - 1]?.text ?? "") : "", m.text),
    }));
    const usage = usageOf(run.sources);
    await write(`r${i}`, {
      i,
      run_id: run.run_id,
      model: run.model,
      game: run.game,
      pathway: run.pathway,
      training: isTraining(run),
      status,
      statusNote: note,
      metrics: metricsView(row, training),
      curve,
      curveNote: isTraining(run)
        ? "Training metrics as in `s3gym report` (training.csv): epoch 0 is the base model; no intervals."
        : `The report's row (${run.model} / ${run.game} / ${run.pathway}${row && row.runs.length > 1 ? `, mean of ${row.runs.length} runs` : ""}): ${describeBootstrap(cfg, "evaluation episodes within each checkpoint of each run")}`,
      checkpoints: merged.checkpoints.map((c) => ({
        x: c.checkpoint,
        status: c.status,
        mean: fmt3(c.mean),
        reason: c.reason,
        episodes: byCheckpoint.get(c.checkpoint) ?? [],
      })),
      memory,
      usage,
      usageNote:
        usage === null
          ? ""
          : `From calls.jsonl${run.sources.length > 1 ? ` (of the copy with the most calls, among ${run.sources.length} directories)` : ""}: every model call (steps, summaries, corrections) of every invocation; cost_usd from the price table, when one was given.`,
      manifest: merged.manifest === null ? null : JSON.stringify(merged.manifest, null, 2),
      sources: run.sources,
      episodes: episodeRows,
    });
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
      views: [...runViews].sort(compareText),
      episodes: merged.episodes.length,
    });
    opts.onRun?.(i + 1, ds.runs.length);
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
  const html = indexHtml();
  await writeFile(join(opts.outDir, "index.html"), html);
  bytes += Buffer.byteLength(html);
  return { outDir: opts.outDir, runs: ds.runs.length, episodes: totalEpisodes, steps: totalSteps, chunks, bytes, warnings };
}
