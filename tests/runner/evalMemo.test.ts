/**
 * The evaluation memo (src/runner/loop/evalMemo.ts): a deterministic model's evaluation episode
 * played again with the same inputs is written from its first play. Every log must be byte for byte
 * what playing it writes (timestamps aside), only deterministic models may use it, and a run killed
 * mid-way resumes to the same records.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { getGame } from "../../src/games/registry.js";
import { createModelContext } from "../../src/models/assembleModel.js";
import type { CompletionRequest, CompletionResult, Model } from "../../src/models/types.js";
import { runCommand } from "../../src/cli/run/run.js";
import { createModel } from "../../src/runner/createModel.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { planDataProbes, runProbes } from "../../src/runner/probe/memoryProbe.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, lines, small } from "./helpers.js";

/** Counts the calls that reach the model; `deterministic` as the inner model says, or hidden (the memo off). */
class CountingModel implements Model {
  calls = 0;
  constructor(
    private readonly inner: Model,
    private readonly claim: boolean,
  ) {}
  get spec() {
    return this.inner.spec;
  }
  get endpointHost() {
    return this.inner.endpointHost;
  }
  get deterministic() {
    return this.claim && this.inner.deterministic === true;
  }
  complete(r: CompletionRequest): Promise<CompletionResult> {
    if (r.identity.purpose === "step") this.calls++;
    return this.inner.complete(r);
  }
}

/** Every file of a data directory's runs, the timestamps blanked (the only bytes a replay may change). */
function snapshot(data: string): Map<string, string> {
  const out = new Map<string, string>();
  const runs = join(data, "runs");
  for (const d of readdirSync(runs).sort())
    for (const f of readdirSync(join(runs, d)).sort()) {
      if (f.startsWith(".")) continue;
      let text = readFileSync(join(runs, d, f), "utf8").replace(/"(started_at|ended_at)": ?"[^"]*"/g, '"$1":"T"');
      if (f === "manifest.json") text = text.replace(/"wall_s": ?[0-9.e+-]+/g, '"wall_s":0');
      out.set(`${d}/${f}`, text);
    }
  return out;
}

const MODELS = ["builtin:learner", "builtin:learner?judge=0.25", "builtin:random", "builtin:ceiling", "builtin:perfect-judge", "builtin:random?noise=independent"];

async function playMatrix(memo: boolean): Promise<{ data: string; calls: Map<string, number> }> {
  const data = mkdtempSync(join(tmpdir(), `s3memo-${memo ? "on" : "off"}-`));
  const entries = buildMatrix(MODELS, ["minesweeper"], ["none", "history", "memory"], 0);
  const counters = new Map<string, CountingModel>();
  const settings = small({ exploreEpisodes: 4, checkpointEvery: 1, evalEpisodes: 2, views: { extra: ["id", "replay"], viewEpisodes: 2, replayEpisodes: 2 } });
  await runMatrix({
    dataDir: data,
    entries,
    settings,
    game: getGame,
    createModel: factory((name, m) => {
      const c = new CountingModel(m, memo);
      counters.set(name, c);
      return c;
    }),
  });
  return { data, calls: new Map([...counters].map(([k, c]) => [k, c.calls])) };
}

function stepLines(data: string, model: string): number {
  const runs = join(data, "runs");
  let n = 0;
  for (const d of readdirSync(runs)) {
    const m = JSON.parse(readFileSync(join(runs, d, "manifest.json"), "utf8")) as { model: string };
    if (m.model === model) n += lines(join(runs, d), "steps.jsonl").length;
  }
  return n;
}

describe("evaluation memo", () => {
  it("writes every log byte for byte as playing does (timestamps aside), and spares the deterministic models' calls", async () => {
    const off = await playMatrix(false);
    const on = await playMatrix(true);
    const a = snapshot(off.data);
    const b = snapshot(on.data);
    expect([...b.keys()]).toEqual([...a.keys()]);
    expect(a.size).toBeGreaterThan(MODELS.length * 3 * 4);
    for (const [file, text] of a) expect(b.get(file), file).toBe(text);
    for (const model of MODELS) {
      const steps = stepLines(on.data, model);
      // Played without the memo: one call per step line.
      expect(off.calls.get(model), model).toBe(steps);
      if (model.includes("noise=independent")) expect(on.calls.get(model), model).toBe(steps);
      // The none runs' later checkpoints repeat checkpoint 0 (no experience): at least those are replayed.
      else expect(on.calls.get(model)!, model).toBeLessThan(steps * 0.8);
    }
    // The replayed episodes' records name their own checkpoint.
    const dir = join(on.data, "runs", readdirSync(join(on.data, "runs")).find((d) => d.startsWith("minesweeper__none__builtin-learner-c"))!);
    const evalSteps = lines<{ phase: string; checkpoint: number }>(dir, "steps.jsonl").filter((s) => s.phase === "eval");
    expect(new Set(evalSteps.map((s) => s.checkpoint))).toEqual(new Set([0, 1, 2, 3, 4]));
  }, 120_000);

  it("a memory probe (its checkpoints all played at once) follows the play of the same slot in progress, and writes what playing writes", async () => {
    // Recorded runs: the probed learner's, another run seed's (shuffled), another model's (transplant), a stochastic null's.
    const recorded = mkdtempSync(join(tmpdir(), "s3memo-probed-"));
    const settings = small({ exploreEpisodes: 4, checkpointEvery: 1, evalEpisodes: 3, maxSteps: 10 });
    const models = ["builtin:learner", "builtin:learner?judge=0.25", "builtin:random?noise=independent"];
    for (const runSeed of [0, 1]) {
      const entries = buildMatrix(runSeed === 0 ? models : ["builtin:learner"], ["minesweeper", "trust"], ["history", "memory"], runSeed);
      await runMatrix({ dataDir: recorded, entries, settings: { ...settings, runSeed }, game: getGame, createModel: factory() });
    }
    const spec = {
      pathways: ["history", "memory"],
      cells: [
        { model: "builtin:learner", empty: true, shuffledSeeds: [0], transplantFrom: "builtin:learner?judge=0.25", transplantSeeds: [0], runSeeds: [0] },
        { model: "builtin:random?noise=independent", empty: true, shuffledSeeds: [], runSeeds: [0] },
      ],
    };
    const probe = async (memo: boolean, runsAtOnce?: number) => {
      const data = mkdtempSync(join(tmpdir(), `s3memo-probe-${memo ? "on" : "off"}-`));
      cpSync(recorded, data, { recursive: true });
      const planned = planDataProbes(data, spec);
      const counters = new Map<string, CountingModel>();
      const createModel = factory((name, m) => {
        const c = new CountingModel(m, memo);
        counters.set(name, c);
        return c;
      });
      await runProbes({ dataDir: data, planned, game: getGame, createModel, ...(runsAtOnce !== undefined ? { runsAtOnce } : {}) });
      return { data, planned: planned.length, calls: (model: string) => counters.get(model)?.calls ?? 0 };
    };
    const off = await probe(false);
    const on = await probe(true);
    // empty, shuffled and transplant of 2 games x 2 pathways, and the null's empty.
    expect(on.planned).toBe(16);
    // The manifests name the probed runs' and donors' folders: the data directory's path aside.
    const at = (data: string) => new Map([...snapshot(data)].map(([f, t]) => [f, t.split(data).join("<data>")]));
    const a = at(off.data);
    const b = at(on.data);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [file, text] of a) expect(b.get(file), file).toBe(text);
    const probeSteps = (model: string) => {
      let n = 0;
      for (const d of readdirSync(join(on.data, "runs")).filter((x) => x.includes("__probe-"))) {
        const m = JSON.parse(readFileSync(join(on.data, "runs", d, "manifest.json"), "utf8")) as { model: string };
        if (m.model === model) n += lines<{ phase: string }>(join(on.data, "runs", d), "steps.jsonl").filter((x) => x.phase === "eval").length;
      }
      return n;
    };
    expect(off.calls("builtin:learner")).toBe(probeSteps("builtin:learner"));
    // The empty probes' checkpoints 1..4 repeat checkpoint 0, played beside it: followed, not called.
    expect(on.calls("builtin:learner")).toBeLessThan(off.calls("builtin:learner") * 0.85);
    expect(on.calls("builtin:random?noise=independent")).toBe(probeSteps("builtin:random?noise=independent"));
    // One probe run at a time (what reproduce's probe processes do) writes the same files.
    const oneAtATime = await probe(true, 1);
    const c = at(oneAtATime.data);
    for (const [file, text] of a) expect(c.get(file), file).toBe(text);
  }, 240_000);

  it("only the built-ins without independent noise and without models-file sampling claim determinism", () => {
    const ctx = createModelContext({ cacheDir: null, baseUrl: "http://127.0.0.1:9/v1", env: { OPENAI_API_KEY: "k" } });
    const claims = (spec: string, c = ctx) => createModel(spec, c).deterministic === true;
    expect(claims("builtin:learner")).toBe(true);
    expect(claims("builtin:learner?judge=0.25")).toBe(true);
    expect(claims("builtin:ceiling")).toBe(true);
    expect(claims("builtin:random")).toBe(true);
    expect(claims("builtin:random?noise=independent")).toBe(false);
    expect(claims("builtin:heuristic?noise=independent")).toBe(false);
    expect(claims("openai:s3gym-heuristic")).toBe(false);
    // A models-file entry's sampling or dropped seed may make a built-in's replies vary.
    const withEntry = (entry: Record<string, unknown>) => createModelContext({ cacheDir: null, models: [{ alias: "r", spec: "builtin:random", ...entry }] as never });
    expect(claims("r", withEntry({}))).toBe(true);
    expect(claims("r", withEntry({ sampling: { temperature: 0.7 } }))).toBe(false);
    expect(claims("r", withEntry({ send_seed: false }))).toBe(false);
  });

  describe("over HTTP", () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer({});
    });
    afterAll(async () => {
      await server.close();
    });

    it("an endpoint serving a deterministic policy is still called at every step", async () => {
      const data = mkdtempSync(join(tmpdir(), "s3memo-http-"));
      const ctx = createModelContext({ cacheDir: null, baseUrl: server.url, env: { OPENAI_API_KEY: "k" } });
      const entries = buildMatrix(["openai:s3gym-heuristic"], ["snake"], ["none"], 0);
      let counter: CountingModel | null = null;
      await runMatrix({
        dataDir: data,
        entries,
        settings: small({ exploreEpisodes: 3, checkpointEvery: 1, evalEpisodes: 2 }),
        game: getGame,
        createModel: (name, onCall) => (counter = new CountingModel(createModel(name, { ...ctx, onCall }), true)),
      });
      const steps = stepLines(data, "openai:s3gym-heuristic");
      expect(steps).toBeGreaterThan(20);
      expect(counter!.calls).toBe(steps);
    }, 60_000);
  });

  it("a run killed mid-way resumes to the records of an uninterrupted run, none lost, none duplicated", async () => {
    const argv = (data: string) =>
      ["--models", "builtin:learner,builtin:ceiling", "--games", "snake", "--pathways", "none,memory", "--views", "eval,id", "--data", data].concat([
        "--explore-episodes",
        "6",
        "--checkpoint-every",
        "1",
        "--eval-episodes",
        "3",
        "--max-steps",
        "12",
        "--progress",
        "off",
      ]);
    const reference = mkdtempSync(join(tmpdir(), "s3memo-ref-"));
    expect(await runCommand(argv(reference), { stdout: { write: () => true }, stderr: { write: () => true } })).toBe(0);
    const want = snapshot(reference);
    const total = [...want].filter(([f]) => f.endsWith("steps.jsonl")).reduce((n, [, t]) => n + t.split("\n").length - 1, 0);
    expect(total).toBeGreaterThan(500);

    const data = mkdtempSync(join(tmpdir(), "s3memo-kill-"));
    const child = fileURLToPath(new URL("./fixtures/runChild.ts", import.meta.url));
    const written = (): number => {
      const runs = join(data, "runs");
      if (!existsSync(runs)) return 0;
      return readdirSync(runs).reduce((n, d) => n + (existsSync(join(runs, d, "steps.jsonl")) ? readFileSync(join(runs, d, "steps.jsonl"), "utf8").split("\n").length - 1 : 0), 0);
    };
    let kills = 0;
    // Kill points spread over the run (after the first checkpoints, so some replays are cut too).
    for (const share of [0.3, 0.55, 0.8]) {
      const proc: ChildProcess = spawn(process.execPath, ["--import", "tsx", child, ...argv(data)], { stdio: "ignore" });
      const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
      let done = false;
      void exited.then(() => (done = true));
      while (!done && written() < total * share) await new Promise((r) => setTimeout(r, 5));
      if (done) break;
      proc.kill("SIGKILL");
      await exited;
      kills++;
    }
    expect(kills).toBeGreaterThanOrEqual(2);
    expect(await runCommand(argv(data), { stdout: { write: () => true }, stderr: { write: () => true } })).toBe(0);
    const got = snapshot(data);
    // The records of each file as a multiset (a resume interleaves runs and episodes in another order).
    const sorted = (t: string | undefined) => (t ?? "").split("\n").filter(Boolean).sort();
    for (const [file, text] of want) {
      if (!/(steps|episodes|checkpoints|memory)\.jsonl$/.test(file)) continue;
      expect(sorted(got.get(file)), file).toEqual(sorted(text));
    }
  }, 240_000);
});
