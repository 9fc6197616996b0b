/**
 * One run's blocked event loop cannot time out another run's call (issue 12, item 1): the deadline
 * counts only time in which the answer could have been read.
 */
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { LAG_TOLERANCE_MS, startDeadline } from "../../src/models/deadline.js";
import { OpenAIModel } from "../../src/models/openaiModel.js";
import { SENTINEL_KEY, request } from "./helpers.js";

/** Blocks the event loop, as a quadratic parse of a huge reply did. */
function blockFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("startDeadline", () => {
  it("aborts after its time when the loop is responsive", async () => {
    const d = startDeadline(60);
    await sleep(30);
    expect(d.signal.aborted).toBe(false);
    await sleep(120);
    expect(d.signal.aborted).toBe(true);
    expect(d.extendedMs()).toBe(0);
  });

  it("is moved on by the time the loop was blocked, then still aborts", async () => {
    const d = startDeadline(50);
    blockFor(50 + LAG_TOLERANCE_MS + 400);
    await sleep(20);
    expect(d.signal.aborted).toBe(false);
    expect(d.extendedMs()).toBeGreaterThan(LAG_TOLERANCE_MS);
    await sleep(d.extendedMs() + 200);
    expect(d.signal.aborted).toBe(true);
  });

  it("refuses a delay Node would clamp to 1 ms", () => {
    expect(() => startDeadline(9_999_999_999)).toThrow(/outside 1\.\.2147483647/);
  });
});

// A chat-completions server on another thread: the main thread's blocked loop does not stop it.
const SERVER = `
const { createServer } = require("node:http");
const { parentPort } = require("node:worker_threads");
const s = createServer((req, res) => {
  req.resume();
  req.on("end", () => setTimeout(() => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ choices: [{ message: { content: "Answer: UP\\nScore: 1" }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 3 } }));
  }, 20));
});
s.listen(0, "127.0.0.1", () => parentPort.postMessage(s.address().port));
parentPort.on("message", () => s.close(() => process.exit(0)));
`;

let worker: Worker | null = null;
afterEach(async () => {
  worker?.postMessage("stop");
  await worker?.terminate();
  worker = null;
});

describe("OpenAIModel under a blocked event loop", () => {
  it("an answer that arrived while the loop was blocked is read, not timed out", async () => {
    worker = new Worker(SERVER, { eval: true });
    const port = await new Promise<number>((r) => worker!.once("message", r));
    const m = new OpenAIModel({ spec: "openai:m", model: "m", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: SENTINEL_KEY, timeoutMs: 300 });
    const call = m.complete(request());
    await sleep(5); // the request is on the wire
    blockFor(1500); // another run's pathological reply, parsed on this thread
    const r = await call;
    expect(r.text).toBe("Answer: UP\nScore: 1");
  });
});
