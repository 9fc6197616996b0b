/**
 * Resume (architecture.md, "Resume"). The episode is the unit of work, keyed by
 * (phase, checkpoint, episode); an episode is done only when its episode record with status `ok` is
 * on disk, and the runner writes that record after fsyncing the episode's steps.
 *
 * When a run directory already holds logs, `loadForResume` makes them a clean prefix of a run:
 *   - a torn last line (kill -9 mid-write) is cut from every JSONL file;
 *   - steps.jsonl keeps only the steps of done episodes, each (episode, step) once: the steps of an
 *     interrupted episode, and of an episode that failed on infrastructure, are removed (those
 *     episodes are played again from their start);
 *   - episodes.jsonl keeps only `ok` records; checkpoints.jsonl only `ok` checkpoints (a failed
 *     checkpoint is evaluated again: its failure was the infrastructure's, not the model's);
 *   - memory.jsonl keeps the contiguous versions 0..k of done exploration episodes;
 *   - calls.jsonl is kept whole: it audits every call made (calls of a discarded attempt were made and
 *     paid for), so it may hold more calls than steps.jsonl holds steps.
 * A file is rewritten only when something is removed, atomically (temporary file, fsync, rename), so
 * a second kill during the rewrite leaves the old or the new file. After resume, steps.jsonl contains
 * each step of each done episode exactly once.
 */
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { CheckpointRecord, EpisodeRecord, MemoryRecord, RunManifest, StepRecord } from "../logs/schema.js";
import { readJsonFile, readRunFile, type RunFileLine } from "../logs/reader.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { lockPath, manifestPath, runFile } from "../logs/runDir.js";

/** An episode's place in a run: (phase, checkpoint, episode), the unit of resume (not the generator key: games/envelope.ts episodeKey). */
export function episodeSlot(phase: string, checkpoint: number | null, episode: number): string {
  return `${phase}|${checkpoint ?? "-"}|${episode}`;
}

export interface ResumeState {
  /** Done (`ok`) episode records by episodeSlot. */
  episodes: Map<string, EpisodeRecord>;
  /** Steps of done exploration episodes, by episode number (to rebuild History blocks / memory inputs). */
  exploreSteps: Map<number, StepRecord[]>;
  /** Done (`ok`) checkpoint records by checkpoint. */
  checkpoints: Map<number, CheckpointRecord>;
  /** Memory versions 0..k, in order. */
  memory: MemoryRecord[];
  manifest: RunManifest | null;
  /** Lines removed per file (for the progress line and the tests). */
  removed: Record<string, number>;
}

type Line = RunFileLine<unknown>;

/** Rewrites `path` with `kept` lines when anything was removed. Returns the number of lines removed. */
function rewriteIfNeeded(path: string, all: number, kept: Line[], torn: boolean): number {
  const removed = all - kept.length;
  if (removed === 0 && !torn) return 0;
  writeFileAtomic(path, kept.map((l) => `${l.raw}\n`).join(""));
  return removed + (torn ? 1 : 0);
}

export function loadForResume(dir: string): ResumeState {
  const state: ResumeState = {
    episodes: new Map(),
    exploreSteps: new Map(),
    checkpoints: new Map(),
    memory: [],
    manifest: null,
    removed: {},
  };
  const manifestFile = manifestPath(dir);
  if (existsSync(manifestFile)) state.manifest = readJsonFile(manifestFile, RunManifest);

  // Episodes first: they decide which steps survive.
  const epPath = runFile(dir, "episodes");
  const ep = readRunFile(epPath, EpisodeRecord);
  const keptEp: Line[] = [];
  for (const l of ep.lines) {
    const r = l.value;
    const key = episodeSlot(r.phase, r.checkpoint, r.episode);
    if (r.status !== "ok" || state.episodes.has(key)) continue;
    state.episodes.set(key, r);
    keptEp.push(l);
  }

  const stPath = runFile(dir, "steps");
  const st = readRunFile(stPath, StepRecord);
  const keptSt: Line[] = [];
  const seenSteps = new Set<string>();
  const stepCount = new Map<string, number>();
  for (const l of st.lines) {
    const r = l.value;
    const key = episodeSlot(r.phase, r.checkpoint, r.episode);
    const stepKey = `${key}|${r.step}`;
    if (!state.episodes.has(key) || seenSteps.has(stepKey)) continue;
    seenSteps.add(stepKey);
    stepCount.set(key, (stepCount.get(key) ?? 0) + 1);
    keptSt.push(l);
    if (r.phase === "explore") {
      const list = state.exploreSteps.get(r.episode) ?? [];
      list.push(r);
      state.exploreSteps.set(r.episode, list);
    }
  }
  // An ok record whose steps are not all on disk cannot come from this writer (steps are fsynced
  // first); if it happens anyway (a hand-edited file), play the episode again rather than trust it.
  for (const [key, r] of [...state.episodes]) {
    if ((stepCount.get(key) ?? 0) !== r.steps) {
      state.episodes.delete(key);
      if (r.phase === "explore") state.exploreSteps.delete(r.episode);
    }
  }
  const keptEp2 = keptEp.filter((l) => {
    const r = l.value as EpisodeRecord;
    return state.episodes.has(episodeSlot(r.phase, r.checkpoint, r.episode));
  });
  const keptSt2 = keptSt.filter((l) => {
    const r = l.value as StepRecord;
    return state.episodes.has(episodeSlot(r.phase, r.checkpoint, r.episode));
  });

  const cpPath = runFile(dir, "checkpoints");
  const cp = readRunFile(cpPath, CheckpointRecord);
  const keptCp: Line[] = [];
  for (const l of cp.lines) {
    const r = l.value;
    if (r.status !== "ok" || state.checkpoints.has(r.checkpoint)) continue;
    state.checkpoints.set(r.checkpoint, r);
    keptCp.push(l);
  }

  const memPath = runFile(dir, "memory");
  const mem = readRunFile(memPath, MemoryRecord);
  const keptMem: Line[] = [];
  for (const l of mem.lines) {
    const r = l.value;
    const expected = state.memory.length;
    if (r.after_episode !== expected) continue;
    if (expected > 0 && !state.episodes.has(episodeSlot("explore", null, expected))) continue;
    state.memory.push(r);
    keptMem.push(l);
  }

  // Steps before episodes: a kill between the two rewrites leaves records whose steps are all there.
  state.removed.steps = rewriteIfNeeded(stPath, st.lines.length, keptSt2, st.torn);
  state.removed.episodes = rewriteIfNeeded(epPath, ep.lines.length, keptEp2, ep.torn);
  state.removed.checkpoints = rewriteIfNeeded(cpPath, cp.lines.length, keptCp, cp.torn);
  if (existsSync(memPath)) state.removed.memory = rewriteIfNeeded(memPath, mem.lines.length, keptMem, mem.torn);
  return state;
}

// ---------------------------------------------------------------------------------------------
// A lock per run directory: two processes appending to the same run would interleave episodes.

const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes `<dir>/.lock` (holding our pid). A lock left by a dead process (kill -9) is taken over; a
 * lock held by a live process is an error naming it.
 */
export function acquireRunLock(dir: string): () => void {
  const path = lockPath(dir);
  if (held.has(path)) throw new Error(`run directory ${dir} is already being run by this process`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx" });
      held.add(path);
      return () => {
        held.delete(path);
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const pid = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new Error(`run directory ${dir} is in use by process ${pid} (remove ${path} if that is wrong)`);
      }
      unlinkSync(path); // stale: its owner died
    }
  }
  throw new Error(`cannot lock ${dir}`);
}
