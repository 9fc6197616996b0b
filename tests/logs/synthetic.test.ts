/**
 * The synthetic generator: deterministic, shaped as asked, and written through the log writer (so
 * validated against the schemas), with the torn last line its one deliberate exception.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { SYNTHETIC_TORN_LINE, syntheticRuns, type SyntheticOptions } from "../../src/logs/syntheticRuns.js";
import { readRunRecords } from "../../src/logs/reader.js";
import { CheckpointRecord, EpisodeRecord, RunManifest, StepRecord } from "../../src/logs/schema.js";
import { InvalidRecordError } from "../../src/logs/writer.js";
import { tempDir } from "../analysis/helpers.js";

function digest(dir: string): string {
  const h = createHash("sha256");
  const runs = join(dir, "runs");
  for (const r of readdirSync(runs).sort()) {
    for (const f of readdirSync(join(runs, r)).sort()) h.update(`${r}/${f}\n`).update(readFileSync(join(runs, r, f)));
  }
  return h.digest("hex");
}

const opts: SyntheticOptions = {
  models: ["a", "b"],
  games: ["snake", "minesweeper"],
  exploreEpisodes: 6,
  stepsPerEpisode: [2, 4],
  training: { models: ["t"], epochs: 3 },
};

describe("writeSyntheticData", () => {
  it("is deterministic from its seed", async () => {
    const a = tempDir();
    const b = tempDir();
    const c = tempDir();
    await writeSyntheticData(a, { ...opts, seed: 5 });
    await writeSyntheticData(b, { ...opts, seed: 5 });
    await writeSyntheticData(c, { ...opts, seed: 6 });
    expect(digest(a)).toBe(digest(b));
    expect(digest(a)).not.toBe(digest(c));
  });

  it("writes valid runs of the requested shape", async () => {
    const dir = tempDir();
    const s = await writeSyntheticData(dir, { ...opts, seed: 2, failRate: 0 });
    // 2 models x 2 games x 2 pathways + 2 training runs
    expect([s.runs, s.trainingRuns]).toEqual([10, 2]);
    const ds = await loadDataset(dir);
    expect(ds.warnings).toEqual([]);
    expect(ds.runs).toHaveLength(10);
    expect(ds.runs.reduce((a, r) => a + r.counts.steps, 0)).toBe(s.steps);
    const hist = ds.runs.find((r) => r.pathway === "history");
    // checkpoints 0, 3, 6 with 3 evaluation episodes each; 6 exploration episodes of 2..4 steps
    expect(hist?.checkpoints.map((c) => [c.x, c.scores.length])).toEqual([
      [0, 3],
      [3, 3],
      [6, 3],
    ]);
    expect(hist?.explore?.length).toBeGreaterThanOrEqual(12);
    expect(hist?.explore?.length).toBeLessThanOrEqual(24);
    const tr = ds.runs.find((r) => r.pathway === "training");
    expect(tr?.checkpoints.map((c) => c.x)).toEqual([0, 1, 2]);
    // episode scores are the sum of their step rewards
    const recs = await readRunRecords(join(dir, "runs", hist?.run_id ?? ""));
    const ep1 = recs.steps.filter((x) => x.phase === "explore" && x.episode === 1);
    const score = recs.episodes.find((e) => e.phase === "explore" && e.episode === 1)?.score;
    expect(ep1.reduce((a, x) => a + x.reward, 0)).toBeCloseTo(score ?? Number.NaN, 9);
    expect(recs.manifest?.run_id).toBe(hist?.run_id);
  });

  it("writes the records syntheticRuns makes, each valid against its schema, and counts their bytes", async () => {
    const dir = tempDir();
    const s = await writeSyntheticData(dir, { ...opts, seed: 3, failRate: 0.3 });
    const runs = [...syntheticRuns({ ...opts, seed: 3, failRate: 0.3 })];
    expect(runs.map((r) => r.run_id)).toEqual(s.runIds);
    expect(runs.some((r) => r.manifest.status === "failed")).toBe(true);
    let bytes = 0;
    for (const run of runs) {
      expect(RunManifest.safeParse(run.manifest).success).toBe(true);
      for (const r of run.steps) expect(StepRecord.safeParse(r).success).toBe(true);
      for (const r of run.episodes) expect(EpisodeRecord.safeParse(r).success).toBe(true);
      for (const r of run.checkpoints) expect(CheckpointRecord.safeParse(r).success).toBe(true);
      const rd = join(dir, "runs", run.run_id);
      // One line per record, in order, each the record's JSON.
      expect(readFileSync(join(rd, "steps.jsonl"), "utf8")).toBe(run.steps.map((r) => `${JSON.stringify(r)}\n`).join(""));
      expect(readFileSync(join(rd, "checkpoints.jsonl"), "utf8")).toBe(run.checkpoints.map((r) => `${JSON.stringify(r)}\n`).join(""));
      expect(readFileSync(join(rd, "manifest.json"), "utf8")).toBe(`${JSON.stringify(run.manifest, null, 2)}\n`);
      for (const f of readdirSync(rd)) bytes += statSync(join(rd, f)).size;
    }
    expect(s.bytes).toBe(bytes);
    expect(s.steps).toBe(runs.reduce((a, r) => a + r.steps.length, 0));
  });

  it("refuses a record the schema rejects (the writer validates every line)", async () => {
    // An empty model name breaks the identity's min(1): the old raw JSON.stringify wrote it anyway.
    await expect(writeSyntheticData(tempDir(), { ...opts, models: [""], training: null })).rejects.toThrow(InvalidRecordError);
    await expect(writeSyntheticData(tempDir(), { ...opts, models: [""], training: null })).rejects.toThrow(/model/);
  });

  it("replaces the files of an earlier data set in the same folder (same bytes, nothing appended)", async () => {
    const a = tempDir();
    const b = tempDir();
    await writeSyntheticData(a, { ...opts, seed: 5 });
    await writeSyntheticData(a, { ...opts, seed: 5 });
    await writeSyntheticData(b, { ...opts, seed: 5 });
    expect(digest(a)).toBe(digest(b));
  });

  it("tornLastLine appends half a line, without its newline, past the writer; the reader ignores it as torn", async () => {
    const dir = tempDir();
    const s = await writeSyntheticData(dir, { ...opts, seed: 2, tornLastLine: true });
    const clean = await writeSyntheticData(tempDir(), { ...opts, seed: 2 });
    expect(s.bytes).toBe(clean.bytes + SYNTHETIC_TORN_LINE.length);
    const text = readFileSync(join(dir, "runs", s.runIds[0] as string, "steps.jsonl"), "utf8");
    expect(text.endsWith(`\n${SYNTHETIC_TORN_LINE}`)).toBe(true);
    expect(() => JSON.parse(SYNTHETIC_TORN_LINE)).toThrow();
    const ds = await loadDataset(dir);
    expect(ds.warnings).toHaveLength(1);
    expect(ds.warnings[0]).toMatch(/steps\.jsonl:\d+: torn last line ignored/);
    expect(ds.runs.reduce((a, r) => a + r.counts.steps, 0)).toBe(s.steps);
  });
});
