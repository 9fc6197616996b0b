/**
 * Resume: kill -9 the CLI at random moments, rerun the same command to completion, and compare the
 * step records with an uninterrupted run's (timing fields aside): none missing, none duplicated.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { runCommand } from "../../src/cli/run/run.js";
import { getGame } from "../../src/games/registry.js";
import { startServer, type RunningServer } from "../../src/builtin/server.js";
import { loadForResume } from "../../src/runner/resume/resume.js";
import { runDir } from "../../src/logs/runDir.js";
import { runMatrix } from "../../src/runner/loop/runLoop.js";
import { runQuality } from "../../src/runner/monitor/runQuality.js";
import { buildMatrix } from "../../src/runner/loop/schedule.js";
import { factory, implementedGames, lines, readCompleteRun, small } from "./helpers.js";

const TIMING = ["latency_ms", "cached", "started_at", "ended_at"];
function strip(r: Record<string, unknown>): Record<string, unknown> {
  const o = { ...r };
  for (const k of TIMING) delete o[k];
  return o;
}
const stepKey = (s: Record<string, unknown>) => `${s.run_id}|${s.phase}|${s.checkpoint}|${s.episode}|${s.step}`;

function allRecords(data: string, file: string): Record<string, unknown>[] {
  const runs = join(data, "runs");
  if (!existsSync(runs)) return [];
  return readdirSync(runs).flatMap((d) => lines<Record<string, unknown>>(join(runs, d), file));
}

function countLines(data: string): number {
  const runs = join(data, "runs");
  if (!existsSync(runs)) return 0;
  let n = 0;
  for (const d of readdirSync(runs)) {
    const p = join(runs, d, "steps.jsonl");
    if (existsSync(p)) n += readFileSync(p, "utf8").split("\n").length - 1;
  }
  return n;
}

const games = implementedGames()
  .filter((g) => ["snake", "minesweeper", "trust"].includes(g))
  .slice(0, 2);

describe("resume after kill -9", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ latencyMs: 15 });
  });
  afterAll(async () => {
    await server.close();
  });

  const argv = (data: string) => [
    "--models",
    "openai:s3gym-heuristic",
    "--games",
    games.join(","),
    "--pathways",
    "history,memory,hybrid",
    "--data",
    data,
    "--explore-episodes",
    "4",
    "--checkpoint-every",
    "2",
    "--eval-episodes",
    "2",
    "--max-steps",
    "8",
    "--base-url",
    server.url,
    "--progress",
    "off",
    "--concurrency",
    "4",
  ];
  const env = { ...process.env, OPENAI_API_KEY: "test-key" };

  it("step, episode and checkpoint records equal an uninterrupted run's, each exactly once", async () => {
    const reference = mkdtempSync(join(tmpdir(), "s3ref-"));
    const out: string[] = [];
    expect(await runCommand(argv(reference), { env, stdout: { write: (t: string) => out.push(t) }, stderr: { write: () => true } })).toBe(0);
    const want = allRecords(reference, "steps.jsonl");
    expect(want.length).toBeGreaterThan(50);

    const data = mkdtempSync(join(tmpdir(), "s3kill-"));
    const child = fileURLToPath(new URL("./fixtures/runChild.ts", import.meta.url));
    // A fixed generator: the kill moments differ from kill to kill but not from test run to test run.
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let kills = 0;
    for (let attempt = 0; attempt < 5; attempt++) {
      const target = countLines(data) + 1 + Math.floor(rand() * (want.length / 4));
      const proc: ChildProcess = spawn(process.execPath, ["--import", "tsx", child, ...argv(data)], { env, stdio: "ignore" });
      const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
      let done = false;
      void exited.then(() => (done = true));
      while (!done && countLines(data) < target) await new Promise((r) => setTimeout(r, 5));
      if (done) break;
      proc.kill("SIGKILL");
      await exited;
      kills++;
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    // A torn write of the kind a kill mid-line leaves (the kill itself rarely lands inside a write).
    const someRun = readdirSync(join(data, "runs"))[0]!;
    appendFileSync(join(data, "runs", someRun, "steps.jsonl"), '{"run_id": "torn');

    expect(await runCommand(argv(data), { env, stdout: { write: () => true }, stderr: { write: () => true } })).toBe(0);
    const got = allRecords(data, "steps.jsonl");
    const keys = got.map(stepKey);
    expect(new Set(keys).size).toBe(keys.length); // none duplicated
    expect([...keys].sort()).toEqual(want.map(stepKey).sort()); // none missing, none extra
    const byKey = new Map(got.map((s) => [stepKey(s), strip(s)]));
    for (const s of want) expect(byKey.get(stepKey(s))).toEqual(strip(s));
    // The hybrid runs' steps name the snippets they saw (compared above with everything else).
    expect(got.some((s) => s.pathway === "hybrid" && Array.isArray(s.retrieved_steps) && (s.retrieved_steps as unknown[]).length > 0)).toBe(true);
    // Episodes and checkpoints too.
    const ek = (e: Record<string, unknown>) => `${e.run_id}|${e.phase}|${e.checkpoint}|${e.episode}`;
    const sortBy = (xs: Record<string, unknown>[], k: (x: Record<string, unknown>) => string) => [...xs].sort((a, b) => (k(a) < k(b) ? -1 : 1)).map(strip);
    expect(sortBy(allRecords(data, "episodes.jsonl"), ek)).toEqual(sortBy(allRecords(reference, "episodes.jsonl"), ek));
    const ck = (c: Record<string, unknown>) => `${c.run_id}|${c.checkpoint}`;
    expect(sortBy(allRecords(data, "checkpoints.jsonl"), ck)).toEqual(sortBy(allRecords(reference, "checkpoints.jsonl"), ck));
    const mk = (m: Record<string, unknown>) => `${m.run_id}|${m.after_episode}`;
    expect(sortBy(allRecords(data, "memory.jsonl"), mk).map((m) => ({ ...m, latency_ms: 0 }))).toEqual(sortBy(allRecords(reference, "memory.jsonl"), mk).map((m) => ({ ...m, latency_ms: 0 })));
    for (const d of readdirSync(join(data, "runs"))) {
      const m = JSON.parse(readFileSync(join(data, "runs", d, "manifest.json"), "utf8"));
      expect(m.status).toBe("complete");
      expect(m.invocations).toBeGreaterThan(1);
      // The quality the run kept while it played (its lines from earlier invocations read when it
      // reopened, then its own) is what reading its logs back gives.
      expect(m.quality).toEqual(runQuality(join(data, "runs", d), "complete"));
      expect(m.quality.step_replies).toBe(lines(join(data, "runs", d), "steps.jsonl").length);
      expect(existsSync(join(data, "runs", d, ".lock"))).toBe(false);
    }
    // Generous: up to five tsx children start here, which takes minutes on a loaded 2-core machine; the test judges what a resume keeps, not speed.
  }, 420_000);
});

describe("loadForResume", () => {
  it("drops an interrupted episode's steps and a torn line; the rerun plays it again from its start", async () => {
    const settings = small({ exploreEpisodes: 4, checkpointEvery: 2 });
    const game = implementedGames()[0]!;
    const entries = buildMatrix(["builtin:heuristic"], [game], ["history"], 0);
    const data = mkdtempSync(join(tmpdir(), "s3res-"));
    await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
    const dir = runDir(data, entries[0]!.runId);
    const steps = readFileSync(join(dir, "steps.jsonl"), "utf8");
    const episodes = readFileSync(join(dir, "episodes.jsonl"), "utf8").trimEnd().split("\n");
    // Forget the last three episode records (as if killed before writing them), keep their steps,
    // and leave half a step line at the end.
    const forgotten = episodes.slice(-3).map((l) => JSON.parse(l) as { phase: string; checkpoint: number | null; episode: number; steps: number });
    writeFileSync(join(dir, "episodes.jsonl"), `${episodes.slice(0, -3).join("\n")}\n`);
    writeFileSync(join(dir, "checkpoints.jsonl"), "");
    writeFileSync(join(dir, "steps.jsonl"), `${steps}{"run_id":"x","ste`);
    const state = loadForResume(dir);
    expect(state.removed.steps).toBe(forgotten.reduce((n, e) => n + e.steps, 0) + 1);
    expect(state.episodes.size).toBe(episodes.length - 3);
    const kept = lines<{ phase: string; checkpoint: number | null; episode: number }>(dir, "steps.jsonl");
    for (const f of forgotten) expect(kept.some((s) => s.phase === f.phase && s.checkpoint === f.checkpoint && s.episode === f.episode)).toBe(false);
    const [o] = await runMatrix({ dataDir: data, entries, settings, game: getGame, createModel: factory() });
    expect(o!.status).toBe("complete");
    await readCompleteRun(dir, settings, { resumed: true });
    // The resumed run's quality counts the steps kept from before the kill and the ones played again, once each.
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(m.quality.step_replies).toBe(lines(dir, "steps.jsonl").length);
    expect(m.quality).toEqual(runQuality(dir, "complete", false));
  });

  it("records the model behind an alias and its sampling, and refuses to resume under another one", async () => {
    // run_id comes from the alias: editing the models file between two invocations used to continue
    // the same run directory with another model (or temperature), mixing two experiments silently.
    const data = mkdtempSync(join(tmpdir(), "s3alias-"));
    const file = join(data, "models.json");
    const write = (spec: string, temperature: number) => writeFileSync(file, JSON.stringify({ models: [{ alias: "pol", spec, sampling: { temperature } }] }));
    const argv = [
      "--models",
      "pol",
      "--models-file",
      file,
      "--games",
      implementedGames()[0]!,
      "--pathways",
      "none",
      "--data",
      data,
      "--explore-episodes",
      "0",
      "--eval-episodes",
      "1",
      "--max-steps",
      "2",
      "--progress",
      "off",
    ];
    const io = () => {
      const err: string[] = [];
      return { err, deps: { env: {}, stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } } };
    };
    write("builtin:heuristic", 0.2);
    expect(await runCommand(argv, io().deps)).toBe(0);
    const dir = readdirSync(join(data, "runs"))[0]!;
    const manifest = JSON.parse(readFileSync(join(data, "runs", dir, "manifest.json"), "utf8"));
    expect(manifest.config.model).toEqual({ spec: "builtin:heuristic", sampling: { temperature: 0.2 } });
    expect(await runCommand(argv, io().deps)).toBe(0); // same alias, same model: resumes (nothing left to do)
    for (const [spec, t] of [
      ["builtin:random", 0.2],
      ["builtin:heuristic", 0.9],
    ] as const) {
      write(spec, t);
      const o = io();
      expect(await withExitCode("run", () => runCommand(argv, o.deps), o.deps)).toBe(2);
      expect(o.err.join("")).toMatch(/different protocol \(model: /);
    }
  });

  it("refuses to continue a run under a different protocol, naming the field", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3res-"));
    const entries = buildMatrix(["builtin:random"], [implementedGames()[0]!], ["none"], 0);
    await runMatrix({ dataDir: data, entries, settings: small({ exploreEpisodes: 0 }), game: getGame, createModel: factory() });
    await expect(runMatrix({ dataDir: data, entries, settings: small({ exploreEpisodes: 0, maxSteps: 5 }), game: getGame, createModel: factory() })).rejects.toThrow(/max_steps: 8 -> 5/);
  });
});
