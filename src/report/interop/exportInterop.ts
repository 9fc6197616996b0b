/**
 * `s3gym export --format inspect|atif`: every run of a data set as an Inspect eval log (one `.json`
 * per run) or as Harbor ATIF trajectories (one `.json` per episode, a folder per run).
 *
 * Scale: the numbers come from the analysis loader's compact data set (the same builders as
 * `report`); then the runs are read ONE AT A TIME with their text (logs/mergedRun.ts, as the viewer
 * reads them) and written episode by episode: an Inspect log is streamed sample by sample into a
 * temporary file that is renamed into place when whole (writeInspectLog), so memory is bounded by
 * the largest run's records and never by the data set or the output.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_B, DEFAULT_LEVEL, describeBootstrap, type BootstrapConfig, pointOnly } from "../../analysis/stats/bootstrap.js";
import { analyzeCurves, analyzeTraining } from "../../analysis/tables/curveTables.js";
import { loadDataset, type Dataset, type RunData } from "../../analysis/load/dataset.js";
import { judgingInputs, selfJudgingRow, type JudgingInputs } from "../../analysis/tables/judgingTables.js";
import { runVerdict } from "../../analysis/tables/runQuality.js";
import { isTraining } from "../../analysis/load/runs.js";
import { getGame } from "../../games/registry.js";
import { successThreshold } from "../../games/successThreshold.js";
import { readMergedRun, type MergedEpisode } from "../../logs/mergedRun.js";
import { viewOf } from "../../logs/schema.js";
import { rebuildEpisodeMessages, type RunLogData } from "../../runner/resume/replay.js";
import { getKitVersion } from "../../runner/settings/manifest.js";
import { AtomicLineFile, writeFileAtomic } from "../../util/atomicWrite.js";
import { replayInput } from "../viewer/prompts.js";
import { usageOf } from "../viewer/runFiles.js";
import { atifFileName, atifTrajectory, ATIF_VERSION } from "./atif.js";
import { evalScore, inspectHeader, inspectSample, shortId, type EpisodeInput } from "./inspectLog.js";

export type InteropFormat = "inspect" | "atif";

export interface InteropOptions {
  dataDirs: readonly string[];
  outDir: string;
  format: InteropFormat;
  /** Bootstrap resamples and seed of the results' intervals (default: report's 2000 and 0). */
  B?: number;
  seed?: number;
  onWarning?: (message: string) => void;
}

export interface InteropSummary {
  /** Files written (paths). */
  files: string[];
  runs: number;
  /** Episodes written (Inspect samples or ATIF trajectories). */
  episodes: number;
  warnings: string[];
}

/** A file name from a run id: its safe characters, plus a hash when any was replaced (names from outside are data). */
export function safeFileStem(runId: string): string {
  const safe = runId
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 120);
  return safe === runId ? safe : `${safe}-${shortId(runId).slice(0, 8)}`;
}

/**
 * Writes one Inspect log: the header's fields, then `"samples": [` and each sample as it is
 * produced, into a temporary beside `path` that is renamed into place only when whole. The one
 * function that writes an Inspect log file.
 */
export async function writeInspectLog(path: string, header: Record<string, unknown>, samples: AsyncIterable<Record<string, unknown>>): Promise<number> {
  const file = new AtomicLineFile(path);
  let n = 0;
  try {
    const head = JSON.stringify(header);
    file.write(`${head.slice(0, -1)},"samples":[`);
    for await (const s of samples) file.write(`${n++ === 0 ? "" : ","}${JSON.stringify(s)}`);
    file.write("]}");
    file.commit();
  } catch (e) {
    file.abort();
    throw e;
  }
  return n;
}

/** Writes one ATIF trajectory file whole (temporary, then rename). The one function that writes an ATIF file. */
export function writeAtifFile(path: string, trajectory: Record<string, unknown>): void {
  writeFileAtomic(path, `${JSON.stringify(trajectory, null, 2)}\n`, { durable: false });
}

/** The run's results: its curve metrics and (judged runs) self-judging metrics, with intervals. */
function runResults(ds: Dataset, run: RunData, cfg: BootstrapConfig, judging: JudgingInputs): { scores: Record<string, unknown>[]; metadata: Record<string, unknown> } {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const one: Dataset = { ...ds, runs: [run] };
  const scores: Record<string, unknown>[] = [];
  const metadata: Record<string, unknown> = {};
  if (isTraining(run)) {
    const row = analyzeTraining(one).rows[0];
    scores.push(
      evalScore(
        "verifier",
        (["y0", "y_final", "d_final", "avg", "max", "auc_plus"] as const).map((k) => [k, pointOnly(row ? row[k] : null)]),
        level,
        { about: "training metrics over epochs (checkpoint = epoch), as report's training table: no intervals" },
      ),
    );
  } else {
    const ca = analyzeCurves(one, cfg);
    const row = ca.rows[0];
    scores.push(
      evalScore(
        "verifier",
        [
          ["avg", row?.avg],
          ["max", row?.max],
          ["auc_plus", row?.auc_plus],
          ["naba", row?.naba],
          ["gain_vs_y0", row?.gain_vs_y0],
        ],
        level,
        {
          about: "curve metrics of the run's evaluation checkpoints, as report's main_results; metadata.lo/hi: the interval",
          intervals: describeBootstrap(cfg, "evaluation seeds of the run", ca.methods),
          n_checkpoints: row?.n_checkpoints ?? 0,
          n_seeds: row?.n_seeds ?? 0,
          y0: row?.y0 ?? null,
        },
      ),
    );
    metadata.curve = (ca.series[0]?.points ?? []).map((p) => ({ x: p.x, y: p.y, lo: p.lo, hi: p.hi, n_episodes: p.n_episodes }));
  }
  const jr = judging.runs.find((j) => j.run.run_id === run.run_id);
  if (jr) {
    const row = selfJudgingRow(run.game, run.model, [jr], judging.ranges.get(run.game) ?? null, cfg);
    scores.push(
      evalScore(
        "self_judge",
        [
          ["agree", row.agree],
          ["nmae", row.nmae],
          ["over", row.over],
          ["under", row.under],
        ],
        level,
        {
          about: "self-judging over the run's exploration steps, as report's self_judging (NMAE normalised by the game's reward range in this data set)",
          n_steps: row.n_steps,
          n_unscored: row.n_unscored,
          n_episodes: row.n_episodes,
        },
      ),
    );
  }
  metadata.bootstrap = { B: cfg.B, seed: cfg.seed, level };
  return { scores, metadata };
}

/** Each episode with its rebuilt prompts (or why not), one at a time. */
function* episodeInputs(merged: { episodes: MergedEpisode[] }, replay: RunLogData | string, model: string, game: string, ranges: JudgingInputs["ranges"]): Generator<EpisodeInput> {
  const threshold = successThreshold(game);
  for (const ep of merged.episodes) {
    const first = ep.steps[0];
    let prompts: EpisodeInput["prompts"];
    if (typeof replay === "string") prompts = replay;
    else if (first === undefined) prompts = "the episode has no steps";
    else {
      try {
        const at = { phase: first.phase, checkpoint: first.checkpoint, episode: first.episode, ...(first.phase === "eval" ? { view: viewOf(first) } : {}) };
        prompts = rebuildEpisodeMessages(replay, getGame(replay.manifest.game), at, ep.steps);
      } catch (e) {
        prompts = `the prompt could not be rebuilt: ${(e as Error).message}`;
      }
    }
    yield { record: ep.record, steps: ep.steps, prompts, model, successThreshold: threshold, rewardRange: ranges.get(game) ?? null };
  }
}

/** Writes every run of the data set in `opts.format` (see the module comment). */
export async function exportInterop(opts: InteropOptions): Promise<InteropSummary> {
  const warnings: string[] = [];
  const onWarning = (m: string): void => {
    warnings.push(m);
    opts.onWarning?.(m);
  };
  const ds = await loadDataset(opts.dataDirs, { onWarning });
  const cfg: BootstrapConfig = { B: opts.B ?? DEFAULT_B, seed: opts.seed ?? 0, level: DEFAULT_LEVEL };
  const judging = judgingInputs(ds);
  mkdirSync(opts.outDir, { recursive: true });
  const files: string[] = [];
  const stems = new Set<string>();
  let episodes = 0;
  const exporter = `s3gym ${getKitVersion()}`;
  for (const run of ds.runs) {
    let stem = safeFileStem(run.run_id);
    if (stems.has(stem)) stem = `${stem}-${shortId(`${run.run_id}|${run.sources.join("|")}`).slice(0, 8)}`;
    stems.add(stem);
    // Torn lines were reported by the loader above; the run's own read stays quiet.
    const merged = await readMergedRun(run.sources, { onWarning: () => undefined });
    const replay = replayInput(merged);
    const spec = merged.manifest?.config?.model?.spec ?? run.model;
    const inputs = (): Generator<EpisodeInput> => episodeInputs(merged, replay, spec, run.game, judging.ranges);
    if (opts.format === "atif") {
      const dir = join(opts.outDir, stem);
      if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
      const info = { run_id: run.run_id, game: run.game, pathway: run.pathway, kit_version: merged.manifest?.kit_version ?? "unknown" };
      for (const e of inputs()) {
        const head = e.record ?? e.steps[0];
        if (head === undefined) continue;
        const path = join(dir, atifFileName({ ...head, view: head.phase === "eval" ? viewOf(head) : undefined }));
        writeAtifFile(path, atifTrajectory(info, e));
        files.push(path);
        episodes++;
      }
      continue;
    }
    const verdict = runVerdict(run);
    const results = runResults(ds, run, cfg, judging);
    const header = inspectHeader({
      run_id: run.run_id,
      model: run.model,
      game: run.game,
      pathway: run.pathway,
      manifest: merged.manifest ?? run.manifest,
      status: verdict.status,
      flags: verdict.flags,
      episodes: merged.episodes.length,
      completedEpisodes: merged.episodes.filter((e) => e.record?.status === "ok").length,
      scores: results.scores,
      resultsMetadata: results.metadata,
      usage: usageOf(run.sources),
      exporter,
    });
    const path = join(opts.outDir, `${stem}.json`);
    episodes += await writeInspectLog(
      path,
      header,
      (async function* () {
        for (const e of inputs()) yield inspectSample(e);
      })(),
    );
    files.push(path);
  }
  return { files, runs: ds.runs.length, episodes, warnings };
}

export { ATIF_VERSION };
