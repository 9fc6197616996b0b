/** The views' metrics (views.md) on hand-computed seed x checkpoint matrices. */
import { describe, expect, it } from "vitest";
import type { SeedCurve } from "../../src/analysis/stats/seedCurves.js";
import { disagreement, forgetting, transferGain, updateGains, weightedCurve } from "../../src/analysis/metrics/viewMetrics.js";
import { isSolved, successThreshold } from "../../src/games/successThreshold.js";

/** rows[c][k]: the score of seed keys[k] at checkpoint xs[c] (null = not played). */
function sc(xs: number[], keys: number[], rows: (number | null)[][]): SeedCurve {
  return { run_id: "r", game: "snake", xs, keys, pairedBy: "seed", scores: Float64Array.from(rows.flat().map((v) => (v === null ? Number.NaN : v))) };
}

// Two seeds over checkpoints 0, 3, 6, 9: y = 0.3, 0.7, 0.7, 0.3.
const idView = sc(
  [0, 3, 6, 9],
  [10, 11],
  [
    [0.2, 0.4],
    [0.8, 0.6],
    [0.6, 0.8],
    [0.4, 0.2],
  ],
);

describe("transfer gain (IDG / OODG) and the best intermediate snapshot", () => {
  it("final gain 0, best snapshot at x=3 (x=6 ties: the earliest), regression 0.4", () => {
    const g = transferGain(weightedCurve(idView));
    expect(g.y0).toBeCloseTo(0.3, 12);
    expect(g.last_x).toBe(9);
    expect(g.final_gain).toBeCloseTo(0, 12);
    expect(g.best_x).toBe(3);
    expect(g.best_gain).toBeCloseTo(0.4, 12);
    expect(g.regression).toBeCloseTo(0.4, 12);
  });
  it("a failed last checkpoint leaves the final gain missing, never an earlier checkpoint's", () => {
    const g = transferGain(
      [
        { x: 0, y: 1 },
        { x: 3, y: 2 },
        { x: 6, y: null },
      ],
      6,
    );
    expect(g.final_gain).toBeNull();
    expect(g.regression).toBeNull();
    expect(g.best_x).toBe(3);
    // a schedule whose last checkpoint was never recorded (lastX beyond the curve): missing too.
    expect(
      transferGain(
        [
          { x: 0, y: 1 },
          { x: 3, y: 2 },
        ],
        6,
      ).final_gain,
    ).toBeNull();
  });
  it("no intermediate snapshot: best and regression missing; a rising curve regresses 0", () => {
    expect(
      transferGain([
        { x: 0, y: 1 },
        { x: 3, y: 2 },
      ]),
    ).toMatchObject({ final_gain: 1, best_x: null, best_gain: null, regression: null });
    expect(
      transferGain([
        { x: 0, y: 1 },
        { x: 3, y: 2 },
        { x: 6, y: 4 },
      ]),
    ).toMatchObject({ final_gain: 3, best_x: 3, best_gain: 1, regression: 0 });
  });
});

describe("update gains and the rate at which an update helps one view and hurts another", () => {
  it("UVG(x) = y(x) - y(previous checkpoint) per seed", () => {
    const u = updateGains(idView);
    expect(u.map((g) => [g.x, g.from, g.n])).toEqual([
      [3, 0, 2],
      [6, 3, 2],
      [9, 6, 2],
    ]);
    expect(u[0]!.uvg).toBeCloseTo(0.4, 12); // (0.6 + 0.2) / 2
    expect(u[1]!.uvg).toBeCloseTo(0, 12); // (-0.2 + 0.2) / 2
    expect(u[2]!.uvg).toBeCloseTo(-0.4, 12); // (-0.2 - 0.6) / 2
  });
  it("seed weights: seed 11 counted twice", () => {
    expect(updateGains(idView, [1, 2])[0]!.uvg).toBeCloseTo((0.6 + 2 * 0.2) / 3, 12);
  });
  it("disagreement: +0.4 vs -0.1 disagrees; 0 vs +0.3 does not (0 neither helps nor hurts); two losses do not", () => {
    const other = [
      { x: 3, from: 0, uvg: -0.1, n: 1 },
      { x: 6, from: 3, uvg: 0.3, n: 1 },
      { x: 9, from: 6, uvg: -0.2, n: 1 },
      { x: 12, from: 9, uvg: 0.5, n: 1 }, // only one view has x = 12: not an update of two views
    ];
    expect(disagreement([updateGains(idView), other])).toEqual({ n_updates: 3, n_disagree: 1, rate: 1 / 3 });
    expect(disagreement([other])).toEqual({ n_updates: 0, n_disagree: 0, rate: null });
  });
});

describe("forgetting on replay", () => {
  // Replay view, checkpoints 2 and 4: seeds a, b re-played from 2 on, c (explored third) from 4 on.
  const replay = sc(
    [2, 4],
    [100, 102, 104],
    [
      [1, 0, null],
      [0, 1, 1],
    ],
  );
  it("threshold 1: a forgotten, b fixed, c kept; FR = max(0, 2/3 - 2/3) = 0; UVG compares only seeds played at both", () => {
    const f = forgetting(replay, 1);
    expect(f.seeds.map((s) => [s.seed, s.first_x, s.outcome])).toEqual([
      [100, 2, "forgotten"],
      [102, 2, "fixed"],
      [104, 4, "kept"],
    ]);
    expect([f.fixed, f.forgotten, f.kept, f.never]).toEqual([1, 1, 1, 0]);
    expect(f.y_first).toBeCloseTo(2 / 3, 12);
    expect(f.y_last).toBeCloseTo(2 / 3, 12);
    expect(f.fr).toBe(0);
    expect(updateGains(replay)).toEqual([{ x: 4, from: 2, uvg: 0, n: 2 }]);
  });
  it("FR is the drop of the mean: first (1 + 0.5) / 2, last (0 + 0.5) / 2, FR 0.5; threshold 0.5 keeps b", () => {
    const f = forgetting(
      sc(
        [2, 4],
        [1, 2],
        [
          [1, 0.5],
          [0, 0.5],
        ],
      ),
      0.5,
    );
    expect(f.fr).toBeCloseTo(0.5, 12);
    expect([f.fixed, f.forgotten, f.kept, f.never]).toEqual([0, 1, 1, 0]);
    // A rise is not forgetting: FR clips at 0.
    expect(forgetting(sc([2, 4], [1], [[0], [1]]), 1).fr).toBe(0);
  });
  it("a seed not played at the last checkpoint is not counted; no checkpoint: nothing", () => {
    const f = forgetting(
      sc(
        [2, 4],
        [1, 2],
        [
          [1, 1],
          [1, null],
        ],
      ),
      1,
    );
    expect(f.seeds.map((s) => s.seed)).toEqual([1]);
    expect(forgetting(sc([], [], []), 1)).toMatchObject({ last_x: null, fr: null, seeds: [] });
  });
});

describe("success threshold", () => {
  it("one number per game, declared beside its configs; null for a name that is no game", () => {
    expect(Object.fromEntries(["chess", "minesweeper", "nullify", "tetris", "snake", "pvz", "trust"].map((g) => [g, successThreshold(g)]))).toEqual({
      chess: 1,
      minesweeper: 1,
      nullify: 1,
      tetris: 3,
      snake: 3,
      pvz: 32,
      trust: 40,
    });
    expect(successThreshold("go")).toBeNull();
  });
  it("solved is >=: a won game (score 1) reaches 1, 0.99 does not", () => {
    expect(isSolved(1, 1)).toBe(true);
    expect(isSolved(0.99, 1)).toBe(false);
  });
});
