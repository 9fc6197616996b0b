/**
 * Figure 7 over loop seeds, hand-computed. Three loops of model m on game g (run seeds 0, 100, 200):
 *   d_final 1, 2, 6 -> mean 3; resampling three values, the smallest mean (1) and the largest (6) each
 *   come up with probability 1/27 = 3.7% > 2.5%, so the 95% percentile interval is exactly [1, 6].
 *   epoch 0: 0, 3, 6 -> 3 over 3 seeds; epoch 1 evaluated by two seeds only: 1, 5 -> 3 over 2 seeds.
 * One loop of model m on game h: its numbers as they are, no interval, n_seeds 1.
 */
import { describe, expect, it } from "vitest";
import type { TrainingRow, TrainingSeries } from "../../src/analysis/tables/curveTables.js";
import { trainingBands, trainingEpochsTable, trainingSeedRows, trainingTable } from "../../src/analysis/tables/trainingSeeds.js";
import { toCsv } from "../../src/report/tables.js";

const CFG = { B: 2000, seed: 0, level: 0.95 };
const metrics = { y0: 0, y_final: 0, avg: 0, max: 0, auc_plus: 0, n_above: 0, n_updated: 1 };
const row = (game: string, run_seed: number, d_final: number): TrainingRow => ({ model: "m", game, run_id: `${game}.${run_seed}`, run_seed, ...metrics, d_final });
const series = (game: string, run_seed: number, ys: (number | null)[]): TrainingSeries => ({
  model: "m",
  game,
  run_id: `${game}.${run_seed}`,
  run_seed,
  points: ys.flatMap((y, x) => (y === null ? [] : [{ x, y, lo: y - 1, hi: y + 1, n: 3 }])),
});

describe("training over loop seeds", () => {
  const rows = trainingSeedRows([row("g", 200, 6), row("g", 0, 1), row("g", 100, 2), row("h", 0, -2)], CFG);

  it("a row per (model, game): the mean over seeds with the percentile interval over them, marked indicative", () => {
    const g = rows.find((r) => r.game === "g")!;
    expect([g.n_seeds, g.run_seeds]).toEqual([3, "0 100 200"]);
    expect(g.d_final).toEqual({ point: 3, lo: 1, hi: 6, n: 3, indicative: true });
    const h = rows.find((r) => r.game === "h")!;
    expect([h.n_seeds, h.d_final]).toEqual([1, { point: -2, lo: null, hi: null, n: 1 }]);
    const table = trainingTable(rows, CFG);
    expect(toCsv(table).split("\n")[0]).toContain("model,game,n_seeds,run_seeds,y0,y0_lo,y0_hi,y0_n");
    expect(table.notes.join(" ")).toMatch(/n=K beside an interval: it rests on K loops/);
    expect(table.notes.join(" ")).toMatch(/n_seeds 1: one loop, no interval/);
  });

  it("Figure 7's points: each epoch's mean over the seeds that evaluated it; one seed keeps its episodes' band", () => {
    const bands = trainingBands([series("g", 0, [0, 1]), series("g", 100, [3, null]), series("g", 200, [6, 5]), series("h", 0, [2, 4])], CFG);
    const g = bands.find((b) => b.game === "g")!;
    expect(g.band).toBe("seeds");
    expect(g.points.map((p) => [p.x, p.y, p.n_seeds])).toEqual([
      [0, 3, 3],
      [1, 3, 2],
    ]);
    // Two seeds 1 and 5: the resampled means are 1, 3, 5 -> the interval is [1, 5].
    expect([g.points[1]!.lo, g.points[1]!.hi]).toEqual([1, 5]);
    expect(g.seeds.map((s) => s.run_seed)).toEqual([0, 100, 200]);
    const h = bands.find((b) => b.game === "h")!;
    expect(h.band).toBe("episodes");
    expect(h.points[1]).toEqual({ x: 1, y: 4, lo: 3, hi: 5, n: 3, n_seeds: 1, indicative: false });
    const epochs = trainingEpochsTable(bands, CFG);
    expect(epochs.rows.map((r) => [r.game, r.epoch, r.score.point, r.n_seeds])).toEqual([
      ["g", 0, 3, 3],
      ["g", 1, 3, 2],
      ["h", 0, 2, 1],
      ["h", 1, 4, 1],
    ]);
    expect(epochs.rows[0]!.score).toMatchObject({ n: 3, indicative: true });
    expect(epochs.notes.join(" ")).toContain("One loop seed (interval: its evaluation episodes resampled): m / h.");
  });
});
