/** Data frames for ad hoc work: plain columns and danfojs DataFrames of a hand-made data set. */
import { describe, expect, it } from "vitest";
import { loadColumns, loadFrames } from "../../src/analysis/frames.js";
import { curveRecords, exploreRecords, tempDir, writeRun } from "./helpers.js";

const H = { run_id: "g.history.m", model: "m", game: "g", pathway: "history" };

function fixture(): string {
  const dir = tempDir();
  const c = curveRecords(H, [
    [0, [1, 3]],
    [3, null],
    [6, [4]],
  ]);
  const e = exploreRecords(H, { 1: [[1, 1], [null, 0]], 2: [[0, 1]] });
  writeRun(dir, H, { checkpoints: c.checkpoints, episodes: [...c.episodes, ...e.episodes], steps: e.steps });
  return dir;
}

describe("loadColumns", () => {
  it("gives plain columns without step text by default; nulls in numeric columns as NaN", async () => {
    const cols = await loadColumns(fixture());
    expect(cols.steps.self_score).toEqual([1, Number.NaN, 0]);
    expect(cols.steps.observation).toBeUndefined();
    expect(cols.episodes.status).toEqual(["ok", "ok", "failed", "ok", "ok", "ok"]);
    expect(cols.checkpoints.mean).toEqual([2, Number.NaN, 4]);
    // runs: y0 = 2, curve 2, -, 4 -> Avg 3, Max 4, AUC+ = 6 * (0 + 2) / 2 = 6, NABA 3 ; Agree: (1,1) agree, (0,1) under -> 1/2
    expect(cols.runs.run_id).toEqual(["g.history.m"]);
    expect([cols.runs.y0?.[0], cols.runs.avg?.[0], cols.runs.max?.[0], cols.runs.auc_plus?.[0], cols.runs.naba?.[0]]).toEqual([2, 3, 4, 6, 3]);
    expect(cols.runs.agree?.[0]).toBe(0.5);
    expect(cols.runs.n_unscored?.[0]).toBe(1);
  });

  it("keeps the text columns when asked", async () => {
    const cols = await loadColumns(fixture(), { text: true });
    expect(cols.steps.observation).toEqual(["board", "board", "board"]);
  });
});

describe("loadFrames", () => {
  it("wraps the columns in danfojs DataFrames", async () => {
    const f = await loadFrames(fixture());
    expect(f.steps.shape).toEqual([3, 20]);
    expect(f.episodes.shape[0]).toBe(6);
    expect(f.checkpoints.shape[0]).toBe(3);
    expect(f.runs.shape[0]).toBe(1);
    expect(f.runs.columns).toContain("naba");
  });
});
