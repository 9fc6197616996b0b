/**
 * `s3gym train-loop` with a trainer that is a small script printing a built-in model spec: the
 * rounds (explore with the current checkpoint -> build-sft -> trainer -> evaluate), a trainer failure
 * naming the round and its stderr, resume (finished rounds are not redone), and the refusals.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withExitCode } from "../../src/cli/main.js";
import { trainLoopCommand } from "../../src/cli/train-loop/trainLoop.js";
import { readRunRecords } from "../../src/logs/reader.js";
import { loopDir, roundDir, shellQuote, substituteCommand } from "../../src/training/trainLoop.js";
import { runId } from "../../src/runner/settings/runId.js";
import { runDir } from "../../src/logs/runDir.js";
import { exploreSeeds } from "../../src/runner/loop/seeds.js";

const TRAINER = fileURLToPath(new URL("../helpers/fakeTrainer.mjs", import.meta.url));
const CMD = `node ${TRAINER} {train} {round} {model}`;
const SMALL = ["--games", "snake", "--explore-episodes", "2", "--eval-episodes", "1", "--max-steps", "4", "--progress", "off"];

async function loop(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
  const code = await withExitCode("train-loop", () => trainLoopCommand(argv, { env: { ...process.env, ...env }, ...io }), io);
  return { code, out: out.join(""), err: err.join("") };
}

const jsonl = (path: string) =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

describe("s3gym train-loop", () => {
  it("runs the rounds, stops on a trainer failure naming the round and its stderr, and resumes without redoing finished rounds", async () => {
    // A space and a quote in the path: the placeholders must reach the trainer shell-quoted.
    const data = mkdtempSync(join(tmpdir(), "s3 loop'"));
    const trainerLog = join(data, "trainer.log");
    const argv = ["--model", "builtin:random", "--rounds", "2", "--trainer-cmd", CMD, "--data", data, ...SMALL];

    const first = await loop(argv, { TRAINER_LOG: trainerLog, FAIL_ROUND: "2" });
    expect(first.code).toBe(1);
    expect(first.err).toMatch(/round 2: the trainer command failed \(exit code 3\)/);
    expect(first.err).toContain("RuntimeError: CUDA out of memory (fake)");
    expect(jsonl(trainerLog).map((t) => [t.round, t.model])).toEqual([
      [1, "builtin:random"],
      [2, "builtin:heuristic"],
    ]);

    const label = "builtin:random+train-loop";
    const dir = loopDir(data, label);
    const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
    expect(state.checkpoints).toEqual([
      { checkpoint: 0, model: "builtin:random" },
      { checkpoint: 1, model: "builtin:heuristic" },
    ]);
    expect(state.rounds.map((r: { explored: boolean; trainer: unknown }) => [r.explored, r.trainer !== null])).toEqual([
      [true, true],
      [true, false],
    ]);
    // Round r explored with M_{r-1} on fresh boards (run seed + r - 1); the trainer got that round's set.
    const explore = (r: number, model: string) => runDir(roundDir(dir, r), runId({ game: "snake", pathway: "training", model, runSeed: r - 1 }));
    const r1 = await readRunRecords(explore(1, "builtin:random"));
    const r2 = await readRunRecords(explore(2, "builtin:heuristic"));
    expect(r1.steps.every((s) => s.phase === "explore" && s.response.startsWith("(random policy)"))).toBe(true);
    expect(r2.steps.every((s) => s.phase === "explore" && s.response.startsWith("(heuristic policy)"))).toBe(true);
    expect(r1.episodes.map((e) => e.seed).sort()).toEqual(exploreSeeds(0, "snake", 2).sort());
    expect(r2.episodes.map((e) => e.seed).sort()).toEqual(exploreSeeds(1, "snake", 2).sort());
    const firstCall = jsonl(trainerLog)[0];
    expect(firstCall.train).toBe(join(roundDir(dir, 1), "sft.jsonl"));
    expect(firstCall.examples).toBe(jsonl(firstCall.train).length);
    expect(firstCall.examples).toBeGreaterThan(0);
    expect(readFileSync(join(roundDir(dir, 2), "trainer.stderr.log"), "utf8")).toContain("CUDA out of memory");

    // Resume: round 1 is not explored, built or trained again; round 2 only retries its trainer.
    const callsBefore = jsonl(join(explore(1, "builtin:random"), "calls.jsonl")).length;
    const second = await loop(argv, { TRAINER_LOG: trainerLog });
    expect(second.err).not.toMatch(/s3gym train-loop:/);
    expect(second.code).toBe(0);
    expect(jsonl(trainerLog).map((t) => t.round)).toEqual([1, 2, 2]);
    expect(jsonl(join(explore(1, "builtin:random"), "calls.jsonl"))).toHaveLength(callsBefore);
    expect(second.out).toContain("epoch 2\tbuiltin:heuristic");

    // The evaluation: one training run, epochs 0..2 each once, epoch 0 = M0.
    const tr = await readRunRecords(runDir(data, runId({ game: "snake", pathway: "training", model: label, runSeed: 0 })));
    expect(tr.checkpoints.map((c) => c.checkpoint).sort()).toEqual([0, 1, 2]);
    expect(tr.steps.filter((s) => s.checkpoint === 0).every((s) => s.response.startsWith("(random policy)"))).toBe(true);
    expect(tr.steps.filter((s) => s.checkpoint === 2).every((s) => s.response.startsWith("(heuristic policy)"))).toBe(true);
    expect(second.out).toMatch(/^snake\t\S+\tepoch 0: [-\d.]+\tepoch 1: [-\d.]+\tepoch 2: [-\d.]+$/m);

    // Done: a third run does nothing but report.
    const third = await loop(argv, { TRAINER_LOG: trainerLog });
    expect(third.code).toBe(0);
    expect(jsonl(trainerLog)).toHaveLength(3);

    // Other loop settings on the same label are refused, naming the field.
    const other = await loop([...argv, "--threshold", "1"], { TRAINER_LOG: trainerLog });
    expect(other.code).toBe(2);
    expect(other.err).toMatch(/started with other settings \(sft:/);
  });

  it("loops of one label over several run seeds run side by side in one data directory (Figure 7 over loop seeds)", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3 loop seeds"));
    const base = ["--model", "builtin:random", "--rounds", "1", "--trainer-cmd", CMD, "--data", data, ...SMALL];
    // Started together, as reproduce's jobs are: one shared folder would refuse the second (lock, or
    // "started with other settings" for its run seed).
    const [a, b] = await Promise.all([
      loop([...base, "--run-seed", "0"], { TRAINER_LOG: join(data, "trainer0.log") }),
      loop([...base, "--run-seed", "100"], { TRAINER_LOG: join(data, "trainer100.log") }),
    ]);
    expect([a.code, a.err]).toEqual([0, expect.not.stringMatching(/s3gym train-loop:/)]);
    expect([b.code, b.err]).toEqual([0, expect.not.stringMatching(/s3gym train-loop:/)]);
    const label = "builtin:random+train-loop";
    expect(loopDir(data, label, 100)).not.toBe(loopDir(data, label));
    for (const seed of [0, 100]) {
      const state = JSON.parse(readFileSync(join(loopDir(data, label, seed), "state.json"), "utf8"));
      expect(state.protocol.run_seed).toBe(seed);
      const evals = await readRunRecords(runDir(data, runId({ game: "snake", pathway: "training", model: label, runSeed: seed })));
      expect(new Set(evals.episodes.map((e) => e.checkpoint))).toEqual(new Set([0, 1]));
    }
  });

  it("a trainer that prints no spec, or not a usable spec, stops the loop at that round", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3loop2-"));
    const trainerLog = join(data, "trainer.log");
    const argv = ["--model", "builtin:random", "--rounds", "1", "--trainer-cmd", CMD, "--data", data, ...SMALL];
    const none = await loop(argv, { TRAINER_LOG: trainerLog, NO_SPEC_ROUND: "1" });
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/round 1: the trainer command printed no model spec/);
    const bad = await loop(argv, { TRAINER_LOG: trainerLog, TRAINER_SPEC: "anthropic:claude" });
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/round 1: the trainer's last stdout line 'anthropic:claude' is not a usable model spec/);
    const ok = await loop(argv, { TRAINER_LOG: trainerLog });
    expect(ok.code).toBe(0);
    // Only the trainer was retried: round 1's SFT set was built once.
    expect(jsonl(trainerLog)).toHaveLength(3);
    expect(new Set(jsonl(trainerLog).map((t) => t.examples)).size).toBe(1);
  });

  it("argument errors name the flag (exit 2)", async () => {
    const data = mkdtempSync(join(tmpdir(), "s3loop3-"));
    const base = ["--model", "builtin:random", "--games", "snake", "--rounds", "1", "--trainer-cmd", "true", "--data", data];
    const drop = (flag: string) => base.filter((_, i) => base[i] !== flag && base[i - 1] !== flag);
    expect((await loop(drop("--model"))).err).toMatch(/--model is required/);
    expect((await loop(drop("--rounds"))).err).toMatch(/--rounds is required/);
    expect((await loop(drop("--trainer-cmd"))).err).toMatch(/--trainer-cmd is required/);
    expect((await loop([...base, "--rounds", "0"])).err).toMatch(/--rounds must be at least 1/);
    expect((await loop([...base, "--model", "anthropic:x"])).code).toBe(2);
    expect((await loop([...base, "--correct-model", "builtin:heuristic"])).err).toMatch(/--correct-model is only used with --low-score correct/);
    expect(existsSync(join(data, "train-loop"))).toBe(false);
  });

  it("placeholders are replaced by shell-quoted values; other braces are left alone", () => {
    expect(shellQuote("a b'c")).toBe(`'a b'\\''c'`);
    expect(substituteCommand("train --data {train} --round {round} | awk '{print $1}' {unknown}", { train: "/x y/s.jsonl", round: "3" })).toBe(
      "train --data '/x y/s.jsonl' --round '3' | awk '{print $1}' {unknown}",
    );
  });
});
