/**
 * One run's full records for the viewer, merged over the run directories that hold it (shards, or
 * copies of the same run). Unlike the analysis loader, which keeps a few numbers per step, the viewer
 * needs the text, so it reads ONE run at a time: memory is bounded by the largest run, never by the
 * data set.
 *
 * Merge rules are the analysis loader's (src/analysis/load/dataset.ts), so the viewer shows the records the
 * report counted: the last record of a key wins, an `ok` checkpoint or episode is never replaced by
 * a `failed` one, and an episode's steps come from the directory of its winning record (another copy
 * may hold an interrupted attempt). Steps with no episode record (an episode cut by a crash) are kept
 * as an unfinished episode, from the last directory that has them.
 *
 * `readDeduped` is the same for ad hoc reading: every run of some data directories, one at a time,
 * duplicates resolved (a resumed run leaves the steps of its interrupted episode twice: the last wins).
 */
import { discoverRuns, LogFormatError, readJsonFile, readRunRecords, type ReadOptions } from "./reader.js";
import { RunManifest as RunManifestSchema } from "./schema.js";
import { manifestPath } from "./runDir.js";
import { existsSync } from "node:fs";
import { episodeViewOf, viewOf as schemaViewOf, type CheckpointRecord, type EpisodeRecord, type MemoryRecord, type RunManifest, type StepRecord, type ViewName } from "./schema.js";

/**
 * The view an episode belongs to: schema.ts episodeViewOf, under the name and loose type the run viewer
 * imports (src/report/viewer/build.ts); every record read here was validated, so `view` is a ViewName.
 */
export function viewOf(r: { phase: string; view?: unknown }): string {
  return episodeViewOf(r as { phase: string; view?: ViewName });
}

/** The natural key of an episode: phase, checkpoint, view, episode. */
export function episodeKeyOf(r: { phase: string; checkpoint: number | null; episode: number; view?: ViewName | undefined }): string {
  return `${r.phase}|${r.checkpoint ?? "-"}|${episodeViewOf(r)}|${r.episode}`;
}

/** One episode of a merged run: its record (null when the episode never finished) and its steps. */
export interface MergedEpisode {
  key: string;
  record: EpisodeRecord | null;
  /** In step order, one per step index (the last line of a repeated step wins). */
  steps: StepRecord[];
}

export interface MergedRun {
  manifest: RunManifest | null;
  /**
   * Why the run's manifest.json was not used (it does not validate: a JSON array, a wrong type), or
   * null. A bad manifest costs only the manifest: the run's records are read as usual, as the
   * analysis loader does.
   */
  manifestProblem?: string | null;
  checkpoints: CheckpointRecord[];
  /** Exploration episodes by number, then evaluation episodes by (checkpoint, view, episode). */
  episodes: MergedEpisode[];
  /** Memory versions by after_episode (memory pathway only). */
  memory: MemoryRecord[];
}

function better<T extends { status: string }>(prev: T | undefined, next: T): boolean {
  return !(prev?.status === "ok" && next.status !== "ok");
}

function compareEpisodes(a: MergedEpisode, b: MergedEpisode): number {
  const ra = a.record ?? a.steps[0];
  const rb = b.record ?? b.steps[0];
  if (!ra || !rb) return 0;
  if (ra.phase !== rb.phase) return ra.phase === "explore" ? -1 : 1;
  const va = episodeViewOf(ra);
  const vb = episodeViewOf(rb);
  return (ra.checkpoint ?? -1) - (rb.checkpoint ?? -1) || (va < vb ? -1 : va > vb ? 1 : 0) || ra.episode - rb.episode;
}

/** Reads the run directories `sources` (in order) and merges their records (see the module comment). */
export async function readMergedRun(sources: readonly string[], opts: ReadOptions = {}): Promise<MergedRun> {
  let manifest: RunManifest | null = null;
  let manifestProblem: string | null = null;
  const checkpoints = new Map<number, CheckpointRecord>();
  const records = new Map<string, { record: EpisodeRecord; src: number }>();
  const stepsBySrc = new Map<string, Map<number, Map<number, StepRecord>>>();
  const memory = new Map<number, MemoryRecord>();
  for (let src = 0; src < sources.length; src++) {
    const dir = sources[src] as string;
    // The records without the strict manifest, which is read on its own so that it cannot cost the run.
    const r = await readRunRecords(dir, { ...opts, strictManifest: false });
    if (existsSync(manifestPath(dir))) {
      try {
        manifest = readJsonFile(manifestPath(dir), RunManifestSchema);
        manifestProblem = null;
      } catch (e) {
        if (!(e instanceof LogFormatError)) throw e;
        manifestProblem = `manifest.json not used: ${e.message}`;
      }
    }
    // The run page's curve is the protocol's `eval` view; the id and replay views' records (views.md) have their own tables.
    for (const c of r.checkpoints) if (schemaViewOf(c) === "eval" && better(checkpoints.get(c.checkpoint), c)) checkpoints.set(c.checkpoint, c);
    for (const e of r.episodes) {
      const key = episodeKeyOf(e);
      if (better(records.get(key)?.record, e)) records.set(key, { record: e, src });
    }
    for (const s of r.steps) {
      const key = episodeKeyOf(s);
      let bySrc = stepsBySrc.get(key);
      if (!bySrc) stepsBySrc.set(key, (bySrc = new Map()));
      let steps = bySrc.get(src);
      if (!steps) bySrc.set(src, (steps = new Map()));
      steps.set(s.step, s);
    }
    for (const m of r.memory) memory.set(m.after_episode, m);
  }
  const episodes: MergedEpisode[] = [];
  for (const key of new Set([...records.keys(), ...stepsBySrc.keys()])) {
    const rec = records.get(key);
    const bySrc = stepsBySrc.get(key);
    const src = rec ? rec.src : Math.max(...(bySrc?.keys() ?? []));
    const steps = [...(bySrc?.get(src)?.values() ?? [])].sort((a, b) => a.step - b.step);
    episodes.push({ key, record: rec?.record ?? null, steps });
  }
  episodes.sort(compareEpisodes);
  return {
    manifest,
    manifestProblem,
    checkpoints: [...checkpoints.values()].sort((a, b) => a.checkpoint - b.checkpoint),
    episodes,
    memory: [...memory.values()].sort((a, b) => a.after_episode - b.after_episode),
  };
}

/** One run of `readDeduped`: its id, the directories that hold it, and its records with duplicates resolved. */
export interface DedupedRun extends MergedRun {
  runId: string;
  sources: string[];
}

/**
 * Every run of `dataDirs` (shards and copies merged by run directory name), ONE AT A TIME, with each
 * record once: steps by (phase, checkpoint, view, episode, step), the last line winning; episodes and
 * checkpoints by their key, an `ok` one never replaced by a `failed` one. Memory holds one run.
 *
 *   for await (const run of readDeduped(["data"])) for (const ep of run.episodes) ep.steps.length;
 */
export async function* readDeduped(dataDirs: readonly string[], opts: ReadOptions = {}): AsyncGenerator<DedupedRun> {
  const byName = new Map<string, string[]>();
  for (const loc of discoverRuns(dataDirs)) byName.set(loc.name, [...(byName.get(loc.name) ?? []), loc.runDir]);
  for (const [runId, sources] of [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    yield { runId, sources, ...(await readMergedRun(sources, opts)) };
  }
}
