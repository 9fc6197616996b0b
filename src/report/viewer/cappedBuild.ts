/**
 * `s3gym view`'s build with its memory capped: buildViewer runs in a worker thread whose V8 heap
 * (old generation) is limited to `heapMb`, and so is each run worker it starts (runPool.ts). V8
 * otherwise grows its heap long before it must (the full reproduction: 705-833 MB peak in one thread,
 * for a live set of one run plus the data set's compact columns); under the limit it collects
 * instead, at no cost in time measured (docs/viewer.md, "Scale"). The command's own thread only
 * waits and prints progress.
 */
import { Worker } from "node:worker_threads";
import { buildViewer, type ViewerOptions, type ViewerSummary } from "./build.js";
import { fromFailure, fromSource, siblingUrl, type WorkerFailure } from "./runPool.js";

/** What the build worker sends: progress, the summary at the end, or the failure. */
export type BuildMessage = { run: [done: number, total: number] } | { summary: ViewerSummary } | WorkerFailure;

/**
 * buildViewer in a worker thread with old-generation heap `heapMb` (its run workers get the same
 * limit). Run from the TypeScript source (tests), where a worker cannot load the modules, it builds
 * in this thread, uncapped.
 */
export function buildViewerCapped(opts: Omit<ViewerOptions, "onWarning"> & { heapMb: number }): Promise<ViewerSummary> {
  if (fromSource()) return buildViewer(opts);
  const { onRun, ...data } = opts;
  return new Promise((resolve, reject) => {
    const w = new Worker(siblingUrl("buildWorker"), { workerData: data, resourceLimits: { maxOldGenerationSizeMb: opts.heapMb } });
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      f();
      void w.terminate();
    };
    w.on("message", (m: BuildMessage) => {
      if ("run" in m) onRun?.(m.run[0], m.run[1]);
      else if ("summary" in m) settle(() => resolve(m.summary));
      else settle(() => reject(fromFailure(m, "")));
    });
    w.on("error", (e: Error & { code?: string }) =>
      settle(() =>
        reject(
          e.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new Error(`the viewer's build needed more than its ${opts.heapMb} MB heap (a viewer worker's limit): rerun with a larger --heap-mb`)
            : new Error(`the viewer's build failed in its worker thread: ${e.message}`),
        ),
      ),
    );
    w.on("exit", (code) => settle(() => reject(new Error(`the viewer's build worker stopped (exit ${code}) before it finished`))));
  });
}
