/** The synthetic generator: deterministic, valid against the schema, and shaped as asked. */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/dataset.js";
import { writeSyntheticData, type SyntheticOptions } from "../../src/analysis/synthetic.js";
import { readRunRecords } from "../../src/logs/reader.js";
import { tempDir } from "./helpers.js";

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
});
