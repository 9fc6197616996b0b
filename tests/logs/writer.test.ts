import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointRecord, RunManifest, StepRecord } from "../../src/logs/schema.js";
import { InvalidRecordError, JsonlWriter, writeJsonAtomic } from "../../src/logs/writer.js";

const rec = (checkpoint: number) => ({
  run_id: "r",
  model: "builtin:random",
  game: "snake",
  pathway: "none",
  checkpoint,
  scores: [1, 2],
  mean: 1.5,
  status: "ok" as const,
  reason: null,
});

describe("JsonlWriter", () => {
  it("appends one validated line per record, keeping extra fields", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const w = JsonlWriter.open(join(dir, "c.jsonl"), CheckpointRecord);
    w.append(rec(0));
    w.append({ ...rec(3), failed_episodes: [] });
    w.close();
    const lines = readFileSync(join(dir, "c.jsonl"), "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(JSON.parse(lines[1]!)).toMatchObject({ checkpoint: 3, failed_episodes: [] });
  });
  it("durable: false (the synthetic data set's) writes the same lines and validates the same; only the fsyncs go", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const a = JsonlWriter.open(join(dir, "a.jsonl"), CheckpointRecord);
    const b = JsonlWriter.open(join(dir, "b.jsonl"), CheckpointRecord, { durable: false });
    for (const w of [a, b]) {
      w.append(rec(0));
      w.sync();
      w.append({ ...rec(3), failed_episodes: [] });
      expect(() => w.append({ ...rec(0), mean: Number.NaN })).toThrow(InvalidRecordError);
      w.close();
    }
    expect(readFileSync(join(dir, "b.jsonl"), "utf8")).toBe(readFileSync(join(dir, "a.jsonl"), "utf8"));
    expect(readFileSync(join(dir, "b.jsonl"), "utf8").split("\n")).toHaveLength(3);
  });
  it("refuses an invalid record and names the field; nothing is written", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const w = JsonlWriter.open(join(dir, "c.jsonl"), CheckpointRecord);
    expect(() => w.append({ ...rec(0), mean: Number.NaN })).toThrow(InvalidRecordError);
    expect(() => w.append({ ...rec(0), status: "meh" } as never)).toThrow(/status/);
    w.close();
    expect(readFileSync(join(dir, "c.jsonl"), "utf8")).toBe("");
  });
  it("refuses a step line its compiled check cannot pass (a fractional episode, an empty run id), as zod would", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const w = JsonlWriter.open(join(dir, "s.jsonl"), StepRecord);
    const step = {
      run_id: "r",
      model: "m",
      game: "snake",
      pathway: "none",
      phase: "explore" as const,
      config: "explore",
      checkpoint: null,
      episode: 1,
      seed: 0,
      step: 0,
      observation: "o",
      response: "r",
      action: null,
      self_score: null,
      parse_error: null,
      valid: true,
      feedback: "",
      reward: 0,
      score_after: 0,
      done: false,
      tokens_in: 0,
      tokens_out: 0,
      latency_ms: 0,
    };
    expect(() => w.append({ ...step, episode: 1.5 })).toThrow(/episode/);
    expect(() => w.append({ ...step, run_id: "" })).toThrow(/run_id/);
    w.append({ ...step, run_id: "\u{1F600}" }); // one code point: zod's floor of 1 is met, zod is asked
    w.close();
    expect(
      readFileSync(join(dir, "s.jsonl"), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).run_id),
    ).toEqual(["\u{1F600}"]);
  });
  it("cuts a torn last line before appending, so the next line starts clean", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const p = join(dir, "c.jsonl");
    writeFileSync(p, `${JSON.stringify(rec(0))}\n{"run_id": "r", "mod`);
    const w = JsonlWriter.open(p, CheckpointRecord);
    expect(w.repairedBytes).toBeGreaterThan(0);
    w.append(rec(3));
    w.close();
    const lines = readFileSync(p, "utf8").trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).checkpoint)).toEqual([0, 3]);
  });
  it("writes a validated manifest atomically", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const p = join(dir, "manifest.json");
    expect(() => writeJsonAtomic(p, RunManifest, { run_id: "r" } as never)).toThrow(/manifest.json/);
    const m = {
      run_id: "r",
      model: "m",
      game: "snake",
      pathway: "none",
      kit_version: "0",
      endpoint_host: "builtin",
      run_seed: 0,
      explore_seeds: [0],
      eval_seeds: [1],
      reward_visibility: "hidden" as const,
      config: {},
      started_at: "x",
      ended_at: null,
      status: "running",
    };
    writeJsonAtomic(p, RunManifest, m);
    expect(JSON.parse(readFileSync(p, "utf8"))).toEqual(m);
  });
});
