/**
 * Resume (architecture.md, "Resume"). The episode is the unit of work, keyed by
 * (phase, checkpoint, episode); an episode is done only when its episode record with status `ok` is
 * on disk, and the runner writes that record after the episode's steps (and fsyncs steps before
 * records: src/logs/runLogs.ts).
 *
 * When a run directory already holds logs, `loadForResume` makes them a clean prefix of a run:
 *   - a torn last line (kill -9 mid-write) is cut from every JSONL file;
 *   - steps.jsonl keeps only the steps of done episodes, each (episode, step) once: the steps of an
 *     interrupted episode, and of an episode that failed on infrastructure, are removed (those
 *     episodes are played again from their start);
 *   - episodes.jsonl keeps only `ok` records; checkpoints.jsonl only `ok` checkpoints (a failed
 *     checkpoint is evaluated again: its failure was the infrastructure's, not the model's);
 *   - an ok episode record stays only with its steps 0..n-1 all on disk (a cut steps.jsonl replays
 *     the episode); when exploration episode g is missing, later exploration episodes and the
 *     evaluation episodes of checkpoints >= g are replayed too (they were built on it);
 *   - an ok checkpoint record stays only while every evaluation episode it claims is done with the
 *     score it lists: a record never outlives its episodes (emptying episodes.jsonl used to leave
 *     "complete" runs with 24 of 40 steps); the checkpoint is evaluated again and recorded anew;
 *   - the pathway's own files (its definition's `files`) keep what its `keep` rule says, given the
 *     done exploration episodes (the rules, and which files, are the pathways' own: pathways/memory.ts
 *     keeps the contiguous memory versions, verified.ts its decisions while their experience is kept);
 *   - calls.jsonl is kept whole: it audits every call made (calls of a discarded attempt were made and
 *     paid for), so it may hold more calls than steps.jsonl holds steps.
 * A line that does not parse, or parses but breaks its schema (a write cut short on a full disk under
 * an older kit, a hand edit), is moved verbatim to `<file>.damaged` and named in `state.quarantined`:
 * its episode then counts as not done and is played again, instead of the run being refused.
 * A file is rewritten only when something is removed, atomically (temporary file, fsync, rename), so
 * a second kill during the rewrite leaves the old or the new file. After resume, steps.jsonl contains
 * each step of each done episode exactly once.
 */
import { appendFileSync, existsSync } from "node:fs";
import { CheckpointRecord, EpisodeRecord, RUN_FILES, RunManifest, StepRecord, viewOf, type ViewName } from "../../logs/schema.js";
import { getPathway, type AnyPathway } from "../../pathways/registry.js";
import type { OwnRecords } from "../../pathways/types.js";
import { viewCheckpointKey } from "../loop/views.js";
import { readJsonFile, readRunFile, type DamagedLine, type RunFileLine } from "../../logs/reader.js";
import { writeFileAtomic } from "../../util/atomicWrite.js";
import { refuseNewerSchemaFile } from "../../logs/schemaVersion.js";
import { manifestPath, runFile, type RunFileKind } from "../../logs/runDir.js";

/**
 * An episode's place in a run: (phase, view, checkpoint, episode), the unit of resume (not the
 * generator key: games/envelope.ts episodeKey). The `eval` view (or none) keeps the key it always had.
 */
export function episodeSlot(phase: string, checkpoint: number | null, episode: number, view?: ViewName): string {
  const p = view === undefined || view === "eval" ? phase : `${phase}:${view}`;
  return `${p}|${checkpoint ?? "-"}|${episode}`;
}

export interface ResumeState {
  /** Done (`ok`) episode records by episodeSlot. */
  episodes: Map<string, EpisodeRecord>;
  /** Steps of done exploration episodes, by episode number (to rebuild History blocks / memory inputs). */
  exploreSteps: Map<number, StepRecord[]>;
  /** Done (`ok`) checkpoint records of the `eval` view by checkpoint. */
  checkpoints: Map<number, CheckpointRecord>;
  /** Done (`ok`) checkpoint records of the other views (`id`, `replay`) by viewCheckpointKey(view, checkpoint). */
  viewCheckpoints: Map<string, CheckpointRecord>;
  /** The kept records of the pathway's own files (memory versions 0..k, verdicts, ...), as its definition's `keep` chose them. */
  own: OwnRecords;
  manifest: RunManifest | null;
  /** Lines removed per file (for the progress line and the tests). */
  removed: Record<string, number>;
  /** Damaged lines moved to `<file>.damaged`, one message each (file:line and why): said as warnings. */
  quarantined: string[];
}

type Line = RunFileLine<unknown>;

/** A run file's lines, its damaged lines kept apart (readRunFile's `damaged`). */
function readKeepingDamage<T>(path: string, schema: Parameters<typeof readRunFile>[1]): { lines: RunFileLine<T>[]; torn: boolean; damaged: DamagedLine[] } {
  const damaged: DamagedLine[] = [];
  const read = readRunFile(path, schema, { damaged: (d) => damaged.push(d) });
  return { lines: read.lines as RunFileLine<T>[], torn: read.torn, damaged };
}

/**
 * Rewrites `path` with `kept` lines when anything was removed; damaged lines go first, verbatim, to
 * `<path>.damaged` (appended: nothing is lost, and a second kill cannot lose them). Returns the
 * number of lines removed.
 */
function rewriteIfNeeded(path: string, read: { lines: Line[]; torn: boolean; damaged: DamagedLine[] }, kept: Line[], quarantined: string[]): number {
  const removed = read.lines.length - kept.length + read.damaged.length;
  if (removed === 0 && !read.torn) return 0;
  if (read.damaged.length > 0) {
    appendFileSync(`${path}.damaged`, read.damaged.map((d) => `${d.raw}\n`).join(""));
    for (const d of read.damaged) quarantined.push(`${path}:${d.line}: damaged line (${d.detail}) moved to ${path}.damaged; its episode is played again`);
  }
  writeFileAtomic(path, kept.map((l) => `${l.raw}\n`).join(""));
  return removed + (read.torn ? 1 : 0);
}

/**
 * Exploration episode x is built on episodes 1..x-1 (their History blocks or memory versions), and
 * checkpoint c's evaluation on episodes 1..c. When episode g is missing (lost from a damaged or
 * emptied log), what was built on it cannot be kept as if nothing happened: later exploration
 * episodes and the evaluation episodes of checkpoints >= g are dropped and played again (a response
 * cache makes that free when the endpoint is deterministic).
 */
function dropWhatFollowsALostExploration(episodes: Map<string, EpisodeRecord>): void {
  let g = 1;
  while (episodes.has(episodeSlot("explore", null, g))) g++;
  for (const [key, r] of [...episodes]) {
    if (r.phase === "explore" ? r.episode > g : (r.checkpoint ?? 0) >= g) episodes.delete(key);
  }
}

/** An ok checkpoint's scores are those of its evaluation episodes 0..n-1, each done. */
function claimsHold(r: CheckpointRecord, episodes: ReadonlyMap<string, EpisodeRecord>): boolean {
  if (r.scores.length === 0) return false;
  return r.scores.every((score, i) => episodes.get(episodeSlot("eval", r.checkpoint, i, viewOf(r)))?.score === score);
}

export interface ResumeOptions {
  /** The run's pathway (its definition says which files are its own and what of them to keep); default: the manifest's. */
  pathway?: string;
  /**
   * Whether evaluation depends on exploration (the protocol loop: default true). A training run's
   * checkpoints are epochs of fine-tuned models with no exploration episodes before them.
   */
  explorationFeedsEvaluation?: boolean;
}

export function loadForResume(dir: string, opts: ResumeOptions = {}): ResumeState {
  const state: ResumeState = {
    episodes: new Map(),
    exploreSteps: new Map(),
    checkpoints: new Map(),
    viewCheckpoints: new Map(),
    own: {},
    manifest: null,
    removed: {},
    quarantined: [],
  };
  const manifestFile = manifestPath(dir);
  // Before anything is rewritten: a newer kit's lines must not be quarantined or its manifest rewritten down.
  if (existsSync(manifestFile)) refuseNewerSchemaFile(manifestFile);
  if (existsSync(manifestFile)) state.manifest = readJsonFile(manifestFile, RunManifest);

  // Episodes first: they decide which steps survive.
  const epPath = runFile(dir, "episodes");
  const ep = readKeepingDamage<EpisodeRecord>(epPath, EpisodeRecord);
  const keptEp: Line[] = [];
  for (const l of ep.lines) {
    const r = l.value;
    const key = episodeSlot(r.phase, r.checkpoint, r.episode, viewOf(r));
    if (r.status !== "ok" || state.episodes.has(key)) continue;
    state.episodes.set(key, r);
    keptEp.push(l);
  }

  const stPath = runFile(dir, "steps");
  const st = readKeepingDamage<StepRecord>(stPath, StepRecord);
  const keptSt: Line[] = [];
  const seenSteps = new Set<string>();
  const stepCount = new Map<string, number>();
  const outOfRange = new Set<string>();
  for (const l of st.lines) {
    const r = l.value;
    const key = episodeSlot(r.phase, r.checkpoint, r.episode, viewOf(r));
    const stepKey = `${key}|${r.step}`;
    const record = state.episodes.get(key);
    if (!record || seenSteps.has(stepKey)) continue;
    seenSteps.add(stepKey);
    stepCount.set(key, (stepCount.get(key) ?? 0) + 1);
    if (r.step < 0 || r.step >= record.steps) outOfRange.add(key);
    keptSt.push(l);
  }
  // An ok record whose steps are not exactly 0..steps-1 on disk does not come from a killed process
  // (steps are written first); it can after a power loss (fsyncs are at most 2 s apart: runLogs.ts),
  // a cut or a hand-edited file, and then the episode is played again
  // rather than trusted: distinct indices, as many as the record says, none out of range.
  for (const [key, r] of [...state.episodes]) {
    if ((stepCount.get(key) ?? 0) !== r.steps || outOfRange.has(key)) state.episodes.delete(key);
  }
  if (opts.explorationFeedsEvaluation !== false) dropWhatFollowsALostExploration(state.episodes);

  const cpPath = runFile(dir, "checkpoints");
  const cp = readKeepingDamage<CheckpointRecord>(cpPath, CheckpointRecord);
  const keptCp: Line[] = [];
  for (const l of cp.lines) {
    const r = l.value;
    const view = viewOf(r);
    const has = view === "eval" ? state.checkpoints.has(r.checkpoint) : state.viewCheckpoints.has(viewCheckpointKey(view, r.checkpoint));
    if (r.status !== "ok" || has) continue;
    // A checkpoint record never outlives the episodes it claims: when one of them is gone, the
    // record goes too, the missing episodes are played again and a new record is written.
    if (!claimsHold(r, state.episodes)) continue;
    if (view === "eval") state.checkpoints.set(r.checkpoint, r);
    else state.viewCheckpoints.set(viewCheckpointKey(view, r.checkpoint), r);
    keptCp.push(l);
  }

  const keptEp2 = keptEp.filter((l) => {
    const r = l.value as EpisodeRecord;
    return state.episodes.has(episodeSlot(r.phase, r.checkpoint, r.episode, viewOf(r)));
  });
  const keptSt2 = keptSt.filter((l) => {
    const r = l.value as StepRecord;
    return state.episodes.has(episodeSlot(r.phase, r.checkpoint, r.episode, viewOf(r)));
  });
  for (const l of keptSt2) {
    const r = l.value as StepRecord;
    if (r.phase !== "explore") continue;
    const list = state.exploreSteps.get(r.episode) ?? [];
    list.push(r);
    state.exploreSteps.set(r.episode, list);
  }

  // The pathway's own files: what its definition keeps of them, given the done exploration episodes.
  const explored = (x: number): boolean => state.episodes.has(episodeSlot("explore", null, x));
  const own = ownFiles(dir, opts.pathway ?? state.manifest?.pathway);
  const kept = own.def?.keep?.(own.records, explored) ?? {};
  state.own = kept;

  // Steps before episodes: a kill between the two rewrites leaves records whose steps are all there.
  state.removed.steps = rewriteIfNeeded(stPath, st, keptSt2, state.quarantined);
  state.removed.episodes = rewriteIfNeeded(epPath, ep, keptEp2, state.quarantined);
  state.removed.checkpoints = rewriteIfNeeded(cpPath, cp, keptCp, state.quarantined);
  for (const [file, read] of own.reads) {
    const keep = new Set<unknown>(kept[file] ?? []);
    if (existsSync(read.path))
      state.removed[file] = rewriteIfNeeded(
        read.path,
        read,
        read.lines.filter((l) => keep.has(l.value)),
        state.quarantined,
      );
  }
  return state;
}

type OwnRead = ReturnType<typeof readKeepingDamage> & { path: string };

/** The pathway's definition and its own files as read (every declared file; absent ones are empty). */
function ownFiles(dir: string, pathway: string | undefined): { def: AnyPathway | null; records: OwnRecords; reads: Map<RunFileKind, OwnRead> } {
  const reads = new Map<RunFileKind, OwnRead>();
  if (pathway === undefined) return { def: null, records: {}, reads };
  const def = getPathway(pathway);
  const records: Partial<Record<RunFileKind, unknown[]>> = {};
  for (const file of def.files) {
    const path = runFile(dir, file);
    const read = readKeepingDamage<unknown>(path, RUN_FILES[file].schema);
    reads.set(file, { ...read, path });
    records[file] = read.lines.map((l) => l.value);
  }
  return { def, records: records as OwnRecords, reads };
}
