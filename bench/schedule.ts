/**
 * Scheduling benchmark: the full protocol (30 exploration episodes, a checkpoint of 3 evaluation
 * episodes every 3rd, 64 steps) for 7 games x History ICL, with `openai:` pointed at the test server
 * (`s3gym serve --latency-ms 20`, started in-process here). It prints the wall time, the
 * critical-path bound (the longest chain of dependent calls x latency: a run's exploration episodes
 * are sequential, and its last checkpoint's slowest evaluation episode follows them) and their ratio.
 * A ratio near 1 means the runner overlaps everything it may; the throughput bound
 * (calls x latency / concurrency) is printed too, since with a small --concurrency it dominates.
 *
 *   tsx bench/schedule.ts                                  # the full protocol, 7 games
 *   tsx bench/schedule.ts --games snake,trust --explore-episodes 6 --concurrency 32
 *
 * The server runs in its own process (as `s3gym serve` would), so its CPU (it tokenizes every prompt
 * to report usage) does not share the runner's event loop; `--server inline` starts it in-process.
 *
 * It prints, it never asserts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runCommand } from "../src/cli/run.js";
import { startServer } from "../src/models/server.js";
import { readRunFile } from "../src/runner/resume.js";
import { EpisodeRecord } from "../src/logs/schema.js";

const { values: v } = parseArgs({
  options: {
    games: { type: "string", default: "all" },
    pathways: { type: "string", default: "history" },
    "latency-ms": { type: "string", default: "20" },
    concurrency: { type: "string", default: "256" },
    "explore-episodes": { type: "string", default: "30" },
    "checkpoint-every": { type: "string", default: "3" },
    "eval-episodes": { type: "string", default: "3" },
    "max-steps": { type: "string", default: "64" },
    "context-tokens": { type: "string", default: "100000" },
    keep: { type: "boolean", default: false },
    server: { type: "string", default: "process" },
  },
});

/** Longest chain of dependent calls in one run, from its logs. */
function criticalChain(runDir: string): { chain: number; calls: number } {
  const eps = readRunFile(join(runDir, "episodes.jsonl"), EpisodeRecord).lines.map((l) => l.value);
  const explore = eps.filter((e) => e.phase === "explore").sort((a, b) => a.episode - b.episode);
  const summaries = eps.some((e) => e.pathway === "memory") ? 1 : 0;
  let chain = 0;
  // Checkpoint c can start only after exploration episode c (and its consolidation).
  const before = (c: number) => explore.filter((e) => e.episode <= c).reduce((n, e) => n + e.steps + summaries, 0);
  chain = before(Number.MAX_SAFE_INTEGER);
  for (const c of new Set(eps.filter((e) => e.phase === "eval").map((e) => e.checkpoint!))) {
    const longestEval = Math.max(...eps.filter((e) => e.phase === "eval" && e.checkpoint === c).map((e) => e.steps));
    chain = Math.max(chain, before(c) + longestEval);
  }
  const calls = eps.reduce((n, e) => n + e.steps, 0) + explore.length * summaries;
  return { chain, calls };
}

/** `s3gym serve --port 0 --latency-ms L` in a child process; resolves with its URL and a stopper. */
async function serveInChild(latencyMs: number): Promise<{ url: string; close: () => Promise<void> }> {
  const script = `import { serveCommand } from ${JSON.stringify(new URL("../src/cli/serve.ts", import.meta.url).href)}; process.exit(await serveCommand(["--port", "0", "--latency-ms", "${latencyMs}"]));`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      const m = /listening on (\S+)/.exec(buf);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, close: () => new Promise((resolve) => (child.kill("SIGTERM"), child.on("exit", () => resolve()))) };
}

const latency = Number(v["latency-ms"]);
const server = v.server === "inline" ? await startServer({ latencyMs: latency }) : await serveInChild(latency);
const data = mkdtempSync(join(tmpdir(), "s3bench-"));
const argv = [
  "--models", "openai:s3gym-heuristic",
  "--games", v.games!,
  "--pathways", v.pathways!,
  "--data", data,
  "--explore-episodes", v["explore-episodes"]!,
  "--checkpoint-every", v["checkpoint-every"]!,
  "--eval-episodes", v["eval-episodes"]!,
  "--max-steps", v["max-steps"]!,
  "--context-tokens", v["context-tokens"]!,
  "--concurrency", v.concurrency!,
  "--base-url", server.url,
  "--no-cache",
  "--progress", "lines",
];
const started = performance.now();
const code = await runCommand(argv, { env: { ...process.env, OPENAI_API_KEY: "bench" }, stdout: { write: () => true }, progressIntervalMs: 15_000 });
const wallS = (performance.now() - started) / 1000;
await server.close();

let chain = 0;
let calls = 0;
for (const d of readdirSync(join(data, "runs"))) {
  const c = criticalChain(join(data, "runs", d));
  chain = Math.max(chain, c.chain);
  calls += c.calls;
}
const criticalS = (chain * latency) / 1000;
const throughputS = (calls * latency) / 1000 / Number(v.concurrency);
console.log(`exit code            ${code}`);
console.log(`model calls          ${calls}`);
console.log(`wall time            ${wallS.toFixed(1)} s`);
console.log(`critical path        ${chain} dependent calls x ${latency} ms = ${criticalS.toFixed(1)} s`);
console.log(`wall / critical path ${(wallS / criticalS).toFixed(2)}`);
console.log(`throughput bound     ${calls} calls x ${latency} ms / ${v.concurrency} in flight = ${throughputS.toFixed(1)} s`);
console.log(`wall / max(bounds)   ${(wallS / Math.max(criticalS, throughputS)).toFixed(2)}`);
if (!v.keep) rmSync(data, { recursive: true, force: true });
else console.log(`logs kept in ${data}`);
