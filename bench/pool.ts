/**
 * Endpoint pool benchmark (scale.md, "One model, many endpoints"): a History matrix (7 games, one
 * run each) against `s3gym serve --prefix-cache --latency-ms 200` servers started here in their own
 * processes, in four modes, each on fresh servers (empty caches):
 *
 *   one          one server (`--base-url A`)
 *   affine       a pool of 4 (`--base-url A,B,C,D`): each run's calls go to one server
 *   round-robin  the same 4 servers behind a round-robin proxy started here (what a plain load
 *                balancer in front of replicas does): each call goes to the next server
 *   kill         as affine, and the server holding the most runs is killed (SIGKILL) part-way
 *
 * `--concurrency` is per endpoint, and stands for what one server serves at once (the fake has no
 * capacity of its own): one server and affine get it per server; the proxy gets 4x it (it spreads
 * the calls over 4 servers). It prints, per mode, the wall time, the calls, the share of prompt
 * tokens the servers' prefix caches served (calls.jsonl tokens_cached / tokens_in) and the calls per
 * server; for the kill: the steps compared with the affine run (none lost, none repeated) and the
 * moves calls.jsonl recorded. The run ids hash onto the servers by their host:port, so the bench
 * picks 4 consecutive ports (from --base-port) on which the 7 runs cover all 4 servers, as a real
 * matrix with many runs does.
 *
 *   npm run bench:pool
 *   npm run bench:pool -- --explore-episodes 9 --max-steps 16 --latency-ms 200 --concurrency 2
 *
 * It prints, it never asserts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { withExitCode } from "../src/cli/main.js";
import { runCommand } from "../src/cli/run/run.js";
import { readRunFile } from "../src/logs/reader.js";
import { CallRecord, StepRecord } from "../src/logs/schema.js";
import { rendezvousOrder } from "../src/models/pool/poolRouting.js";
import { buildMatrix } from "../src/runner/loop/schedule.js";
import { GAME_NAMES } from "../src/games/types.js";

const { values: v } = parseArgs({
  options: {
    "latency-ms": { type: "string", default: "200" },
    concurrency: { type: "string", default: "2" },
    "explore-episodes": { type: "string", default: "6" },
    "checkpoint-every": { type: "string", default: "3" },
    "eval-episodes": { type: "string", default: "1" },
    "max-steps": { type: "string", default: "10" },
    "base-port": { type: "string", default: "18400" },
    /** When the kill comes, as a share of the affine mode's wall time. */
    "kill-at": { type: "string", default: "0.4" },
    keep: { type: "boolean", default: false },
  },
});

const MODEL = "openai:s3gym-heuristic";
const GAMES = [...GAME_NAMES];
const SERVERS = 4;
const runIds = buildMatrix([MODEL], GAMES, ["history"], 0).map((e) => e.runId);
const idOf = (port: number) => `127.0.0.1:${port}/v1`;

/** Runs per server (first choice) for ports base..base+3. */
function spread(base: number): number[] {
  const ids = Array.from({ length: SERVERS }, (_, i) => idOf(base + i));
  const n = Array(SERVERS).fill(0) as number[];
  for (const r of runIds) n[rendezvousOrder(r, ids)[0]!]!++;
  return n;
}

let basePort = Number(v["base-port"]);
for (let tries = 0; tries < 200 && Math.min(...spread(basePort)) === 0; tries++) basePort += SERVERS;
const ports = Array.from({ length: SERVERS }, (_, i) => basePort + i);
const urls = ports.map((p) => `http://${idOf(p)}`);

interface Serve {
  url: string;
  child: ChildProcess;
}

/** `s3gym serve --port P --latency-ms L --prefix-cache` in its own process. */
function serve(port: number): Promise<Serve> {
  const main = new URL("../src/cli/main.ts", import.meta.url).pathname;
  const child = spawn(process.execPath, ["--import", "tsx", main, "serve", "--port", String(port), "--latency-ms", v["latency-ms"]!, "--prefix-cache"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const seen = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    };
    child.stdout!.on("data", seen);
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => reject(new Error(`serve on port ${port} exited with ${code}: ${out.trim()}`)));
  });
}

async function stop(servers: Serve[]): Promise<void> {
  await Promise.all(
    servers.map((s) =>
      s.child.exitCode !== null || s.child.signalCode !== null
        ? undefined
        : new Promise<void>((r) => {
            s.child.once("exit", () => r());
            s.child.kill("SIGTERM");
          }),
    ),
  );
}

/** A round-robin reverse proxy over `targets` (each request to the next target in turn). */
function roundRobinProxy(targets: string[]): Promise<{ url: string; server: Server }> {
  let n = 0;
  const server = createServer((req, res) => {
    const target = new URL(targets[n++ % targets.length]!);
    const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, server })));
}

const protocol = [
  "--explore-episodes",
  v["explore-episodes"]!,
  "--checkpoint-every",
  v["checkpoint-every"]!,
  "--eval-episodes",
  v["eval-episodes"]!,
  "--max-steps",
  v["max-steps"]!,
  "--no-cache",
  "--progress",
  "off",
];

interface ModeResult {
  mode: string;
  code: number;
  wallS: number;
  data: string;
}

async function play(mode: string, baseUrl: string, concurrency: number, during?: (startedMs: number) => void): Promise<ModeResult> {
  const data = mkdtempSync(join(tmpdir(), `s3pool-${mode}-`));
  const argv = ["--models", MODEL, "--games", GAMES.join(","), "--pathways", "history", "--data", data, "--base-url", baseUrl, "--concurrency", String(concurrency), ...protocol];
  const started = performance.now();
  during?.(started);
  const err: string[] = [];
  const io = { stdout: { write: () => true }, stderr: { write: (t: string) => (err.push(t), true) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { ...process.env, OPENAI_API_KEY: "bench" }, ...io }), io);
  if (code !== 0) process.stderr.write(`${mode}: exit ${code}\n${err.join("").slice(-2000)}\n`);
  return { mode, code, wallS: (performance.now() - started) / 1000, data };
}

function calls(data: string): CallRecord[] {
  return readdirSync(join(data, "runs")).flatMap((d) => readRunFile(join(data, "runs", d, "calls.jsonl"), CallRecord).lines.map((l) => l.value));
}

/** Every step as one line (run, phase, checkpoint, episode, step, reply), sorted. */
function steps(data: string): string[] {
  return readdirSync(join(data, "runs"))
    .flatMap((d) =>
      readRunFile(join(data, "runs", d, "steps.jsonl"), StepRecord).lines.map((l) => `${d}|${l.value.phase}|${l.value.checkpoint}|${l.value.episode}|${l.value.step}|${l.value.response}`),
    )
    .sort();
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function describe(r: ModeResult): { cached: number; calls: number } {
  const cs = calls(r.data);
  const tin = cs.reduce((n, c) => n + c.tokens_in, 0);
  const cached = cs.reduce((n, c) => n + (c.tokens_cached ?? 0), 0);
  const per = new Map<string, number>();
  for (const c of cs) if (c.endpoint) per.set(c.endpoint, (per.get(c.endpoint) ?? 0) + 1);
  const perText =
    per.size > 0
      ? `; calls per server ${[...per]
          .sort()
          .map(([h, n]) => `${h.split(":")[1]}:${n}`)
          .join(" ")}`
      : "";
  console.log(
    `${r.mode.padEnd(12)} exit ${r.code}, wall ${r.wallS.toFixed(1)} s, ${cs.length} calls, cached share ${pct(cached / Math.max(1, tin))} of ${(tin / 1e6).toFixed(2)}M prompt tokens${perText}`,
  );
  return { cached: cached / Math.max(1, tin), calls: cs.length };
}

const load0 = loadavg()[0]!;
const concurrency = Number(v.concurrency);
console.log(
  `matrix       ${runIds.length} History runs (${GAMES.join(", ")}), ${v["explore-episodes"]} exploration episodes, checkpoint every ${v["checkpoint-every"]}, ${v["eval-episodes"]} eval episodes, ${v["max-steps"]} max steps; servers: s3gym serve --prefix-cache --latency-ms ${v["latency-ms"]}; --concurrency ${concurrency} per server`,
);
console.log(`ports        ${ports.join(", ")}: runs per server (first choice) ${spread(basePort).join(", ")}`);

const results: Record<string, { cached: number; calls: number; wallS: number }> = {};
const dirs: string[] = [];

// one server
let servers = [await serve(ports[0]!)];
let r = await play("one", servers[0]!.url, concurrency);
await stop(servers);
results.one = { ...describe(r), wallS: r.wallS };
dirs.push(r.data);

// affine pool
servers = await Promise.all(ports.map(serve));
r = await play("affine", servers.map((s) => s.url).join(","), concurrency);
await stop(servers);
results.affine = { ...describe(r), wallS: r.wallS };
const affineData = r.data;
dirs.push(r.data);

// round-robin proxy
servers = await Promise.all(ports.map(serve));
const proxy = await roundRobinProxy(servers.map((s) => s.url));
r = await play("round-robin", proxy.url, concurrency * SERVERS);
await new Promise<void>((res) => proxy.server.close(() => res()));
proxy.server.closeAllConnections();
await stop(servers);
results["round-robin"] = { ...describe(r), wallS: r.wallS };
dirs.push(r.data);

// kill one server part-way
const victim = spread(basePort).indexOf(Math.max(...spread(basePort)));
servers = await Promise.all(ports.map(serve));
let killedAtS = 0;
r = await play("kill", servers.map((s) => s.url).join(","), concurrency, (started) => {
  setTimeout(
    () => {
      killedAtS = (performance.now() - started) / 1000;
      servers[victim]!.child.kill("SIGKILL");
    },
    Number(v["kill-at"]) * results.affine!.wallS * 1000,
  );
});
await stop(servers);
results.kill = { ...describe(r), wallS: r.wallS };
dirs.push(r.data);

const killedHost = new URL(urls[victim]!).host;
const cs = calls(r.data);
const moves = cs.filter((c) => c.moved_from !== undefined);
const movedRuns = new Set(moves.map((c) => c.run_id));
const after = steps(r.data);
const before = steps(affineData);
const same = after.length === before.length && after.every((s, i) => s === before[i]);
const failed = cs.filter((c) => c.error !== null).length;
console.log(
  `kill         server ${killedHost} (first choice of ${spread(basePort)[victim]} runs) killed at ${killedAtS.toFixed(1)} s; steps ${after.length} vs ${before.length} uninterrupted (${same ? "identical: none lost, none repeated" : "DIFFERENT"}); ${failed} calls failed in the end; ${moves.length} calls recorded a move (moved_from), ${movedRuns.size} runs moved`,
);
console.log(
  `summary      cached share: one ${pct(results.one!.cached)}, affine ${pct(results.affine!.cached)} (${((results.affine!.cached - results.one!.cached) * 100).toFixed(1)} points), round-robin ${pct(results["round-robin"]!.cached)}; wall: one ${results.one!.wallS.toFixed(1)} s, affine ${results.affine!.wallS.toFixed(1)} s (${(results.one!.wallS / results.affine!.wallS).toFixed(2)}x faster), round-robin ${results["round-robin"]!.wallS.toFixed(1)} s`,
);
console.log(`machine      ${cpus().length} cores, load average ${load0.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`);
if (!v.keep) for (const d of dirs) rmSync(d, { recursive: true, force: true });
else console.log(`logs kept in ${dirs.join(" ")}`);
