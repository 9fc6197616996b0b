/**
 * The data behind the figures' intervals and captions, on a hand-made data set:
 *
 * Game g (reward range [0, 2] from the steps), 10 bins of width 0.2; s = 0 -> bin 0, s = 2 -> bin 9.
 *   history run H steps (s, r): (0,0) (0,0) (2,2) (2,1);  memory run M: (0,1) (2,2)
 *   bin 0: r {0, 0 | 1} -> n 3, r_mean 1/3, 2 runs;  bin 9: r {2, 1 | 2} -> n 3, r_mean 5/3, 2 runs
 *   cluster bootstrap over the two runs: {H,H} {H,M} {M,H} {M,M} with chances 1/4, 1/2, 1/4
 *     bin 0 means 0, 1/3, 1 -> 95% interval [0, 1];  bin 9 means 3/2, 5/3, 2 -> [3/2, 2]
 * Game h, one history run: steps (1,1) (1,3) (range [1, 3]): bin 0 r {1, 3}: mean 2, steps
 *   resampled: {1,1} {1,3} {3,1} {3,3} -> 1, 2, 2, 3 -> 95% interval [1, 3]
 * Training run T on g: epoch 0 scores [1], epoch 1 [2, 4], epoch 2 failed
 *   -> points (0: y 1, [1, 1], n 1), (1: y 3, [2, 4], n 2); no point at epoch 2
 * Curves: H checkpoints 0: [1, 1], 3: [2, 4] -> n_runs 1, n_episodes 2 at each x
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset, type Dataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { Report } from "../../src/report/entries.js";
import { curveRecords, exploreRecords, tempDir, writeRun } from "./helpers.js";

const H = { run_id: "g.history.m", model: "m", game: "g", pathway: "history" };
const M = { run_id: "g.memory.m", model: "m", game: "g", pathway: "memory" };
const H2 = { run_id: "h.history.m", model: "m", game: "h", pathway: "history" };
const T = { run_id: "g.training.m", model: "m", game: "g", pathway: "training" };

let report: Report;
let ds: Dataset;
beforeAll(async () => {
  const dir = tempDir();
  const hc = curveRecords(H, [
    [0, [1, 1]],
    [3, [2, 4]],
  ]);
  const he = exploreRecords(H, {
    1: [
      [0, 0],
      [0, 0],
    ],
    2: [
      [2, 2],
      [2, 1],
    ],
  });
  writeRun(dir, H, { checkpoints: hc.checkpoints, episodes: [...hc.episodes, ...he.episodes], steps: he.steps });
  const mc = curveRecords(M, [
    [0, [0, 0]],
    [3, [1, 1]],
  ]);
  const me = exploreRecords(M, { 1: [[0, 1]], 2: [[2, 2]] });
  writeRun(dir, M, { checkpoints: mc.checkpoints, episodes: [...mc.episodes, ...me.episodes], steps: me.steps });
  const h2c = curveRecords(H2, [[0, [1]]]);
  const h2e = exploreRecords(H2, {
    1: [
      [1, 1],
      [1, 3],
    ],
  });
  writeRun(dir, H2, { checkpoints: h2c.checkpoints, episodes: [...h2c.episodes, ...h2e.episodes], steps: h2e.steps });
  const tc = curveRecords(T, [
    [0, [1]],
    [1, [2, 4]],
    [2, null],
  ]);
  writeRun(dir, T, { checkpoints: tc.checkpoints, episodes: tc.episodes });
  ds = await loadDataset(dir);
  report = buildReport(ds, { B: 2000, seed: 3 });
});

describe("calibration bins", () => {
  it("per bin: means, steps, runs, and a cluster-bootstrap interval over runs", () => {
    const g = report.calibration.filter((b) => b.game === "g");
    expect(g.map((b) => [b.bin, b.n, b.n_runs])).toEqual([
      [0, 3, 2],
      [9, 3, 2],
    ]);
    expect(g[0]!.s_mean).toBe(0);
    expect(g[0]!.r_mean).toBeCloseTo(1 / 3, 12);
    expect(g[0]!.r_lo).toBeCloseTo(0, 12);
    expect(g[0]!.r_hi).toBeCloseTo(1, 12);
    expect(g[1]!.s_mean).toBe(2);
    expect(g[1]!.r_mean).toBeCloseTo(5 / 3, 12);
    expect(g[1]!.r_lo).toBeCloseTo(1.5, 12);
    expect(g[1]!.r_hi).toBeCloseTo(2, 12);
  });

  it("a game with one run resamples the bin's steps", () => {
    const [b] = report.calibration.filter((x) => x.game === "h");
    expect([b!.bin, b!.n, b!.n_runs, b!.r_mean, b!.r_lo, b!.r_hi]).toEqual([0, 2, 1, 2, 1, 3]);
  });

  it("without resamples (B = 0) the bins keep their means and have no interval", () => {
    const r0 = buildReport(ds, { B: 0 });
    expect(r0.calibration.map((b) => [b.game, b.bin, b.r_lo, b.r_hi])).toEqual([
      ["g", 0, null, null],
      ["g", 9, null, null],
      ["h", 0, null, null],
    ]);
    expect(r0.training[0]!.points[1]).toEqual({ x: 1, y: 3, lo: null, hi: null, n: 2, n_seeds: 1, indicative: false });
  });
});

describe("training points", () => {
  it("valid epochs only, each with its episodes' interval and count", () => {
    const [s] = report.training;
    expect(s!.points).toEqual([
      { x: 0, y: 1, lo: 1, hi: 1, n: 1, n_seeds: 1, indicative: false },
      { x: 1, y: 3, lo: 2, hi: 4, n: 2, n_seeds: 1, indicative: false },
    ]);
    // One loop seed: the band is its own episodes', and its line is the one seed's.
    expect([s!.band, s!.seeds.map((x) => x.points.map((p) => p.y))]).toEqual(["episodes", [[1, 3]]]);
  });
});

describe("curve points", () => {
  it("carry the runs and evaluation episodes behind each mean", () => {
    const h = report.curves.find((c) => c.game === "g" && c.pathway === "history")!;
    expect(h.points.map((p) => [p.x, p.y, p.n_runs, p.n_episodes])).toEqual([
      [0, 1, 1, 2],
      [3, 3, 1, 2],
    ]);
  });
});
