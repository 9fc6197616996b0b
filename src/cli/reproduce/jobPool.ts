/**
 * A fixed number of slots working through a list of jobs in order: the reproduction's runs phase
 * (`s3gym reproduce`) keeps both cores busy with it instead of running the matrix, the views, the
 * verified runs and the training loop one after another (where one long job left a core idle).
 *
 * After a job fails no new job is started (the ones already running finish, so nothing is killed in
 * the middle of a write); the jobs never started are reported, and rerunning resumes them.
 */

export interface PoolJob {
  /** A short name for the job's lines ("matrix 3/8", "training loop"). */
  name: string;
}

export interface JobResult<J extends PoolJob> {
  job: J;
  /** The process exit code (0 = done). */
  code: number;
  ms: number;
  /** Why the job could not run at all (its runner threw, e.g. the process could not be spawned). */
  error?: string;
}

export interface PoolOutcome<J extends PoolJob> {
  /** The jobs that ran, in the order they ended. */
  done: JobResult<J>[];
  /** Jobs not started because an earlier one failed. */
  skipped: J[];
}

/**
 * Runs `jobs` in list order on `slots` slots (a slot takes the next job as soon as its job ends).
 * `run` performs one job and resolves with its exit code; `clock` gives milliseconds (for the
 * per-job wall time only); `onEnd` is told of every job as it ends.
 */
export async function runPool<J extends PoolJob>(
  jobs: readonly J[],
  slots: number,
  run: (job: J) => Promise<number>,
  opts: { clock: () => number; onEnd?: (r: JobResult<J>) => void },
): Promise<PoolOutcome<J>> {
  if (!Number.isInteger(slots) || slots < 1) throw new Error(`job pool: slots must be a positive integer, got ${slots}`);
  const done: JobResult<J>[] = [];
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < jobs.length) {
      const job = jobs[next++]!;
      const t = opts.clock();
      let code: number;
      let error: string | undefined;
      try {
        code = await run(job);
      } catch (e) {
        // A job that could not even start (spawn error) fails like a process exiting 1, with its reason.
        code = 1;
        error = e instanceof Error ? e.message : String(e);
      }
      const r: JobResult<J> = { job, code, ms: opts.clock() - t, ...(error !== undefined ? { error } : {}) };
      done.push(r);
      if (code !== 0) failed = true;
      opts.onEnd?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.min(slots, Math.max(1, jobs.length)) }, worker));
  return { done, skipped: jobs.slice(next) };
}
