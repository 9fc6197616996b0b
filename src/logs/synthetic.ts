/**
 * Writes a synthetic data set (logs/syntheticRuns.ts makes the records) as run directories, through
 * the kit's log writer: every JSONL line through `JsonlWriter` and the manifest through
 * `writeJsonAtomic` (logs/writer.ts), so each record is validated against its schema (logs/schema.ts)
 * exactly as a real run's are, and a generator change that breaks the data contract fails here with
 * the field named instead of reaching a test as a puzzling number.
 *
 * It lives in logs/, the lowest layer that holds what it needs (the schemas, the run-directory layout
 * and the writer); the analysis above it only reads what it wrote.
 *
 * Not durable (no fsync): the data set is recomputed whole from its seed, so a power loss costs a
 * rerun, and a sync per file made a paper-scale set several seconds slower.
 *
 * The one line that does not go through the writer is the torn last line (`tornLastLine`): half a
 * record without its newline, which the writer exists never to write. It is appended raw, after
 * every writer is closed (a writer opened on that file later cuts it: `repairTornTail`).
 */
import { appendFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { manifestPath, runDir, runFile, type RunFileKind } from "./runDir.js";
import { RUN_FILES, RunManifest } from "./schema.js";
import { syntheticRuns, SYNTHETIC_TORN_LINE, type SyntheticOptions, type SyntheticRun } from "./syntheticRuns.js";
import { JsonlWriter, writeJsonAtomic } from "./writer.js";

/** What was written. */
export interface SyntheticSummary {
  dir: string;
  runs: number;
  trainingRuns: number;
  steps: number;
  episodes: number;
  checkpoints: number;
  /** Bytes of the files written (manifests, the three JSONL files of every run, the torn line). */
  bytes: number;
  runIds: string[];
}

/** The run's JSONL files, in the order they are written. */
const FILES = ["steps", "episodes", "checkpoints"] as const satisfies readonly RunFileKind[];

/** Writes one kind of a run's records to a fresh file (a rerun into the same folder replaces it); returns its size. */
function writeRecords(path: string, kind: (typeof FILES)[number], records: readonly SyntheticRun[(typeof FILES)[number]][number][]): number {
  rmSync(path, { force: true });
  const writer = JsonlWriter.open(path, RUN_FILES[kind].schema, { durable: false });
  try {
    for (const r of records) writer.append(r);
  } finally {
    writer.close();
  }
  return statSync(path).size;
}

/**
 * Writes a synthetic data set under `dir` (`<dir>/runs/<run_id>/...`) and returns what it wrote.
 * Deterministic: the same options give byte-identical files.
 */
export async function writeSyntheticData(dir: string, opts: SyntheticOptions = {}): Promise<SyntheticSummary> {
  const summary: SyntheticSummary = { dir, runs: 0, trainingRuns: 0, steps: 0, episodes: 0, checkpoints: 0, bytes: 0, runIds: [] };
  for (const run of syntheticRuns(opts)) {
    const runDirectory = runDir(dir, run.run_id);
    mkdirSync(runDirectory, { recursive: true });
    const manifest = manifestPath(runDirectory);
    writeJsonAtomic(manifest, RunManifest, run.manifest, { durable: false });
    summary.bytes += statSync(manifest).size;
    for (const kind of FILES) summary.bytes += writeRecords(runFile(runDirectory, kind), kind, run[kind]);
    summary.steps += run.steps.length;
    summary.episodes += run.episodes.length;
    summary.checkpoints += run.checkpoints.length;
    summary.runIds.push(run.run_id);
    summary.runs++;
    if (run.training) summary.trainingRuns++;
  }
  if (opts.tornLastLine && summary.runIds.length > 0) {
    // Deliberately past the writer (see the header): the reader's torn-line contract is what it tests.
    appendFileSync(runFile(runDir(dir, summary.runIds[0] as string), "steps"), SYNTHETIC_TORN_LINE);
    summary.bytes += Buffer.byteLength(SYNTHETIC_TORN_LINE);
  }
  return summary;
}
