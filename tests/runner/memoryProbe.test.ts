/**
 * `s3gym probe` end to end on built-in models (docs/memory.md): a probe replays the probed
 * run's exploration (no exploration or summary call), plays the evaluation episodes on the same
 * seeds, and its checkpoints read no experience (empty: the learner then plays exactly as its none
 * run), another run seed's (shuffled) or another model's (transplant) experience at the same
 * checkpoint; the viewer's replay rebuilds what the probe read; a missing donor is named; a kill -9
 * in the middle resumes with nothing lost or duplicated.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { getGame } from "../../src/games/registry.js";
import { planDataProbes } from "../../src/runner/probe/memoryProbe.js";
import { loadRunLogs, rebuildExperience } from "../../src/runner/resume/replay.js";

const LEARNER = "builtin:learner";
const OTHER = "builtin:learner?judge=0.25";
const GAME = "trust";
const SCHEDULE = ["--explore-episodes", "4", "--checkpoint-every", "2", "--eval-episodes", "2", "--max-steps", "8", "--progress", "off"];

function lines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{") && l.endsWith("}"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const at = (s: Record<string, unknown>) => `${s.checkpoint}|${s.episode}|${String(s.step).padStart(4, "0")}`;
/** The evaluation play of a run, by place: what was done and what it earned (not who or when). */
function play(dir: string): string[] {
  return lines(join(dir, "steps.jsonl"))
    .filter((s) => s.phase === "eval")
    .sort((a, b) => (at(a) < at(b) ? -1 : 1))
    .map((s) => `${at(s)} ${JSON.stringify(s.action ?? null)} ${String(s.reward)} ${String(s.self_score)}`);
}

async function recorded(): Promise<{ data: string; runs: (model: string, pathway: string, seed: number) => string }> {
  const data = mkdtempSync(join(tmpdir(), "s3probe-"));
  expect(await main(["run", "--models", LEARNER, "--games", GAME, "--pathways", "none,memory", "--data", data, ...SCHEDULE])).toBe(0);
  expect(await main(["run", "--models", LEARNER, "--games", GAME, "--pathways", "memory", "--data", data, "--run-seed", "1", ...SCHEDULE])).toBe(0);
  expect(await main(["run", "--models", OTHER, "--games", GAME, "--pathways", "memory", "--data", data, ...SCHEDULE])).toBe(0);
  const runs = (model: string, pathway: string, seed: number) => {
    const id = readdirSync(join(data, "runs")).find((d) => {
      const m = JSON.parse(readFileSync(join(data, "runs", d, "manifest.json"), "utf8"));
      return m.model === model && m.pathway === pathway && m.run_seed === seed && m.probe === undefined;
    });
    return join(data, "runs", id!);
  };
  return { data, runs };
}

describe("s3gym probe", () => {
  it("empties, shuffles and transplants the memory at evaluation, on the same seeds, paying no exploration", async () => {
    const { data, runs } = await recorded();
    const intact = runs(LEARNER, "memory", 0);
    const donor = runs(OTHER, "memory", 0);
    expect(await main(["probe", "--from", intact, "--probe", `empty,shuffled,transplant:${donor}`, "--progress", "off"])).toBe(0);
    const ids = readdirSync(join(data, "runs"))
      .filter((d) => d.includes("__probe-"))
      .sort();
    expect(ids.length).toBe(3);
    const dirOf = (kind: string) => join(data, "runs", ids.find((d) => d.includes(`__probe-${kind}`))!);
    // The memory matters to this learner here: its intact evaluation is not its none run's.
    expect(play(intact)).not.toEqual(play(runs(LEARNER, "none", 0)));
    // Empty: the learner plays exactly as with no pathway at all.
    expect(play(dirOf("empty"))).toEqual(play(runs(LEARNER, "none", 0)));
    for (const kind of ["empty", "shuffled", "transplant"]) {
      const dir = dirOf(kind);
      const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      expect(m.status).toBe("complete");
      expect(m.rejudged_from.run_id).toBe(intact.split("/").pop());
      expect(m.probe.kind).toBe(kind);
      expect(m.model).toBe(LEARNER);
      // Same evaluation seeds as the intact run; exploration replayed, not played; no summary made.
      const seeds = (d: string) =>
        lines(join(d, "episodes.jsonl"))
          .filter((e) => e.phase === "eval")
          .map((e) => `${e.checkpoint}/${e.episode}/${e.seed}`)
          .sort();
      expect(seeds(dir)).toEqual(seeds(intact));
      const calls = lines(join(dir, "calls.jsonl"));
      expect(calls.filter((c) => c.phase === "explore" || c.purpose === "summary")).toEqual([]);
      expect(lines(join(dir, "memory.jsonl"))).toEqual([]);
    }
    const shuffled = JSON.parse(readFileSync(join(dirOf("shuffled"), "manifest.json"), "utf8"));
    expect(shuffled.probe.donor.run_seed).toBe(1);
    expect(shuffled.probe.donor.model).toBe(LEARNER);
    const transplant = JSON.parse(readFileSync(join(dirOf("transplant"), "manifest.json"), "utf8"));
    expect(transplant.probe.donor.model).toBe(OTHER);
    // Each donor's checkpoint x read the donor's memory version x: the steps pin it, and the viewer's
    // replay rebuilds the donor's text (the empty probe's: nothing).
    for (const [kind, donorDir] of [
      ["shuffled", runs(LEARNER, "memory", 1)],
      ["transplant", donor],
    ] as const) {
      const dir = dirOf(kind);
      const evalSteps = lines(join(dir, "steps.jsonl")).filter((s) => s.phase === "eval");
      expect(evalSteps.every((s) => s.memory_version === s.checkpoint)).toBe(true);
      const texts = new Map(lines(join(donorDir, "memory.jsonl")).map((r) => [r.after_episode, r.text as string]));
      const logs = loadRunLogs(dir);
      const rules = getGame(GAME).rules(getGame(GAME).configs.eval, "eval");
      for (const c of [2, 4]) {
        const text = rebuildExperience(logs, { phase: "eval", checkpoint: c, episode: 0, step: 0 }, { rules, turns: [], observation: "" });
        expect(texts.get(c)!.length).toBeGreaterThan(0);
        expect(text).toContain(texts.get(c)!);
        expect(text).not.toContain(lines(join(intact, "memory.jsonl")).find((r) => r.after_episode === c)!.text as string);
      }
    }
    const emptyLogs = loadRunLogs(dirOf("empty"));
    expect(rebuildExperience(emptyLogs, { phase: "eval", checkpoint: 4, episode: 0, step: 0 }, { rules: "", turns: [], observation: "" })).toBe("");
    // The probe runs stay out of every other table: status reads them as runs of their own.
    expect(await main(["status", "--data", data])).toBe(0);
    // Generous: up to five tsx children start here, which takes minutes on a loaded 2-core machine; the test judges what a resume keeps, not speed.
  }, 420_000);

  it("names what is missing: no other run seed for shuffled, a same-model or other-game transplant, a none run", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3probe-miss-"));
    expect(await main(["run", "--models", LEARNER, "--games", GAME, "--pathways", "none,memory", "--data", data, ...SCHEDULE])).toBe(0);
    const dirs = readdirSync(join(data, "runs")).map((d) => join(data, "runs", d));
    const memory = dirs.find((d) => d.includes("__memory__"))!;
    const none = dirs.find((d) => d.includes("__none__"))!;
    const errors: string[] = [];
    const stderr = { write: (t: string) => errors.push(t) };
    const { probeCommand } = await import("../../src/cli/probe/probe.js");
    await expect(probeCommand(["--from", memory, "--probe", "shuffled", "--progress", "off"], { stderr })).rejects.toThrow(
      /no complete run of builtin:learner on trust with pathway memory under another run seed than 0/,
    );
    await expect(probeCommand(["--from", memory, "--probe", `transplant:${memory}`, "--progress", "off"], { stderr })).rejects.toThrow(/another model's memory/);
    await expect(probeCommand(["--from", none, "--probe", "empty", "--progress", "off"], { stderr })).rejects.toThrow(/none run/);
    await expect(main(["probe", "--from", memory, "--probe", "transplant"])).resolves.toBe(2);
    await expect(main(["probe", "--from", memory, "--probe", "scrambled"])).resolves.toBe(2);
    expect(readdirSync(join(data, "runs")).filter((d) => d.includes("__probe-"))).toEqual([]);
  }, 120_000);

  it("reproduce's plan probes only what the data allows: shuffled where another run seed exists, a transplant where the donor's run does", async () => {
    const { data } = await recorded();
    const spec = {
      pathways: ["memory"],
      cells: [
        { model: LEARNER, empty: true, shuffledSeeds: [0, 1], transplantFrom: OTHER, transplantSeeds: [0, 1], runSeeds: null },
        { model: "builtin:random?noise=independent", empty: true, shuffledSeeds: [], runSeeds: [0] },
      ],
    };
    const ids = planDataProbes(data, spec)
      .map((p) => p.entry.runId.replace(/^.*__seed/, "seed"))
      .sort();
    // Seed 0: every probe; seed 1: shuffled (seed 0 exists) but no transplant (the donor model has no seed-1 run).
    expect(ids).toEqual([
      "seed0__probe-empty",
      "seed0__probe-shuffled",
      expect.stringMatching(/^seed0__probe-transplant-builtin-learner-judge-0.25-[0-9a-f]{8}$/),
      "seed1__probe-empty",
      "seed1__probe-shuffled",
    ]);
    const only0 = planDataProbes(data, { pathways: ["memory"], cells: [{ model: LEARNER, empty: false, shuffledSeeds: [], transplantFrom: OTHER, transplantSeeds: [0], runSeeds: [0] }] });
    expect(only0.map((p) => p.kind)).toEqual(["transplant"]);
    expect(planDataProbes(data, { pathways: ["history"], cells: spec.cells })).toEqual([]);
  }, 60_000);

  it("a kill -9 in the middle resumes with nothing lost or duplicated", async () => {
    const { runs } = await recorded();
    const intact = runs(LEARNER, "memory", 0);
    const probes = `empty,shuffled`;
    const refData = mkdtempSync(join(tmpdir(), "s3probe-ref-"));
    // shuffled's donor is looked for in the probed run's data directory too.
    expect(await main(["probe", "--from", intact, "--probe", probes, "--data", refData, "--progress", "off"])).toBe(0);
    const refIds = readdirSync(join(refData, "runs")).sort();
    const data = mkdtempSync(join(tmpdir(), "s3probe-kill-"));
    const child = fileURLToPath(new URL("./fixtures/probeChild.ts", import.meta.url));
    const argv = ["--from", intact, "--probe", probes, "--data", data, "--progress", "off"];
    const want = refIds.reduce((n, d) => n + lines(join(refData, "runs", d, "steps.jsonl")).length, 0);
    const count = () => (existsSync(join(data, "runs")) ? readdirSync(join(data, "runs")).reduce((n, d) => n + lines(join(data, "runs", d, "steps.jsonl")).length, 0) : 0);
    let kills = 0;
    for (const target of [want / 4, want / 2, (3 * want) / 4]) {
      const proc: ChildProcess = spawn(process.execPath, ["--import", "tsx", child, ...argv], { stdio: "ignore" });
      const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
      let done = false;
      void exited.then(() => (done = true));
      while (!done && count() < target) await new Promise((r) => setTimeout(r, 5));
      if (done) break;
      proc.kill("SIGKILL");
      await exited;
      kills++;
    }
    expect(kills).toBeGreaterThanOrEqual(1);
    expect(await main(["probe", ...argv])).toBe(0);
    expect(readdirSync(join(data, "runs")).sort()).toEqual(refIds);
    const strip = (r: Record<string, unknown>) => {
      const { started_at: _a, ended_at: _b, latency_ms: _c, ...rest } = r;
      return rest;
    };
    const key = (s: Record<string, unknown>) => `${s.phase}|${s.checkpoint}|${s.episode}|${s.step}`;
    for (const id of refIds) {
      const wantSteps = lines(join(refData, "runs", id, "steps.jsonl"));
      const byKey = new Map<string, Record<string, unknown>>();
      // A resume may leave an interrupted episode's steps before its replay; the reader keeps the last.
      for (const s of lines(join(data, "runs", id, "steps.jsonl"))) byKey.set(key(s), strip(s));
      expect([...byKey.keys()].sort()).toEqual(wantSteps.map(key).sort());
      for (const s of wantSteps) expect(byKey.get(key(s))).toEqual(strip(s));
      const ek = (e: Record<string, unknown>) => `${e.phase}|${e.checkpoint}|${e.episode}`;
      const eps = lines(join(data, "runs", id, "episodes.jsonl"));
      expect(new Set(eps.map(ek)).size).toBe(eps.length);
      expect(eps.map(ek).sort()).toEqual(
        lines(join(refData, "runs", id, "episodes.jsonl"))
          .map(ek)
          .sort(),
      );
      const m = JSON.parse(readFileSync(join(data, "runs", id, "manifest.json"), "utf8"));
      expect(m.status).toBe("complete");
      expect(m.probe).toEqual(JSON.parse(readFileSync(join(refData, "runs", id, "manifest.json"), "utf8")).probe);
    }
  }, 240_000);
});
