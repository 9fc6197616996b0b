/**
 * Red team, issue 44 item 14: an endpoint of a pool that answers 429 forever, or garbage.
 *
 * Before: only refused connections, 5xx, timeouts and resets counted against an endpoint's health,
 * so an endpoint that rate-limited forever or answered bodies that are not replies was never marked
 * down: the runs hashed to it failed (named) while the healthy endpoints sat idle.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type FaultKind, type RunningServer } from "../../src/builtin/server.js";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { runDir } from "../../src/logs/runDir.js";
import { clearSecrets } from "../../src/models/secrets.js";
import { rendezvousOrder } from "../../src/models/pool/poolRouting.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";

const MODEL = "openai:s3gym-heuristic";
const GAME = "snake";
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
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => out.push(t) } };
  const code = await withExitCode("run", () => runCommand(argv, { env: { OPENAI_API_KEY: "EMPTY" }, ...io, modelContext: { sleep: async () => {} } }), io);
  return { code, text: out.join("") };
}

const lines = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

/** Every step of every run as `run|phase|checkpoint|episode|step|response`, sorted. */
function stepsOf(data: string): string[] {
  return buildMatrix([MODEL], [GAME], PATHWAYS, 0)
    .flatMap((e) =>
      lines<{ phase: string; checkpoint: number | null; episode: number; step: number; response: string }>(join(runDir(data, e.runId), "steps.jsonl")).map(
        (s) => `${e.runId}|${s.phase}|${s.checkpoint}|${s.episode}|${s.step}|${s.response}`,
      ),
    )
    .sort();
}

describe("a pool endpoint that answers 429 forever, or garbage", () => {
  it.each<[FaultKind]>([["429"], ["garbage"]])(
    "an endpoint answering %s from its 3rd chat on is marked down; its runs move; every run completes with the steps of a healthy run",
    async (fault) => {
      const ref = await startServer({});
      servers.push(ref);
      const refData = mkdtempSync(join(tmpdir(), "s3-soft-ref-"));
      expect((await run(["--models", MODEL, "--games", GAME, "--pathways", PATHWAYS.join(","), "--data", refData, "--base-url", ref.url, ...small])).code).toBe(0);

      // Two servers; the one more runs rank first (rendezvous hashing of the ports drawn) turns bad:
      // the preflight's probe gets an answer, every chat after that is the fault.
      let badIndex = -1;
      const pool: RunningServer[] = [];
      for (let i = 0; i < 2; i++) pool.push(await startServer({ faultFor: (n) => (i === badIndex && n >= 2 ? fault : null), retryAfterS: 0 }));
      servers.push(...pool);
      const urls = pool.map((s) => s.url);
      const ids = urls.map((u) => `${new URL(u).host}${new URL(u).pathname}`);
      const entries = buildMatrix([MODEL], [GAME], PATHWAYS, 0);
      const firstOn = (i: number) => entries.filter((e) => rendezvousOrder(e.runId, ids)[0] === i);
      badIndex = firstOn(0).length >= firstOn(1).length ? 0 : 1;
      const onBad = firstOn(badIndex);
      expect(onBad.length).toBeGreaterThanOrEqual(2);
      const badHost = new URL(urls[badIndex]!).host;

      const data = mkdtempSync(join(tmpdir(), "s3-soft-"));
      const r = await run(["--models", MODEL, "--games", GAME, "--pathways", PATHWAYS.join(","), "--data", data, "--base-url", urls.join(","), ...small]);
      expect(r.code, r.text).toBe(0);
      for (const e of entries) expect((JSON.parse(readFileSync(join(runDir(data, e.runId), "manifest.json"), "utf8")) as { status: string }).status).toBe("complete");
      // Nothing lost, nothing repeated.
      expect(stepsOf(data)).toEqual(stepsOf(refData));
      // The runs hashed to the bad endpoint left it, and no call of theirs ended there in error.
      for (const e of onBad) {
        const calls = lines<{ endpoint?: string; moved_from?: string[]; error: string | null }>(join(runDir(data, e.runId), "calls.jsonl"));
        expect(calls.some((c) => c.moved_from?.includes(badHost))).toBe(true);
        expect(calls.every((c) => c.error === null)).toBe(true);
      }
    },
    120_000,
  );
});
