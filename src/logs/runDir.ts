/**
 * The layout of a data directory, the one place it is spelled (logs.md, "Layout"):
 *
 *   <data>/runs/<run_id>/manifest.json        the run's identity, settings and status (RunManifest)
 *   <data>/runs/<run_id>/steps.jsonl          one StepRecord per step        (and episodes, checkpoints,
 *   <data>/runs/<run_id>/<kind>.jsonl         memory, calls: RUN_FILES of schema.ts)
 *   <data>/runs/<run_id>/.lock                the pid of the process running it (resume refuses a live one)
 *   <data>/dial/                              a data directory of its own: the judge dial's runs
 *                                             (reproduce; their own schedule, so never in <data>/runs)
 *   <data>/shard-<i>-of-<n>/                  a data directory of its own per shard (`--shard i/n|auto`),
 *                                             with plan.json (runner/shards/shardPlan.ts); docs/scale.md
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { RUN_FILES } from "./schema.js";

/** The folder of a data directory that holds one folder per run. */
export const RUNS_DIR = "runs";
export const MANIFEST_FILE = "manifest.json";
export const LOCK_FILE = ".lock";

export type RunFileKind = keyof typeof RUN_FILES;

/** The subdirectory of a data directory that holds the judge dial's runs (learner.md; `report` reads it). */
export const DIAL_SUBDIR = "dial";

/** `<data>/runs`. */
export function runsDir(dataDir: string): string {
  return join(dataDir, RUNS_DIR);
}

/** `<data>/runs/<run_id>`. */
export function runDir(dataDir: string, runId: string): string {
  return join(dataDir, RUNS_DIR, runId);
}

/** A run's JSONL file of the given kind (`steps` -> `<run>/steps.jsonl`). */
export function runFile(dir: string, kind: RunFileKind): string {
  return join(dir, RUN_FILES[kind].file);
}

/** `<run>/manifest.json`. */
export function manifestPath(dir: string): string {
  return join(dir, MANIFEST_FILE);
}

/** `<run>/.lock`. */
export function lockPath(dir: string): string {
  return join(dir, LOCK_FILE);
}

/** Whether `dir` is itself a run directory (it holds a manifest or a steps file). */
export function isRunDir(dir: string): boolean {
  return existsSync(runFile(dir, "steps")) || existsSync(manifestPath(dir));
}

/** The data directory of one shard under `--data DIR` (1-based, as `--shard i/n`): `shard-2-of-4`. */
export function shardDirName(shard: { index: number; count: number }): string {
  return `shard-${shard.index}-of-${shard.count}`;
}

/** Reads `shard-<i>-of-<n>` back; null for any other name. */
export function parseShardDirName(name: string): { index: number; count: number } | null {
  const m = /^shard-(\d{1,6})-of-(\d{1,6})$/.exec(name);
  if (!m) return null;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return index >= 1 && index <= count ? { index, count } : null;
}

/** The shard directories directly under `dir` (`shard-<i>-of-<n>`), sorted by n then i; empty when none. */
export function shardDirsUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && parseShardDirName(d.name) !== null)
    .map((d) => ({ name: d.name, s: parseShardDirName(d.name)! }))
    .sort((a, b) => a.s.count - b.s.count || a.s.index - b.s.index)
    .map((d) => join(dir, d.name));
}
