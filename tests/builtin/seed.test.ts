/**
 * The random built-in draws from the call's seed (games.md, built-in policies): in process from the
 * call identity, over HTTP from the request's `seed`, which the runner sends on every request. So
 * trust, whose opening observation is the same for every seed, still gets a different transcript per
 * seed, and `s3gym serve` answers a seeded request exactly as the in-process model does.
 */
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildStepMessages } from "../../src/agent/stepPrompt.js";
import { BuiltinModel } from "../../src/builtin/builtinModel.js";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { runCommand } from "../../src/cli/run/run.js";
import { GAMES } from "../../src/games/registry.js";
import { readRunRecords } from "../../src/logs/reader.js";
import { callSeed } from "../../src/models/callSeed.js";
import type { CallIdentity, CompletionRequest } from "../../src/models/types.js";

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const identity = (episode: number, step: number): CallIdentity => ({ runId: "r", purpose: "step", phase: "eval", checkpoint: 0, episode, step, sample: 0 });

function trustRequest(id: CallIdentity, seed?: number): CompletionRequest {
  const game = GAMES.trust;
  const messages = buildStepMessages({ rules: game.rules("eval"), experience: "", turns: [], observation: game.observe(game.reset(3, "eval")), rewardVisibility: "hidden" });
  return { messages, sampling: seed === undefined ? {} : { seed }, identity: id };
}

async function answer(req: CompletionRequest): Promise<string> {
  return (await new BuiltinModel("random").complete(req)).text;
}

describe("call seeds", () => {
  it("are 31-bit, stable for one identity and different for others", () => {
    const a = callSeed(identity(0, 0));
    expect(callSeed(identity(0, 0))).toBe(a);
    expect(Number.isInteger(a) && a >= 0 && a < 2 ** 31).toBe(true);
    const seen = new Set<number>();
    for (let e = 0; e < 20; e++) for (let s = 0; s < 20; s++) seen.add(callSeed(identity(e, s)));
    expect(seen.size).toBe(400);
    expect(callSeed({ ...identity(0, 0), sample: 1 })).not.toBe(a);
    expect(callSeed({ ...identity(0, 0), runId: "other" })).not.toBe(a);
  });

  it("in process, the same opening observation gets different random moves under different identities", async () => {
    const moves = new Set<string>();
    for (let e = 0; e < 16; e++) moves.add(await answer(trustRequest(identity(e, 0))));
    expect(moves.size).toBe(2); // both collaborate and cheat occur across 16 calls
    // The request's seed decides when present; the identity is the fallback (send_seed: false).
    for (let e = 0; e < 8; e++) expect(await answer(trustRequest(identity(e, 0), callSeed(identity(e, 0))))).toBe(await answer(trustRequest(identity(e, 0))));
  });

  it("over HTTP the request's seed gives exactly the in-process answer; a bad seed is a 400", async () => {
    server = await startServer({});
    for (let e = 0; e < 8; e++) {
      const req = trustRequest(identity(e, 0));
      const seed = callSeed(req.identity);
      const r = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "s3gym-random", messages: req.messages, seed }),
      });
      const content = ((await r.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
      expect(content).toBe(await answer(req));
    }
    const bad = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "s3gym-random", messages: trustRequest(identity(0, 0)).messages, seed: "seven" }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/seed must be an integer/);
  });
});

describe("the runner", () => {
  async function trustRun(extra: string[] = [], models = "builtin:random") {
    const data = mkdtempSync(join(tmpdir(), "s3seed-"));
    const argv = ["--models", models, "--games", "trust", "--pathways", "none", "--data", data, "--explore-episodes", "0", "--eval-episodes", "4", "--max-steps", "12", "--progress", "off", ...extra];
    const err: string[] = [];
    expect(await runCommand(argv, { env: {}, stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } })).toBe(0);
    const [run] = readdirSync(join(data, "runs"));
    return { data, run: run!, records: await readRunRecords(join(data, "runs", run!)) };
  }

  it("gives builtin:random trust transcripts that differ across seeds (same opening, different play)", async () => {
    const { records } = await trustRun();
    const byEpisode = new Map<number, string[]>();
    for (const s of records.steps) byEpisode.set(s.episode as number, [...(byEpisode.get(s.episode as number) ?? []), s.action ?? ""]);
    const transcripts = [...byEpisode.values()].map((a) => a.join(","));
    expect(transcripts).toHaveLength(4);
    // Every trust episode opens on the same observation, yet no two play the same 12 moves.
    const openings = new Set(records.steps.filter((s) => s.step === 0).map((s) => s.observation));
    expect(openings.size).toBe(1);
    expect(new Set(transcripts).size).toBe(4);
  });

  it("sends the call's seed on every request, unless the models file says send_seed: false", async () => {
    // Over HTTP: record the bodies s3gym serve receives.
    const bodies: Array<Record<string, unknown>> = [];
    server = await startServer({ onRequest: (b) => bodies.push(b as Record<string, unknown>) });
    const file = join(mkdtempSync(join(tmpdir(), "s3seed-mf-")), "models.json");
    const write = (sendSeed?: boolean) =>
      writeFileSync(
        file,
        JSON.stringify({ models: [{ alias: "srv", spec: "openai:s3gym-random", base_url: server!.url, api_key_env: "K", ...(sendSeed === undefined ? {} : { send_seed: sendSeed }) }] }),
      );
    const env = { K: "k" };
    const go = async () => {
      const d = mkdtempSync(join(tmpdir(), "s3seed-http-"));
      const argv = [
        "--models",
        "srv",
        "--models-file",
        file,
        "--games",
        "trust",
        "--pathways",
        "none",
        "--data",
        d,
        "--explore-episodes",
        "0",
        "--eval-episodes",
        "2",
        "--max-steps",
        "3",
        "--progress",
        "off",
        "--no-cache",
        // The preflight's probe would be a 7th request; this test counts the run's own.
        "--no-preflight",
      ];
      const err: string[] = [];
      expect(await runCommand(argv, { env, stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } }), err.join("")).toBe(0);
    };
    write();
    await go();
    expect(bodies).toHaveLength(6);
    expect(bodies.every((b) => Number.isSafeInteger(b.seed))).toBe(true);
    expect(new Set(bodies.map((b) => b.seed)).size).toBe(6);
    bodies.length = 0;
    write(false);
    await go();
    expect(bodies).toHaveLength(6);
    expect(bodies.some((b) => "seed" in b)).toBe(false);
  });
});
