/** The streaming reader: validation errors name file/line/field; a torn LAST line is tolerated. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LogFormatError, discoverRuns, readJsonl, readRunDir, readRunFile, readRunRecords, type DamagedLine, type ReadWarning } from "../../src/logs/reader.js";
import { StepRecord } from "../../src/logs/schema.js";
import { checkpoint, episode, step, tempDir, writeRun } from "../analysis/helpers.js";

const id = { run_id: "r1", model: "m", game: "snake", pathway: "history" };

async function collect(file: string, warnings: ReadWarning[] = []): Promise<{ value: StepRecord; line: number }[]> {
  const out: { value: StepRecord; line: number }[] = [];
  for await (const rec of readJsonl(file, StepRecord, { onWarning: (w) => warnings.push(w) })) out.push(rec);
  return out;
}

function writeLines(lines: string[], trailingNewline = true): string {
  const dir = tempDir();
  const file = join(dir, "steps.jsonl");
  writeFileSync(file, lines.join("\n") + (trailingNewline ? "\n" : ""));
  return file;
}

describe("readJsonl", () => {
  it("yields validated records with their line numbers, skipping blank lines", async () => {
    const a = JSON.stringify(step(id, { episode: 1, step: 0, s: 1, r: 0 }));
    const b = JSON.stringify({ ...step(id, { episode: 1, step: 1, s: null, r: 1 }), extra_field: "ignored" });
    const recs = await collect(writeLines([a, "", b]));
    expect(recs.map((r) => r.line)).toEqual([1, 3]);
    expect(recs[1]?.value.self_score).toBeNull();
    expect(recs[1]?.value.reward).toBe(1);
  });

  it("names the file, the line and the field of an invalid record", async () => {
    const good = JSON.stringify(step(id, { episode: 1, step: 0, s: 1, r: 0 }));
    const bad = JSON.stringify({ ...step(id, { episode: 1, step: 1, s: 1, r: 0 }), reward: "high" });
    const file = writeLines([good, bad, good]);
    const err = await collect(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LogFormatError);
    const e = err as LogFormatError;
    expect(e.file).toBe(file);
    expect(e.line).toBe(2);
    expect(e.field).toBe("reward");
    expect(e.message).toContain(`${file}:2`);
    expect(e.message).toContain("reward");
  });

  it("names a missing field, and a wrong enum value", async () => {
    const rec = step(id, { episode: 1, step: 0, s: 1, r: 0 });
    delete (rec as Record<string, unknown>).valid;
    const e1 = (await collect(writeLines([JSON.stringify(rec)])).catch((e: unknown) => e)) as LogFormatError;
    expect(e1.field).toBe("valid");
    const e2 = (await collect(writeLines([JSON.stringify({ ...step(id, { episode: 1, step: 0, s: 1, r: 0 }), phase: "train" })])).catch((e: unknown) => e)) as LogFormatError;
    expect([e2.line, e2.field]).toEqual([1, "phase"]);
  });

  it("reports and skips a torn last line (no trailing newline)", async () => {
    const good = JSON.stringify(step(id, { episode: 1, step: 0, s: 1, r: 0 }));
    const torn = good.slice(0, 57);
    const warnings: ReadWarning[] = [];
    const recs = await collect(writeLines([good, good, torn], false), warnings);
    expect(recs).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.line).toBe(3);
    expect(warnings[0]?.message).toMatch(/torn last line/);
  });

  it("leaves out an unparsable line that is NOT the last, with a warning naming it (a write cut short on a full disk)", async () => {
    const good = JSON.stringify(step(id, { episode: 1, step: 0, s: 1, r: 0 }));
    const warnings: ReadWarning[] = [];
    const recs = await collect(writeLines([good, good.slice(0, 30) + good, good]), warnings);
    expect(recs.map((r) => r.line)).toEqual([1, 3]);
    expect(warnings.map((w) => w.line)).toEqual([2]);
    expect(warnings[0]?.message).toMatch(/damaged line left out \(invalid JSON/);
  });

  it("still refuses a line that parses but breaks the schema, naming the line and field", async () => {
    const good = JSON.stringify(step(id, { episode: 1, step: 0, s: 1, r: 0 }));
    const bad = JSON.stringify({ ...JSON.parse(good), reward: "high" });
    const e = (await collect(writeLines([good, bad, good])).catch((x: unknown) => x)) as LogFormatError;
    expect(e).toBeInstanceOf(LogFormatError);
    expect(e.line).toBe(2);
    expect(e.field).toBe("reward");
  });

  it("still tolerates the torn line when blank lines follow it", async () => {
    const good = JSON.stringify(step(id, { episode: 1, step: 0, s: 1, r: 0 }));
    const warnings: ReadWarning[] = [];
    const recs = await collect(writeLines([good, '{"run_id":', "", ""]), warnings);
    expect(recs).toHaveLength(1);
    expect(warnings).toHaveLength(1);
  });
});

describe("readJsonl asWritten (the analysis loader's way: records as parsed, no zod copy)", () => {
  const both = async (file: string) => {
    const read = async (asWritten: boolean) => {
      const out: { value: Record<string, unknown>; line: number }[] = [];
      const warnings: ReadWarning[] = [];
      try {
        for await (const r of readJsonl(file, StepRecord, { asWritten, onWarning: (w) => warnings.push(w) })) out.push(r);
        return { out, warnings, error: null };
      } catch (e) {
        return { out, warnings, error: e as LogFormatError };
      }
    };
    return { zod: await read(false), raw: await read(true) };
  };

  it("yields the same fields, and names the same line and field of every bad line", async () => {
    // Strings of at least two characters: the compiled check leaves a one-character text to zod (code points).
    const good = step({ run_id: "run-1", model: "builtin:m", game: "snake", pathway: "history" }, { episode: 1, step: 0, s: 1, r: 0 });
    const reordered = JSON.stringify(Object.fromEntries(Object.entries({ ...good, extra: { b: 1, a: 2 } }).reverse()));
    for (const bad of [{ reward: "high" }, { valid: undefined }, { phase: "train" }, { step: -1 }, { episode: 1.5 }, { run_id: "" }]) {
      const file = writeLines([reordered, JSON.stringify({ ...good, ...bad }), reordered]);
      const { zod, raw } = await both(file);
      expect(raw.error, JSON.stringify(bad)).toBeInstanceOf(LogFormatError);
      expect([raw.error?.line, raw.error?.field, raw.error?.message]).toEqual([zod.error?.line, zod.error?.field, zod.error?.message]);
      expect(raw.out.length).toBe(1);
    }
    const torn = writeLines([reordered, "", reordered, reordered.slice(0, 40)], false);
    const { zod, raw } = await both(torn);
    expect(raw.error).toBeNull();
    expect(raw.warnings).toEqual(zod.warnings);
    expect(raw.warnings).toHaveLength(1);
    expect(raw.out.map((r) => r.line)).toEqual([1, 3]);
    // The same fields and values; only the key order (as written here, schema order from zod) differs.
    for (const [i, r] of raw.out.entries()) {
      const z = zod.out[i]!;
      expect(Object.keys(r.value).sort()).toEqual(Object.keys(z.value).sort());
      for (const k of Object.keys(z.value)) expect(r.value[k], k).toEqual(z.value[k]);
    }
    expect(Object.keys(raw.out[0]!.value)[0]).toBe("extra");
    expect(Object.keys(zod.out[0]!.value)[0]).toBe("run_id");
  });
});

describe("readRunFile (resume, replay, the end-of-run summaries)", () => {
  it("keeps valid lines as written and names every off-schema line's field, as zod says it", () => {
    const good = step({ run_id: "run-1", model: "builtin:m", game: "snake", pathway: "history" }, { episode: 1, step: 0, s: 1, r: 0 });
    const text = JSON.stringify(Object.fromEntries(Object.entries({ ...good, extra: 1 }).reverse()));
    const bads = [{ reward: "high" }, { phase: "train" }, { step: -1 }, { run_id: "" }, { valid: undefined }];
    const file = writeLines([text, ...bads.map((b) => JSON.stringify({ ...good, ...b })), text]);
    const damaged: DamagedLine[] = [];
    const { lines, torn } = readRunFile(file, StepRecord, { damaged: (d) => damaged.push(d) });
    expect(torn).toBe(false);
    expect(lines.map((l) => [l.line, l.raw])).toEqual([
      [1, text],
      [7, text],
    ]);
    expect(lines[0]!.value).toEqual(JSON.parse(text));
    expect(damaged.map((d) => d.line)).toEqual([2, 3, 4, 5, 6]);
    expect(damaged.map((d) => d.detail.split("'")[1])).toEqual(["reward", "phase", "step", "run_id", "valid"]);
    for (const [i, d] of damaged.entries()) {
      const issue = StepRecord.safeParse(JSON.parse(d.raw)).error!.issues[0]!;
      expect(d.detail, JSON.stringify(bads[i])).toContain(issue.message);
    }
    const err = (() => {
      try {
        readRunFile(file, StepRecord);
      } catch (e) {
        return e;
      }
    })() as LogFormatError;
    expect([err.line, err.field]).toEqual([2, "reward"]);
  });
});

describe("run directories", () => {
  it("discovers runs of several data directories (shards) in order, each directory once", () => {
    const a = tempDir();
    const b = tempDir();
    writeRun(a, { ...id, run_id: "x2" }, {});
    writeRun(a, { ...id, run_id: "x1" }, {});
    writeRun(b, { ...id, run_id: "y1" }, {});
    const runs = discoverRuns([a, b, a]);
    expect(runs.map((r) => r.name)).toEqual(["x1", "x2", "y1"]);
  });

  it("accepts a single run directory, and rejects a directory that is neither", () => {
    const a = tempDir();
    const dir = writeRun(a, id, {});
    expect(discoverRuns([dir]).map((r) => r.runDir)).toEqual([dir]);
    const empty = tempDir();
    expect(() => discoverRuns([empty])).toThrow(/no runs\/ folder/);
    expect(() => discoverRuns([join(empty, "nope")])).toThrow(/not found/);
  });

  it("requires steps, episodes and checkpoints; reads the optional files when present", async () => {
    const a = tempDir();
    const dir = writeRun(a, id, {
      steps: [step(id, { episode: 1, step: 0, s: 1, r: 1 })],
      episodes: [episode(id, { phase: "explore", episode: 1, score: 1 })],
      checkpoints: [checkpoint(id, 0, [1])],
    });
    const call = {
      run_id: "r1",
      purpose: "step",
      phase: "explore",
      checkpoint: null,
      episode: 1,
      step: 0,
      tokens_in: 1,
      tokens_out: 1,
      tokens_cached: null,
      latency_ms: 3,
      retries: 0,
      cached: false,
      error: null,
      cost_usd: null,
    };
    writeFileSync(join(dir, "calls.jsonl"), JSON.stringify(call) + "\n");
    const recs = await readRunRecords(dir);
    expect([recs.steps.length, recs.episodes.length, recs.checkpoints.length, recs.calls.length, recs.memory.length]).toEqual([1, 1, 1, 1, 0]);
    expect(recs.manifest).toBeNull();

    const broken = join(a, "runs", "broken");
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, "steps.jsonl"), "");
    writeFileSync(join(broken, "episodes.jsonl"), "");
    await expect(readRunDir(broken, { step: () => undefined })).rejects.toThrow(/checkpoints\.jsonl.*missing required file/);
  });

  it("validates manifest.json and names its field", async () => {
    const a = tempDir();
    const dir = writeRun(a, id, {});
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ run_id: "r1", model: "m", game: "snake", pathway: "history" }));
    const e = (await readRunRecords(dir).catch((x: unknown) => x)) as LogFormatError;
    expect(e).toBeInstanceOf(LogFormatError);
    expect(e.file).toMatch(/manifest\.json$/);
    expect(e.field).toBe("kit_version");
  });
});
