/**
 * `s3gym rejudge` end to end on built-in models (docs/judging.md): the rejudged run replays the
 * recorded exploration (the same steps, the judge's score beside each self-score), pays no
 * exploration call, evaluates on the same seeds, names its source; under `self` it reproduces the
 * recorded run's evaluation exactly; an external judge's calls are logged; and a kill -9 in the
 * middle of a rejudge resumes with nothing lost or duplicated.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";

const MODEL = "builtin:learner?judge=0.25";
const SCHEDULE = ["--explore-episodes", "4", "--checkpoint-every", "2", "--eval-episodes", "2", "--max-steps", "8"];

function lines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{") && l.endsWith("}"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function recorded(): Promise<{ data: string; source: string }> {
  const data = mkdtempSync(join(tmpdir(), "s3rejudge-"));
  const code = await main(["run", "--models", MODEL, "--games", "minesweeper", "--pathways", "none,history", "--data", data, ...SCHEDULE, "--progress", "off"]);
  expect(code).toBe(0);
  const source = readdirSync(join(data, "runs")).find((d) => d.includes("__history__"))!;
  return { data, source: join(data, "runs", source) };
}

const strip = (r: Record<string, unknown>): Record<string, unknown> => {
  const { started_at: _a, ended_at: _b, latency_ms: _c, run_id: _d, ...rest } = r;
  return rest;
};

describe("run --judge (on-policy)", () => {
  it("records the judged score beside the self-score, under its own run id, and the judge in the manifest", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3onpolicy-"));
    expect(await main(["run", "--models", MODEL, "--games", "minesweeper", "--pathways", "memory", "--data", data, ...SCHEDULE, "--judge", "none", "--progress", "off"])).toBe(0);
    const [id] = readdirSync(join(data, "runs"));
    expect(id).toMatch(/__judge-none$/);
    const explore = lines(join(data, "runs", id!, "steps.jsonl")).filter((s) => s.phase === "explore");
    expect(explore.length).toBeGreaterThan(0);
    expect(explore.every((s) => s.experience_score === null && s.experience_score_source === "none" && typeof s.self_score === "number")).toBe(true);
    // Eval steps carry no judge fields: only exploration feeds experience.
    expect(
      lines(join(data, "runs", id!, "steps.jsonl"))
        .filter((s) => s.phase === "eval")
        .some((s) => "experience_score_source" in s),
    ).toBe(false);
    expect(JSON.parse(readFileSync(join(data, "runs", id!, "manifest.json"), "utf8")).config.protocol.judge).toBe("none");
    // The memory summaries were asked without scores (the learner's summary then has no self-score figures to keep).
    const memory = lines(join(data, "runs", id!, "memory.jsonl"));
    expect(memory.length).toBe(5);
  }, 60_000);
});

describe("run --judge shuffled (on-policy)", () => {
  it("is refused before anything runs: the placebo permutes a recorded run's episodes, which an on-policy run has not played", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3onpolicy-shuffled-"));
    expect(await main(["run", "--models", MODEL, "--games", "minesweeper", "--pathways", "history", "--data", data, ...SCHEDULE, "--judge", "shuffled", "--progress", "off"])).toBe(2);
    expect(existsSync(join(data, "runs"))).toBe(false);
  });
});

describe("s3gym rejudge", () => {
  it("replays the recorded exploration under the judge and plays only the evaluation episodes", async () => {
    const { source } = await recorded();
    expect(await main(["rejudge", "--from", source, "--judge", "verifier,self,model:builtin:heuristic", "--progress", "off"])).toBe(0);
    const dir = (j: string) => `${source}__rejudge-${j}`;
    const srcSteps = lines(join(source, "steps.jsonl"));
    const v = lines(join(dir("verifier"), "steps.jsonl"));
    const vExplore = v.filter((s) => s.phase === "explore");
    // The same exploration steps, each with the hidden reward as the score its experience carried.
    expect(vExplore.length).toBe(srcSteps.filter((s) => s.phase === "explore").length);
    for (const s of vExplore) {
      expect(s.experience_score).toBe(s.reward);
      expect(s.experience_score_source).toBe("verifier");
    }
    expect(vExplore.map((s) => s.self_score)).toEqual(srcSteps.filter((s) => s.phase === "explore").map((s) => s.self_score));
    // No exploration call paid: every step call of the rejudged run is an evaluation's.
    const calls = lines(join(dir("verifier"), "calls.jsonl"));
    expect(calls.filter((c) => c.purpose === "step" && c.phase === "explore")).toEqual([]);
    expect(calls.filter((c) => c.purpose === "step" && c.phase === "eval").length).toBe(v.filter((s) => s.phase === "eval").length);
    // The manifest names the source and records the judge.
    const m = JSON.parse(readFileSync(join(dir("verifier"), "manifest.json"), "utf8"));
    expect(m.rejudged_from.run_id).toBe(source.split("/").pop());
    expect(m.config.protocol.judge).toBe("verifier");
    expect(m.status).toBe("complete");
    // Same evaluation seeds as the source.
    const seeds = (d: string) =>
      lines(join(d, "episodes.jsonl"))
        .filter((e) => e.phase === "eval")
        .map((e) => `${e.checkpoint}/${e.episode}/${e.seed}`)
        .sort();
    expect(seeds(dir("verifier"))).toEqual(seeds(source));
    // Under self, the recorded run's evaluation exactly.
    // (Evaluation episodes run concurrently: compared by their place, not the order they were written in.)
    const at = (s: Record<string, unknown>) => `${s.checkpoint}|${s.episode}|${String(s.step).padStart(4, "0")}`;
    const evalOf = (d: string) =>
      lines(join(d, "steps.jsonl"))
        .filter((s) => s.phase === "eval")
        .sort((a, b) => (at(a) < at(b) ? -1 : 1))
        .map(strip);
    expect(evalOf(dir("self"))).toEqual(evalOf(source));
    // An external judge: one judge call per exploration step, in calls.jsonl.
    const ext = `${source}__rejudge-model-builtin-heuristic-`;
    const extDir = readdirSync(join(source, ".."))
      .map((d) => join(source, "..", d))
      .find((d) => d.startsWith(ext))!;
    const judgeCalls = lines(join(extDir, "calls.jsonl")).filter((c) => c.purpose === "judge");
    expect(judgeCalls.length).toBe(vExplore.length);
    expect(
      lines(join(extDir, "steps.jsonl"))
        .filter((s) => s.phase === "explore")
        .every((s) => s.experience_score === 0 && s.experience_score_source === "model:builtin:heuristic"),
    ).toBe(true);
  }, 120_000);

  it("refuses a none run and a run directory without a manifest, naming why", async () => {
    const { data } = await recorded();
    const noneRun = readdirSync(join(data, "runs")).find((d) => d.includes("__none__"))!;
    await expect(main(["rejudge", "--from", join(data, "runs", noneRun), "--judge", "verifier"])).resolves.toBe(2);
    await expect(main(["rejudge", "--from", data, "--judge", "verifier"])).resolves.toBe(2);
    await expect(main(["rejudge", "--from", join(data, "runs", noneRun), "--judge", "oracle"])).resolves.toBe(2);
  }, 60_000);

  it("a kill -9 in the middle resumes with nothing lost or duplicated", async () => {
    const { source } = await recorded();
    const refData = mkdtempSync(join(tmpdir(), "s3rejudge-ref-"));
    expect(await main(["rejudge", "--from", source, "--judge", "shuffled", "--data", refData, "--progress", "off"])).toBe(0);
    const refDir = join(refData, "runs", readdirSync(join(refData, "runs"))[0]!);
    const want = lines(join(refDir, "steps.jsonl"));
    const data = mkdtempSync(join(tmpdir(), "s3rejudge-kill-"));
    const child = fileURLToPath(new URL("./fixtures/rejudgeChild.ts", import.meta.url));
    const argv = ["--from", source, "--judge", "shuffled", "--data", data, "--progress", "off"];
    const count = () => (existsSync(join(data, "runs")) ? readdirSync(join(data, "runs")).reduce((n, d) => n + lines(join(data, "runs", d, "steps.jsonl")).length, 0) : 0);
    let kills = 0;
    for (const target of [want.length / 4, want.length / 2, (3 * want.length) / 4]) {
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
    expect(await main(["rejudge", ...argv])).toBe(0);
    const dir = join(data, "runs", readdirSync(join(data, "runs"))[0]!);
    const key = (s: Record<string, unknown>) => `${s.phase}|${s.checkpoint}|${s.episode}|${s.step}`;
    const got = lines(join(dir, "steps.jsonl"));
    const byKey = new Map<string, Record<string, unknown>>();
    // A resume may leave an interrupted episode's steps before its replay; the reader keeps the last.
    for (const s of got) byKey.set(key(s), strip(s));
    expect([...byKey.keys()].sort()).toEqual(want.map(key).sort());
    for (const s of want) expect(byKey.get(key(s))).toEqual(strip(s));
    const ek = (e: Record<string, unknown>) => `${e.phase}|${e.checkpoint}|${e.episode}`;
    const eps = lines(join(dir, "episodes.jsonl"));
    expect(new Set(eps.map(ek)).size).toBe(eps.length); // no episode recorded twice
    expect(eps.map(ek).sort()).toEqual(lines(join(refDir, "episodes.jsonl")).map(ek).sort());
    const cks = lines(join(dir, "checkpoints.jsonl"));
    expect(cks.map((c) => c.checkpoint).sort()).toEqual(
      lines(join(refDir, "checkpoints.jsonl"))
        .map((c) => c.checkpoint)
        .sort(),
    );
    expect(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")).invocations).toBeGreaterThan(1);
    // Generous: up to five tsx children start here, which takes minutes on a loaded 2-core machine; the test judges what a resume keeps, not speed.
  }, 420_000);
});
