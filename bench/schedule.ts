/**
 * Scheduling benchmark: the full protocol (30 exploration episodes, a checkpoint of 3 evaluation
 * episodes every 3rd, 64 steps) for 7 games x History ICL, Summary Memory and the verified pathway
 * (per pathway: its critical path and its slowest run's wall time), with `openai:` pointed at the test server
 * (`s3gym serve --latency-ms 20`, started here). It prints the wall time, the critical-path bound
 * (the longest chain of dependent calls x latency: a run's exploration episodes are sequential, and
 * its last checkpoint's slowest evaluation episode follows them) and their ratio.
 * A ratio near 1 means the runner overlaps everything it may; the throughput bound
 * (calls x latency / concurrency) is printed too, since with a small --concurrency it dominates.
 *
 *   tsx bench/schedule.ts                                  # the full protocol, 7 games
 *   tsx bench/schedule.ts --games snake,trust --explore-episodes 6 --concurrency 32
 *   node --cpu-prof --cpu-prof-dir prof --import tsx bench/schedule.ts ...   # profiles both processes
 *   tsx bench/schedule.ts --usage-cache 0 ...   # the server re-tokenizes every prompt (as it used to)
 *
 * The breakdown explains the ratio: calls and tokens; the CPU of the server process (it parses
 * every request and counts its tokens to report usage) and of the runner process, each against the
 * wall time (each is one event loop, so max(server CPU, runner CPU) is a floor on the wall time
 * whatever the latency); and, for the slowest run, where a dependent call's time goes: the nominal
 * latency, the rest of what the client saw (HTTP, queueing in the server's event loop), and the gap
 * between calls (the runner's own work per step: prompt building, logging, waiting for its loop).
 * The machine's load average is printed too: other processes share the cores.
 *
 * The server runs in its own process (as `s3gym serve` would), so its CPU does not share the
 * runner's event loop; `--server inline` starts it in-process (no separate server figures).
 *
 * Prefix caching (endpoints.md): the server simulates an automatic prefix cache (`--cache-tokens`,
 * default 1,048,576 tokens, shared by every run as one vLLM server's would be; `--cache-tokens 0`
 * turns it off) and the bench prints, per pathway, the share of prompt tokens it served (from
 * calls.jsonl's tokens_cached) beside the physical limit (1 - new tokens per call / prompt tokens)
 * and a per-run cache's share, both from the same matrix replayed by `run --estimate`'s engine
 * (src/runner/monitor/estimate.ts; `--no-limit` skips that replay).
 *
 * It prints, it never asserts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { withExitCode } from "../src/cli/main.js";
import { runCommand } from "../src/cli/run/run.js";
import { startServer } from "../src/builtin/server.js";
import { readRunFile } from "../src/logs/reader.js";
import { CallRecord, CurriculumRecord, EpisodeRecord } from "../src/logs/schema.js";
import { getGame } from "../src/games/registry.js";
import { resolveGames } from "../src/cli/shared/sharedFlags.js";
import { DEFAULT_SETTINGS } from "../src/runner/loop/context.js";
import { estimateMatrix } from "../src/runner/monitor/estimate.js";
import { buildMatrix } from "../src/runner/loop/schedule.js";

const { values: v } = parseArgs({
  options: {
    games: { type: "string", default: "all" },
    pathways: { type: "string", default: "history,memory,verified" },
    "latency-ms": { type: "string", default: "20" },
    concurrency: { type: "string", default: "256" },
    "explore-episodes": { type: "string", default: "30" },
    "checkpoint-every": { type: "string", default: "3" },
    "eval-episodes": { type: "string", default: "3" },
    "max-steps": { type: "string", default: "64" },
    "context-tokens": { type: "string", default: "100000" },
    keep: { type: "boolean", default: false },
    server: { type: "string", default: "process" },
    /** The server's usage-count cache entries; 0 re-tokenizes every prompt in full (the old server). */
    "usage-cache": { type: "string" },
    /** The server's simulated prefix cache in tokens; 0 turns it off. */
    "cache-tokens": { type: "string", default: "1048576" },
    /** Skip the in-process replay that gives each pathway's physical limit. */
    "no-limit": { type: "boolean", default: false },
  },
});

/**
 * Longest chain of dependent calls in one run, from its logs. History and memory: exploration
 * episodes one after another (memory: a summary call after each). Verified: per batch a curriculum
 * call, then the batch's episodes side by side (its longest episode), then one verifier call per
 * episode, in order. Checkpoint c can start only once episode c is consolidated; its slowest
 * evaluation episode follows.
 */
function criticalChain(runDir: string): { pathway: string; chain: number; calls: number; wallS: number } {
  const eps = readRunFile(join(runDir, "episodes.jsonl"), EpisodeRecord).lines.map((l) => l.value);
  const explore = eps.filter((e) => e.phase === "explore").sort((a, b) => a.episode - b.episode);
  const pathway = eps[0]?.pathway ?? "?";
  const stepsOf = new Map(explore.map((e) => [e.episode, e.steps]));
  const verified = pathway === "verified";
  const batches = verified ? readRunFile(join(runDir, "curriculum.jsonl"), CurriculumRecord).lines.map((l) => l.value.choices.map((c) => c.episode)) : explore.map((e) => [e.episode]);
  const consolidation = pathway === "memory" || verified ? 1 : 0;
  const plan = verified ? 1 : 0;
  const doneAt = new Map<number, number>();
  let t = 0;
  for (const b of batches) {
    t += plan + Math.max(0, ...b.map((x) => stepsOf.get(x) ?? 0));
    for (const x of b) doneAt.set(x, (t += consolidation));
  }
  let chain = t;
  for (const c of new Set(eps.filter((e) => e.phase === "eval").map((e) => e.checkpoint!))) {
    const longestEval = Math.max(...eps.filter((e) => e.phase === "eval" && e.checkpoint === c).map((e) => e.steps));
    chain = Math.max(chain, (c === 0 ? 0 : (doneAt.get(c) ?? t)) + longestEval);
  }
  const calls = eps.reduce((n, e) => n + e.steps, 0) + explore.length * consolidation + batches.length * plan;
  const time = (iso: string) => Date.parse(iso);
  const wallS = eps.length === 0 ? 0 : (Math.max(...eps.map((e) => time(e.ended_at))) - Math.min(...eps.map((e) => time(e.started_at)))) / 1000;
  return { pathway, chain, calls, wallS };
}

interface ServerStats {
  requests: number;
  cpuUserS: number;
  cpuSystemS: number;
  /** Event-loop utilisation of the server process since it listened. */
  elu: number;
}

/**
 * `s3gym serve --port 0 --latency-ms L` in a child process (startServer, as serveCommand runs it);
 * resolves with its URL and a stopper that returns the child's CPU (since it listened: startup and
 * module loading excluded) and request figures.
 */
async function serveInChild(latencyMs: number, usageCacheEntries: number | undefined, cacheTokens: number): Promise<{ url: string; close: () => Promise<ServerStats | null> }> {
  const server = JSON.stringify(new URL("../src/builtin/server.ts", import.meta.url).href);
  const script = [
    `import { startServer } from ${server};`,
    `let requests = 0;`,
    `const s = await startServer({ latencyMs: ${latencyMs}, onRequest: () => requests++${usageCacheEntries === undefined ? "" : `, usageCacheEntries: ${usageCacheEntries}`}${cacheTokens > 0 ? `, prefixCacheTokens: ${cacheTokens}` : ""} });`,
    `const cpu0 = process.cpuUsage();`,
    `const elu0 = performance.eventLoopUtilization();`,
    `console.log("listening on " + s.url);`,
    `process.on("SIGTERM", async () => {`,
    `  await s.close();`,
    `  const cpu = process.cpuUsage(cpu0);`,
    `  console.log("stats " + JSON.stringify({ requests, cpuUserS: cpu.user / 1e6, cpuSystemS: cpu.system / 1e6, elu: performance.eventLoopUtilization(elu0).utilization }));`,
    `  process.exit(0);`,
    `});`,
  ].join("\n");
  // `node --cpu-prof --cpu-prof-dir D --import tsx bench/schedule.ts` profiles the server too.
  const prof = process.execArgv.filter((a, i, all) => a.startsWith("--cpu-prof") || all[i - 1] === "--cpu-prof-dir");
  const child = spawn(process.execPath, [...prof, "--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let buf = "";
  child.stdout.on("data", (d: Buffer) => (buf += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const m = /listening on (\S+)/.exec(buf);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        child.on("exit", () => {
          const m = /stats (\{.*\})/.exec(buf);
          resolve(m ? (JSON.parse(m[1]!) as ServerStats) : null);
        });
        child.kill("SIGTERM");
      }),
  };
}

/** Where the slowest run's time went, from its logs. */
function chainTiming(runDir: string): { elapsedS: number; exploreCalls: number; exploreLatencyS: number } {
  const eps = readRunFile(join(runDir, "episodes.jsonl"), EpisodeRecord).lines.map((l) => l.value);
  const calls = readRunFile(join(runDir, "calls.jsonl"), CallRecord).lines.map((l) => l.value);
  const explore = eps.filter((e) => e.phase === "explore");
  const t = (iso: string) => Date.parse(iso);
  const start = Math.min(...explore.map((e) => t(e.started_at)));
  const end = Math.max(...explore.map((e) => t(e.ended_at)));
  const chainCalls = calls.filter((c) => c.phase === "explore");
  return { elapsedS: (end - start) / 1000, exploreCalls: chainCalls.length, exploreLatencyS: chainCalls.reduce((n, c) => n + c.latency_ms, 0) / 1000 };
}

const latency = Number(v["latency-ms"]);
const loadBefore = loadavg()[0]!;
const usageCache = v["usage-cache"] === undefined ? undefined : Number(v["usage-cache"]);
const cacheTokens = Number(v["cache-tokens"]);
const server: { url: string; close: () => Promise<ServerStats | null | void> } =
  v.server === "inline"
    ? await startServer({ latencyMs: latency, ...(usageCache === undefined ? {} : { usageCacheEntries: usageCache }), ...(cacheTokens > 0 ? { prefixCacheTokens: cacheTokens } : {}) })
    : await serveInChild(latency, usageCache, cacheTokens);
const data = mkdtempSync(join(tmpdir(), "s3bench-"));
const argv = [
  "--models",
  "openai:s3gym-heuristic",
  "--games",
  v.games!,
  "--pathways",
  v.pathways!,
  "--data",
  data,
  "--explore-episodes",
  v["explore-episodes"]!,
  "--checkpoint-every",
  v["checkpoint-every"]!,
  "--eval-episodes",
  v["eval-episodes"]!,
  "--max-steps",
  v["max-steps"]!,
  "--context-tokens",
  v["context-tokens"]!,
  "--concurrency",
  v.concurrency!,
  "--base-url",
  server.url,
  "--no-cache",
  "--progress",
  "lines",
];
const cpu0 = process.cpuUsage();
const elu0 = performance.eventLoopUtilization();
const started = performance.now();
// Through main.ts's mapping: a bad flag prints its line and exits 2 as `s3gym run` would.
const code = await withExitCode("run", () => runCommand(argv, { env: { ...process.env, OPENAI_API_KEY: "bench" }, stdout: { write: () => true }, progressIntervalMs: 15_000 }));
const wallS = (performance.now() - started) / 1000;
const runnerCpu = process.cpuUsage(cpu0);
const runnerElu = performance.eventLoopUtilization(elu0).utilization;
const loadAfter = loadavg()[0]!;
const stats = (await server.close()) ?? null;

let chain = 0;
let calls = 0;
let chainRun = "";
let tokensIn = 0;
let tokensOut = 0;
let logged = 0;
/** Per pathway: prompt tokens and the tokens the server's prefix cache served. */
const served = new Map<string, { in: number; cached: number }>();
const runs = readdirSync(join(data, "runs"));
/** Per pathway: its longest chain and its slowest run's wall time (first episode start to last episode end). */
const byPathway = new Map<string, { runs: number; chain: number; wallS: number; calls: number }>();
for (const d of runs) {
  const c = criticalChain(join(data, "runs", d));
  if (c.chain > chain) chainRun = d;
  chain = Math.max(chain, c.chain);
  calls += c.calls;
  const p = byPathway.get(c.pathway) ?? { runs: 0, chain: 0, wallS: 0, calls: 0 };
  byPathway.set(c.pathway, { runs: p.runs + 1, chain: Math.max(p.chain, c.chain), wallS: Math.max(p.wallS, c.wallS), calls: p.calls + c.calls });
  for (const l of readRunFile(join(data, "runs", d, "calls.jsonl"), CallRecord).lines) {
    tokensIn += l.value.tokens_in;
    tokensOut += l.value.tokens_out;
    logged++;
    const sp = served.get(c.pathway) ?? { in: 0, cached: 0 };
    sp.in += l.value.tokens_in;
    sp.cached += l.value.tokens_cached ?? 0;
    served.set(c.pathway, sp);
  }
}
const criticalS = (chain * latency) / 1000;
const throughputS = (calls * latency) / 1000 / Number(v.concurrency);
const runnerCpuS = (runnerCpu.user + runnerCpu.system) / 1e6;
const serverCpuS = stats ? stats.cpuUserS + stats.cpuSystemS : null;
const f1 = (x: number) => x.toFixed(1);
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
console.log(`exit code            ${code}`);
console.log(
  `protocol             ${runs.length} runs (${v.games} x ${v.pathways}), ${v["explore-episodes"]} exploration episodes, checkpoint every ${v["checkpoint-every"]}, ${v["eval-episodes"]} eval episodes, ${v["max-steps"]} max steps, ${v["context-tokens"]} context tokens, concurrency ${v.concurrency}${usageCache === undefined ? "" : `, server usage cache ${usageCache}`}`,
);
console.log(`model calls          ${calls}`);
console.log(`wall time            ${f1(wallS)} s`);
console.log(`critical path        ${chain} dependent calls x ${latency} ms = ${f1(criticalS)} s`);
console.log(`wall / critical path ${(wallS / criticalS).toFixed(2)}`);
console.log(`throughput bound     ${calls} calls x ${latency} ms / ${v.concurrency} in flight = ${f1(throughputS)} s`);
console.log(`wall / max(bounds)   ${(wallS / Math.max(criticalS, throughputS)).toFixed(2)}`);
console.log(`--- per pathway (verified: broad batches of --broad-batch 5 run side by side, so its chain is shorter per episode)`);
for (const [p, b] of [...byPathway].sort()) {
  console.log(
    `${p.padEnd(20)} ${b.runs} runs, ${b.calls} calls; critical path ${b.chain} dependent calls x ${latency} ms = ${f1((b.chain * latency) / 1000)} s; slowest run's wall time ${f1(b.wallS)} s`,
  );
}
console.log(`--- breakdown`);
console.log(`tokens               ${(tokensIn / 1e6).toFixed(1)}M in (${Math.round(tokensIn / Math.max(1, logged))} per call), ${(tokensOut / 1e6).toFixed(2)}M out, over ${logged} logged calls`);
console.log(`latency (all calls)  ${calls} x ${latency} ms = ${f1((calls * latency) / 1000)} s of waiting, overlapped ${v.concurrency} wide`);
if (stats && serverCpuS !== null) {
  console.log(
    `server process       ${stats.requests} requests, CPU ${f1(serverCpuS)} s (${((serverCpuS * 1000) / Math.max(1, stats.requests)).toFixed(2)} ms per request) = ${pct(serverCpuS / wallS)} of wall; event loop busy ${pct(stats.elu)}`,
  );
} else console.log(`server process       inline (its CPU is counted in the runner's)`);
console.log(
  `runner process       CPU ${f1(runnerCpuS)} s (${((runnerCpuS * 1000) / Math.max(1, calls)).toFixed(2)} ms per call) = ${pct(runnerCpuS / wallS)} of wall; event loop busy ${pct(runnerElu)}`,
);
console.log(`single-loop floor    max(server CPU, runner CPU) = ${f1(Math.max(serverCpuS ?? 0, runnerCpuS))} s (each process is one event loop)`);
if (chainRun) {
  const t = chainTiming(join(data, "runs", chainRun));
  const per = (s: number) => ((s * 1000) / Math.max(1, t.exploreCalls)).toFixed(1);
  console.log(`slowest chain        ${chainRun}: ${t.exploreCalls} exploration calls in ${f1(t.elapsedS)} s = ${per(t.elapsedS)} ms per dependent call:`);
  console.log(
    `                       ${latency} ms latency + ${(Number(per(t.exploreLatencyS)) - latency).toFixed(1)} ms more seen by the client (limiter, HTTP, server queue) + ${per(t.elapsedS - t.exploreLatencyS)} ms between calls (runner work, its loop's queue)`,
  );
}
console.log(`--- prefix cache (16-token blocks; limit = 1 - new tokens per call / prompt tokens)`);
const limits = new Map<string, { in: number; cached: number; reusable: number }>();
if (!v["no-limit"]) {
  const settings = {
    ...DEFAULT_SETTINGS,
    exploreEpisodes: Number(v["explore-episodes"]),
    checkpointEvery: Number(v["checkpoint-every"]),
    evalEpisodes: Number(v["eval-episodes"]),
    maxSteps: Number(v["max-steps"]),
    contextTokens: Number(v["context-tokens"]),
  };
  const games = resolveGames(v.games).map((g) => g.name);
  const rows = await estimateMatrix({ entries: buildMatrix(["openai:s3gym-heuristic"], games, v.pathways!.split(","), 0), settingsOf: () => settings, game: getGame, priceOf: () => null });
  for (const r of rows) {
    const p = limits.get(r.pathway) ?? { in: 0, cached: 0, reusable: 0 };
    p.in += r.inputTokens;
    p.cached += r.cachedTokens;
    p.reusable += r.reusableTokens;
    limits.set(r.pathway, p);
  }
}
for (const [pathway, p] of served) {
  const l = limits.get(pathway);
  const limit = l ? `; replayed: per-run cache ${pct(l.cached / l.in)}, physical limit ${pct(l.reusable / l.in)}` : "";
  console.log(
    `${pathway.padEnd(21)}${cacheTokens > 0 ? `served ${pct(p.cached / Math.max(1, p.in))} of ${(p.in / 1e6).toFixed(1)}M prompt tokens (one shared cache of ${cacheTokens} tokens)` : "no server cache (--cache-tokens 0)"}${limit}`,
  );
}
console.log(`machine              ${cpus().length} cores, load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after (other processes share the cores)`);
if (!v.keep) rmSync(data, { recursive: true, force: true });
else console.log(`logs kept in ${data}`);
