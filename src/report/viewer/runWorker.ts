/**
 * A worker thread of the viewer's build (runPool.ts): writes the runs it is handed, one at a time,
 * with the same writeRun as the build's own thread, and answers with what it found or the error.
 */
import { parentPort } from "node:worker_threads";
import { writeRun, type RunJob } from "./runFiles.js";
import { failure, type WorkerReply } from "./runPool.js";

const port = parentPort;
if (port === null) throw new Error("runWorker runs only as a worker thread of the viewer's build (runPool.ts)");

port.on("message", (m: { job: RunJob; chunkDir: string }) => {
  writeRun(m.job, m.chunkDir).then(
    (result) => port.postMessage({ result } satisfies WorkerReply),
    (e: unknown) => port.postMessage(failure(e) satisfies WorkerReply),
  );
});
