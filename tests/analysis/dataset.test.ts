/** The compact loader: which steps count, duplicates, merging directories, identity conflicts. */
import { appendFileSync, cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { checkpoint, curveRecords, episode, step, tempDir, writeRun } from "./helpers.js";

const H = { run_id: "g.history.m", model: "m", game: "g", pathway: "history" };

describe("loadDataset", () => {
  it("keeps the exploration steps of ok episodes, the last copy of a repeated step, in (episode, step) order", async () => {
    const dir = tempDir();
    const cur = curveRecords(H, [
      [0, [1, 3]],
      [3, [2]],
    ]);
    writeRun(dir, H, {
      checkpoints: cur.checkpoints,
      episodes: [...cur.episodes, episode(H, { phase: "explore", episode: 1 }), episode(H, { phase: "explore", episode: 2, status: "failed" })],
      steps: [
        step(H, { episode: 1, step: 0, s: 9, r: 0 }), // interrupted attempt: superseded below
        step(H, { episode: 1, step: 1, s: 9, r: 0 }),
        step(H, { episode: 2, step: 0, s: 1, r: 1 }), // failed episode: left out
        step(H, { episode: 3, step: 0, s: 1, r: 1 }), // no episode record: left out
        step(H, { phase: "eval", checkpoint: 0, episode: 0, step: 0, s: 1, r: 1 }), // eval: not judged
        step(H, { episode: 1, step: 1, s: null, r: 2 }), // re-run from the start
        step(H, { episode: 1, step: 0, s: 0.5, r: 1 }),
      ],
    });
    const ds = await loadDataset(dir);
    expect(ds.runs).toHaveLength(1);
    const run = ds.runs[0];
    expect([...(run?.explore?.s ?? [])]).toEqual([0.5, Number.NaN]);
    expect([...(run?.explore?.r ?? [])]).toEqual([1, 2]);
    expect([...(run?.explore?.episode ?? [])]).toEqual([1, 1]);
    expect(run?.counts.evalSteps).toBe(1);
    expect(ds.warnings.some((w) => /2 exploration step\(s\) without an ok episode/.test(w))).toBe(true);
    // y(0) from the episodes: scores 1 and 3
    expect(run?.checkpoints.map((c) => [c.x, c.valid, c.scores])).toEqual([
      [0, true, [1, 3]],
      [3, true, [2]],
    ]);
  });

  it("takes validity from checkpoints.jsonl and scores from ok eval episodes (record scores as fallback)", async () => {
    const dir = tempDir();
    writeRun(dir, H, {
      checkpoints: [checkpoint(H, 0, [5, 5]), checkpoint(H, 3, null), checkpoint(H, 6, [7])],
      episodes: [
        episode(H, { phase: "eval", checkpoint: 0, episode: 1, score: 2 }),
        episode(H, { phase: "eval", checkpoint: 0, episode: 0, score: 6 }),
        episode(H, { phase: "eval", checkpoint: 0, episode: 2, score: 100, status: "failed" }),
        episode(H, { phase: "eval", checkpoint: 3, episode: 0, score: 5 }), // checkpoint 3 failed: no value
        episode(H, { phase: "eval", checkpoint: 9, episode: 0, score: 5 }), // no checkpoint record: ignored
      ],
    });
    const ds = await loadDataset(dir);
    const cps = ds.runs[0]?.checkpoints ?? [];
    expect(cps.map((c) => [c.x, c.status, c.valid, c.scores])).toEqual([
      [0, "ok", true, [6, 2]],
      [3, "failed", false, []],
      [6, "ok", true, [7]], // no eval episodes: the record's scores
    ]);
    expect(ds.warnings.some((w) => /record mean 5 differs from its episodes' mean 4/.test(w))).toBe(true);
    expect(ds.warnings.some((w) => /checkpoint\(s\) 9 have no checkpoint record/.test(w))).toBe(true);
  });

  it("merges shard directories, and counts a run copied into two directories once", async () => {
    const a = tempDir();
    const b = tempDir();
    const M = { ...H, run_id: "g.memory.m", pathway: "memory" };
    const rec = (id: typeof H) => ({
      checkpoints: [checkpoint(id, 0, [1])],
      episodes: [episode(id, { phase: "eval", checkpoint: 0, episode: 0, score: 1 }), episode(id, { phase: "explore", episode: 1 })],
      steps: [step(id, { episode: 1, step: 0, s: 1, r: 1 }), step(id, { episode: 1, step: 1, s: 0, r: 0 })],
    });
    writeRun(a, H, rec(H));
    writeRun(b, M, rec(M));
    const merged = await loadDataset([a, b]);
    expect(merged.runs.map((r) => r.run_id)).toEqual(["g.history.m", "g.memory.m"]);
    cpSync(join(a, "runs"), join(b, "runs"), { recursive: true });
    const twice = await loadDataset([a, b]);
    expect(twice.runs).toHaveLength(2);
    expect(twice.runs[0]?.explore?.length).toBe(2);
    expect(twice.runs[0]?.sources).toHaveLength(2);
  });

  it("filters models, and leaves out (naming file, line and field) a run whose records disagree on identity", async () => {
    const dir = tempDir();
    writeRun(dir, H, { checkpoints: [checkpoint(H, 0, [1])] });
    const other = { ...H, run_id: "x", model: "other" };
    writeRun(dir, other, { checkpoints: [checkpoint(other, 0, [1])] });
    expect((await loadDataset(dir, { models: ["other"] })).runs.map((r) => r.model)).toEqual(["other"]);
    appendFileSync(join(dir, "runs", H.run_id, "checkpoints.jsonl"), JSON.stringify(checkpoint({ ...H, game: "h" }, 3, [1])) + "\n");
    // One bad run never takes the others down (issue 32): the other run is still loaded.
    const ds = await loadDataset(dir);
    expect(ds.runs.map((r) => r.run_id)).toEqual(["x"]);
    const w = ds.warnings.find((m) => m.startsWith(`left out run ${H.run_id}:`));
    expect(w).toContain("checkpoints.jsonl:2: field 'game'");
  });

  it("warns when a checkpoint's record outlived its episodes, and on gaps in step indices (issue 12)", async () => {
    const dir = tempDir();
    writeRun(dir, H, {
      checkpoints: [checkpoint(H, 0, [1, 3]), checkpoint(H, 3, [2])],
      episodes: [
        episode(H, { phase: "eval", checkpoint: 0, episode: 0, score: 1 }), // episode 1 of checkpoint 0 is gone
        { ...episode(H, { phase: "eval", checkpoint: 3, episode: 0, score: 2 }), steps: 3 },
        { ...episode(H, { phase: "explore", episode: 1 }), steps: 2 },
      ],
      steps: [
        step(H, { phase: "eval", checkpoint: 0, episode: 0, step: 0, s: 1, r: 1 }),
        step(H, { phase: "eval", checkpoint: 3, episode: 0, step: 0, s: 1, r: 1 }),
        step(H, { phase: "eval", checkpoint: 3, episode: 0, step: 2, s: 1, r: 1 }), // step 1 missing
        step(H, { episode: 1, step: 0, s: 1, r: 1 }),
        step(H, { episode: 1, step: 1, s: 1, r: 1 }),
      ],
    });
    const ds = await loadDataset(dir);
    expect(ds.warnings).toEqual([
      "run g.history.m: 1 episode(s) with gaps in their step indices: eval episode 0 of checkpoint 3 (record: 3 steps; on disk: 2; missing step 1)",
      "run g.history.m: checkpoint 0 lists 2 evaluation score(s) but only 1 of its evaluation episodes are in episodes.jsonl; the episodes on disk are used (rerun the same command to play the missing ones)",
      "run g.history.m: checkpoint 0 record mean 2 differs from its episodes' mean 1; the episodes are used",
    ]);
  });

  it("reports a torn last line and goes on", async () => {
    const dir = tempDir();
    const d = writeRun(dir, H, { checkpoints: [checkpoint(H, 0, [1])] });
    appendFileSync(join(d, "episodes.jsonl"), '{"run_id":"g.history.m","mod');
    const seen: string[] = [];
    const ds = await loadDataset(dir, { onWarning: (w) => seen.push(w) });
    expect(ds.runs).toHaveLength(1);
    // The torn line, and (issue 12) that the checkpoint's record is not backed by any episode.
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/episodes\.jsonl:1: torn last line ignored/);
    expect(seen[1]).toMatch(/checkpoint 0 lists 1 evaluation score\(s\) but only 0 of its evaluation episodes are in episodes\.jsonl/);
  });
});
