/**
 * `s3gym run` against a pool of in-process `s3gym serve` servers (one model, several base URLs):
 * calls route by run, a server that goes away mid-run moves its runs with no step lost or repeated,
 * the move is in calls.jsonl, the preflight names a bad endpoint, and the key is nowhere.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { runDir } from "../../src/logs/runDir.js";
import { clearSecrets } from "../../src/models/secrets.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { lines } from "./helpers.js";

const KEY = "sk-POOL-SENTINEL-9f8e7d6c5b4a3210";
const MODEL = "openai:s3gym-heuristic";
const GAMES = "snake";
const PATHWAYS = ["none", "history", "memory"];
const small = [
  "--explore-episodes",
  "3",
  "--checkpoint-every",
  "3",
  "--eval-episodes",
  "1",
  "--max-steps",
  "8",
  "--progress",
  "off",
  "--max-new-tokens",
  "256",
  "--context-tokens",
  "16000",
  "--no-cache",
];

let servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
  servers = [];
  clearSecrets();
});

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: KEY }, ...io, modelContext: { sleep: async () => {} } }), io);
  return { code, out: out.join(""), err: err.join("") };
}

function everyFile(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? everyFile(join(dir, n)) : [join(dir, n)]));
}

interface Call {
  run_id: string;
  phase: string | null;
  checkpoint: number | null;
  episode: number | null;
  step: number | null;
  purpose: string;
  error: string | null;
  endpoint?: string;
  moved_from?: string[];
}
interface Step {
  phase: string;
  checkpoint: number | null;
  episode: number;
  step: number;
  response: string;
  action: string | null;
}

/** Every step of every run, as one sorted list of (run, phase, checkpoint, episode, step, response). */
function stepsOf(data: string): string[] {
  const out: string[] = [];
  for (const e of buildMatrix([MODEL], [GAMES], PATHWAYS, 0)) {
    for (const s of lines<Step>(runDir(data, e.runId), "steps.jsonl")) out.push(`${e.runId}|${s.phase}|${s.checkpoint}|${s.episode}|${s.step}|${s.response}`);
  }
  return out.sort();
}

function callsOf(data: string): Call[] {
  return buildMatrix([MODEL], [GAMES], PATHWAYS, 0).flatMap((e) => lines<Call>(runDir(data, e.runId), "calls.jsonl"));
}

describe("an endpoint pool", () => {
  it("routes each run to one endpoint; killing one server mid-run moves its runs, loses and repeats no step, and records the move", async () => {
    // The reference: the same matrix against one server.
    const one = await startServer({});
    servers.push(one);
    const refData = mkdtempSync(join(tmpdir(), "s3pool-ref-"));
    const ref = await run(["--models", MODEL, "--games", GAMES, "--pathways", PATHWAYS.join(","), "--data", refData, "--base-url", one.url, ...small]);
    expect(ref.code, ref.err).toBe(0);

    // Three servers; after 40 chat requests in all, the busiest one (it holds at least one run) goes away.
    const counts = [0, 0, 0];
    let total = 0;
    let killed: number | null = null;
    const pool: RunningServer[] = [];
    for (let i = 0; i < 3; i++) {
      pool.push(
        await startServer({
          latencyMs: 5,
          onRequest: () => {
            counts[i]!++;
            if (++total === 40) {
              killed = counts.indexOf(Math.max(...counts));
              void pool[killed]!.close();
            }
          },
        }),
      );
    }
    servers.push(...pool);
    const data = mkdtempSync(join(tmpdir(), "s3pool-"));
    const r = await run(["--models", MODEL, "--games", GAMES, "--pathways", PATHWAYS.join(","), "--data", data, "--base-url", pool.map((s) => s.url).join(","), ...small]);
    expect(r.code, r.err).toBe(0);
    expect(killed).not.toBeNull();
    const killedHost = new URL(pool[killed!]!.url).host;

    // No step lost, none repeated: the same steps with the same replies as against one server.
    const steps = stepsOf(data);
    expect(steps.length).toBeGreaterThan(30);
    expect(steps).toEqual(stepsOf(refData));

    const calls = callsOf(data);
    // Every call says where it went; none failed in the end.
    expect(calls.every((c) => typeof c.endpoint === "string" && c.error === null)).toBe(true);
    // Each run's calls went to one endpoint until it moved, then to the new one only.
    const moves = calls.filter((c) => c.moved_from !== undefined);
    expect(moves.length).toBeGreaterThan(0);
    for (const m of moves) {
      expect(m.moved_from).toContain(killedHost);
      expect(m.endpoint).not.toBe(killedHost);
    }
    for (const e of buildMatrix([MODEL], [GAMES], PATHWAYS, 0)) {
      const hosts = calls.filter((c) => c.run_id === e.runId).map((c) => c.endpoint);
      const distinct = [...new Set(hosts)];
      if (moves.some((m) => m.run_id === e.runId)) {
        expect(distinct.length).toBe(2);
        expect(distinct[0]).toBe(killedHost);
      } else expect(distinct.length).toBe(1);
    }
    // Nothing went to the killed server after the move (the server counts: no request after its close).
    expect(counts[killed!]).toBeLessThanOrEqual(40);

    // The key is in no file of the data directory and in neither stream.
    for (const f of everyFile(data)) expect(readFileSync(f, "utf8").includes(KEY), f).toBe(false);
    expect(r.out + r.err).not.toContain(KEY);
    // The manifest names the pool's hosts, never a URL's path or a key.
    const manifest = JSON.parse(readFileSync(join(runDir(data, buildMatrix([MODEL], [GAMES], PATHWAYS, 0)[0]!.runId), "manifest.json"), "utf8")) as { endpoint_host: string };
    expect(manifest.endpoint_host).toBe(pool.map((s) => new URL(s.url).host).join(","));
  }, 120_000);

  it("with one endpoint, calls.jsonl is as it was: no endpoint or moved_from field", async () => {
    const one = await startServer({});
    servers.push(one);
    const data = mkdtempSync(join(tmpdir(), "s3pool-one-"));
    const r = await run(["--models", MODEL, "--games", GAMES, "--pathways", "none", "--data", data, "--base-url", one.url, ...small]);
    expect(r.code, r.err).toBe(0);
    const calls = lines<Record<string, unknown>>(runDir(data, buildMatrix([MODEL], [GAMES], ["none"], 0)[0]!.runId), "calls.jsonl");
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) {
      expect(c).not.toHaveProperty("endpoint");
      expect(c).not.toHaveProperty("moved_from");
    }
  }, 60_000);

  it("URL credentials of pool members reach no file and no stream: calls.jsonl and the manifest record hosts only", async () => {
    const PASS = "PoolUrlSecret0123456789abcdef";
    const a = await startServer({});
    const b = await startServer({});
    servers.push(a, b);
    const withPass = (u: string) => u.replace("http://", `http://user:${PASS}@`);
    const data = mkdtempSync(join(tmpdir(), "s3pool-cred-"));
    const r = await run(["--models", MODEL, "--games", GAMES, "--pathways", "none,history", "--data", data, "--base-url", `${withPass(a.url)},${withPass(b.url)}`, ...small]);
    expect(r.code, r.err).toBe(0);
    for (const f of everyFile(data)) {
      const text = readFileSync(f, "utf8");
      expect(text.includes(PASS), f).toBe(false);
      expect(text.includes(KEY), f).toBe(false);
    }
    expect(r.out + r.err).not.toContain(PASS);
    const hosts = new Set(buildMatrix([MODEL], [GAMES], ["none", "history"], 0).flatMap((e) => lines<Call>(runDir(data, e.runId), "calls.jsonl").map((c) => c.endpoint)));
    for (const h of hosts) expect([new URL(a.url).host, new URL(b.url).host]).toContain(h);
  }, 60_000);

  it("the preflight checks every endpoint of the pool and names the one that fails; nothing runs", async () => {
    const good = await startServer({});
    servers.push(good);
    // A port that was listening and is not any more: connections are refused.
    const gone = await startServer({});
    const goneUrl = gone.url;
    await gone.close();
    const data = mkdtempSync(join(tmpdir(), "s3pool-pre-"));
    const r = await run(["--models", MODEL, "--games", GAMES, "--pathways", "none", "--data", data, "--base-url", good.url, "--base-url", goneUrl, ...small]);
    expect(r.code).not.toBe(0);
    const goneHost = new URL(goneUrl).host;
    expect(r.err).toContain(`at ${goneHost}: cannot reach`);
    expect(r.err).toContain(`${goneHost} is one of the 2 endpoints of the pool`);
    // The good endpoint is not blamed.
    expect(r.err).not.toContain(`at ${new URL(good.url).host}: cannot reach`);
    expect(r.err).not.toContain(KEY);
    expect(readdirSync(data).includes("runs") ? readdirSync(join(data, "runs")).length : 0).toBe(0);
  }, 60_000);

  it("bad pool lists are refused naming the field and the URL at fault", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3pool-bad-"));
    const dup = await run(["--models", MODEL, "--games", GAMES, "--pathways", "none", "--data", data, "--base-url", "http://127.0.0.1:9/v1,http://127.0.0.1:9/other", ...small]);
    expect(dup.code).toBe(2);
    expect(dup.err).toMatch(/--base-url \/ OPENAI_BASE_URL: URLs 1 and 2 are both on 127\.0\.0\.1:9/);
    const bad = await run(["--models", MODEL, "--games", GAMES, "--pathways", "none", "--data", data, "--base-url", "http://127.0.0.1:9/v1,ftp://x", ...small]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/\(URL 2 of 2\): 'ftp:\/\/x' is not an http\(s\) URL/);
  });
});
