/**
 * The viewer's whole build in a worker thread (cappedBuild.ts), so that its heap is capped: the
 * options come as workerData, progress and the summary (or the failure) go back as messages.
 */
import { parentPort, workerData } from "node:worker_threads";
import { buildViewer, type ViewerOptions } from "./build.js";
import { failure } from "./runPool.js";
import type { BuildMessage } from "./cappedBuild.js";

const port = parentPort;
if (port === null) throw new Error("buildWorker runs only as a worker thread of s3gym view (cappedBuild.ts)");
const post = (m: BuildMessage): void => port.postMessage(m);

buildViewer({ ...(workerData as ViewerOptions), onRun: (done, total) => post({ run: [done, total] }) }).then(
  (summary) => post({ summary }),
  (e: unknown) => post(failure(e)),
);
