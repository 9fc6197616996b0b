/**
 * Writes the runs' files (runFiles.ts writeRun) in this thread or in worker threads.
 *
 * Workers use the second core of a small machine (the runs are independent: each writes its own
 * three files) and cap memory: a worker's heap limit (`heapMb`, V8's old generation) makes V8
 * collect instead of growing the heap, which it otherwise does long before it must (the full
 * reproduction peaked at 833 MB in one thread with a live set far smaller). The biggest runs go
 * first, so no worker is left with a long run at the end. Output is the same as in one thread.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { LogFormatError } from "../../logs/reader.js";
import { writeRun, type RunJob, type RunResult } from "./runFiles.js";

/** A failure, as a worker sends it: a log error keeps its fields, so the command reports it as in one thread. */
export interface WorkerFailure {
  error: string;
  log: { file: string; line: number; field: string; detail: string } | null;
}

/** A worker's answer to one job. */
export type WorkerReply = { result: RunResult } | WorkerFailure;

/** `e` as a worker sends it back. */
export function failure(e: unknown): WorkerFailure {
  const log = e instanceof LogFormatError ? { file: e.file, line: e.line, field: e.field, detail: e.detail } : null;
  return { error: e instanceof Error ? e.message : String(e), log };
}

/** The error a worker's failure stands for (`where` prefixed to all but a log error, which names its file). */
export function fromFailure(f: WorkerFailure, where: string): Error {
  return f.log ? new LogFormatError(f.log.file, f.log.line, f.log.field, f.log.detail) : new Error(`${where}${f.error}`);
}

/**
 * Whether this runs from the TypeScript source (vitest, tsx): a worker thread cannot load it there
 * (Node resolves the source's `.js` imports to files that do not exist), so the build stays in one thread.
 */
export function fromSource(): boolean {
  return import.meta.url.endsWith(".ts");
}

/** The built module `name` beside this one. */
export function siblingUrl(name: string): URL {
  return new URL(`./${name}.js`, import.meta.url);
}

/** Bytes of a run's step logs (all its sources): the order in which workers take runs, biggest first. */
function runBytes(job: RunJob): number {
  let n = 0;
  for (const d of job.sources) {
    try {
      n += statSync(join(d, "steps.jsonl")).size;
    } catch {
      // No steps file: the run is small; writeRun says what is missing.
    }
  }
  return n;
}

/**
 * Every job's result, in job order. `workers` <= 1 writes in this thread (so does a build run from
 * the source: fromSource); otherwise that many worker threads (at most one per job), each with
 * old-generation heap `heapMb` (null: V8's default).
 */
export async function runJobs(jobs: readonly RunJob[], chunkDir: string, workers: number, heapMb: number | null, onDone: () => void): Promise<RunResult[]> {
  const results: RunResult[] = new Array(jobs.length);
  if (workers <= 1 || jobs.length <= 1 || fromSource()) {
    for (const job of jobs) {
      results[job.i] = await writeRun(job, chunkDir);
      onDone();
    }
    return results;
  }
  const queue = [...jobs]
    .map((job) => ({ job, bytes: runBytes(job) }))
    .sort((a, b) => b.bytes - a.bytes || a.job.i - b.job.i)
    .map((q) => q.job);
  const pool: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: Math.min(workers, jobs.length) }, () => {
        const w = new Worker(siblingUrl("runWorker"), heapMb === null ? {} : { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
        pool.push(w);
        return new Promise<void>((resolve, reject) => {
          let current: RunJob | undefined;
          const next = (): void => {
            current = queue.shift();
            if (current === undefined) resolve();
            else w.postMessage({ job: current, chunkDir });
          };
          w.on("message", (m: WorkerReply) => {
            if ("error" in m) {
              reject(fromFailure(m, current ? `run ${current.run_id}: ` : ""));
              return;
            }
            results[m.result.i] = m.result;
            onDone();
            next();
          });
          w.on("error", (e: Error & { code?: string }) => {
            const run = current ? `run ${current.run_id}` : "a run";
            reject(
              e.code === "ERR_WORKER_OUT_OF_MEMORY"
                ? new Error(`writing ${run} needed more than the ${heapMb} MB heap of a viewer worker: rerun with a larger --heap-mb (or --workers 1)`)
                : new Error(`writing ${run} failed in a viewer worker: ${e.message}`),
            );
          });
          w.on("exit", (code) => {
            if (current !== undefined && results[current.i] === undefined) reject(new Error(`a viewer worker stopped (exit ${code}) while writing run ${current.run_id}`));
          });
          next();
        });
      }),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  return results;
}
