import { mkdtempSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { CheckpointRecord, EpisodeRecord, RunManifest, StepRecord } from "../../src/logs/schema.js";
import { InvalidRecordError, JsonlWriter, LogWriteError, writeJsonAtomic, type WriteFn } from "../../src/logs/writer.js";
import { clearSecrets, redactDeep, registerSecret } from "../../src/util/secretText.js";
import { stringifyWellFormed } from "../../src/util/wellFormedJson.js";
import { episode as episodeOf, step as stepRecord } from "../analysis/helpers.js";

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

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const ID = { run_id: "r", model: "m", game: "snake", pathway: "none" };
const step = (episode: number, n: number, response = "Action: left"): StepRecord => ({ ...stepRecord(ID, { episode, step: n, s: null, r: 0 }), response }) as StepRecord;

const episodeRecord = (episode: number): EpisodeRecord => episodeOf(ID, { phase: "explore", episode }) as EpisodeRecord;

describe("JsonlWriter: a line's bytes are stringifyWellFormed(redactDeep(record)), whichever way the writer gets there", () => {
  afterEach(() => clearSecrets());
  it("on records holding keys in responses, nested reasoning, object keys, split across fields, lone surrogates and escapes", () => {
    registerSecret("registeredvalue1");
    registerSecret("sk-live-0123456789");
    const piece = fc.constantFrom(
      "registered",
      "value1",
      "registeredvalue1",
      "sk-live-0123456789",
      "Bearer ",
      "bearer\t",
      "https://u:p@h/",
      "?token=",
      "=",
      "\n",
      '"',
      "\\",
      "\ud800",
      "\ud83d\ude00",
      "\u2028",
      "a",
      " ",
      "hf_",
      "0123456789abcdef",
    );
    const text = fc.oneof(
      fc.string(),
      fc.array(piece, { maxLength: 6 }).map((p) => p.join("")),
    );
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    let i = 0;
    fc.assert(
      fc.property(text, text, fc.array(text, { maxLength: 3 }), text, (response, observation, parts, key) => {
        const p = join(dir, `p${i++}.jsonl`);
        const w = JsonlWriter.open(p, StepRecord);
        const rec = { ...step(0, 0, response), observation, reasoning: parts.join(""), trace: { parts, [key]: response } };
        w.append(rec);
        w.close();
        expect(readFileSync(p, "utf8")).toBe(`${stringifyWellFormed(redactDeep(rec))}\n`);
      }),
      { numRuns: 400 },
    );
  });
  it("a registered key in a response and in a nested reasoning field never reaches the file", () => {
    registerSecret("registeredvalue1");
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const p = join(dir, "s.jsonl");
    const w = JsonlWriter.open(p, StepRecord);
    w.append({ ...step(0, 0, "my key: registeredvalue1"), reasoning: "plain", trace: { notes: ["x", "it is cmVnaXN0ZXJlZHZhbHVlMQ"] } });
    w.close();
    const text = readFileSync(p, "utf8");
    expect(text).not.toContain("registeredvalue1");
    expect(text).not.toContain("cmVnaXN0ZXJlZHZhbHVlMQ");
    expect(text.match(/\[redacted\]/g)).toHaveLength(2);
  });
});

describe("JsonlWriter turnBatched (a run's steps.jsonl): a turn's lines in one write, written when the next turn starts", () => {
  const counting = () => {
    const writes: number[] = [];
    const write: WriteFn = (fd, buf, off, len) => {
      writes.push(len);
      return writeSync(fd, buf, off, len);
    };
    return { writes, write };
  };

  it("holds the lines of one turn, then writes them together, in order, before the next turn's work", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const p = join(dir, "steps.jsonl");
    const { writes, write } = counting();
    const w = JsonlWriter.open(p, StepRecord, { turnBatched: true, write });
    w.append(step(0, 0));
    w.append(step(1, 0));
    w.append(step(0, 1));
    expect(readFileSync(p, "utf8")).toBe("");
    await nextTurn();
    const lines = readFileSync(p, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.episode, l.step])).toEqual([
      [0, 0],
      [1, 0],
      [0, 1],
    ]);
    expect(writes).toHaveLength(1);
    w.append(step(1, 1));
    await nextTurn();
    expect(readFileSync(p, "utf8").trimEnd().split("\n")).toHaveLength(4);
    expect(writes).toHaveLength(2);
    w.close();
  });

  it("a record that claims the steps (a writer opened with them as `after`) writes them first; sync and close write what is held", () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const steps = JsonlWriter.open(join(dir, "steps.jsonl"), StepRecord, { turnBatched: true });
    const episodes = JsonlWriter.open(join(dir, "episodes.jsonl"), EpisodeRecord, { after: steps });
    steps.append(step(0, 0));
    steps.append(step(0, 1));
    episodes.append(episodeRecord(0));
    // Same turn: the record's write came after its steps' write.
    expect(readFileSync(join(dir, "steps.jsonl"), "utf8").trimEnd().split("\n")).toHaveLength(2);
    steps.append(step(1, 0));
    steps.sync();
    expect(readFileSync(join(dir, "steps.jsonl"), "utf8").trimEnd().split("\n")).toHaveLength(3);
    steps.append(step(1, 1));
    steps.close();
    episodes.close();
    expect(readFileSync(join(dir, "steps.jsonl"), "utf8").trimEnd().split("\n")).toHaveLength(4);
  });

  it("a held batch that fails to write (a full disk) is cut back, and the record that claims it is refused with the same error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s3w-"));
    const sp = join(dir, "steps.jsonl");
    let full = false;
    let torn = false;
    const write: WriteFn = (fd, buf, off, len) => {
      if (!full) return writeSync(fd, buf, off, len);
      // A short write (its bytes land on the file), then no space at all.
      if (torn) throw Object.assign(new Error("no space"), { code: "ENOSPC" });
      torn = true;
      return writeSync(fd, buf, off, Math.min(len, 10));
    };
    const steps = JsonlWriter.open(sp, StepRecord, { turnBatched: true, write });
    const episodes = JsonlWriter.open(join(dir, "episodes.jsonl"), EpisodeRecord, { after: steps });
    steps.append(step(0, 0));
    await nextTurn();
    full = true;
    steps.append(step(0, 1));
    await nextTurn(); // the flush fails here, out of any caller's reach: kept for the next append or record
    expect(() => episodes.append(episodeRecord(0))).toThrow(LogWriteError);
    expect(() => steps.append(step(0, 2))).toThrow(/ENOSPC/);
    expect(readFileSync(join(dir, "episodes.jsonl"), "utf8")).toBe("");
    expect(
      readFileSync(sp, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).step),
    ).toEqual([0]);
    // Closing a failed writer does not throw again (the run already stopped with the cause).
    expect(() => steps.close()).not.toThrow();
    episodes.close();
  });
});
