/** Coupling metrics, hand-computed (metrics.md, "Blockwise judgment-improvement coupling"). */
import fc from "fast-check";
import * as ss from "simple-statistics";
import { describe, expect, it } from "vitest";
import { WeightedSpearman, checkpointSpacing, couplingStats, pearson, pearsonWeighted, resampleWeights, runBlocks, spearman, tertileGap } from "../../src/analysis/metrics/coupling.js";
import type { CurvePoint } from "../../src/analysis/metrics/curves.js";
import { addStep, emptyCounts, type JudgingCounts } from "../../src/analysis/metrics/judging.js";

describe("correlations", () => {
  it("Spearman uses average ranks for ties", () => {
    // ranks x = 1, 2.5, 2.5, 4 ; y = 1, 2, 3, 4. Centered: x -1.5 0 0 1.5 ; y -1.5 -0.5 0.5 1.5
    // cov = 2.25 + 0 + 0 + 2.25 = 4.5 ; sxx = 4.5 ; syy = 5 -> 4.5 / sqrt(22.5)
    expect(spearman([1, 2, 2, 3], [1, 2, 3, 4])).toBeCloseTo(4.5 / Math.sqrt(22.5), 12);
    // ties on both sides: x ranks 1.5 1.5 3 ; y ranks 1 2.5 2.5 -> centered x -0.5 -0.5 1, y -1 0.5 0.5
    // cov = 0.5 - 0.25 + 0.5 = 0.75 ; sxx = 1.5 ; syy = 1.5 -> 0.5
    expect(spearman([7, 7, 9], [1, 4, 4])).toBeCloseTo(0.5, 12);
  });

  it("Spearman is 1 for any monotone relation and -1 for a reversed one", () => {
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [10, 5, 2, 1])).toBeCloseTo(-1, 12);
  });

  it("Pearson, hand-computed", () => {
    // x 1 2 3, y 2 4 7: cov sum 5 ; sxx 2 ; syy 114/9
    expect(pearson([1, 2, 3], [2, 4, 7])).toBeCloseTo(5 / Math.sqrt(2 * (114 / 9)), 12);
  });

  it("is missing for a constant variable or fewer than two points", () => {
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(pearson([1, 2, 3], [4, 4, 4])).toBeNull();
    expect(spearman([1], [2])).toBeNull();
    expect(spearman([], [])).toBeNull();
  });
});

describe("tertile gap", () => {
  it("n = 7 (not divisible by 3): thirds of floor(7/3) = 2 blocks", () => {
    // ascending by key, ties by block order: idx1(k1,g20) idx5(k2,g60) idx2(k3,g30) idx3(k3,g40) idx0(k5,g10) idx6(k6,g70) idx4(k7,g50)
    // bottom = g 20, 60 -> 40 ; top = g 70, 50 -> 60 ; gap 20
    expect(tertileGap([5, 1, 3, 3, 7, 2, 6], [10, 20, 30, 40, 50, 60, 70])).toBeCloseTo(20, 12);
  });

  it("ties do not depend on block order: a tied group's places take its mean g", () => {
    // all keys equal: both thirds are two places of the one group, mean 3.5 -> gap 0 in any order
    expect(tertileGap([1, 1, 1, 1, 1, 1], [1, 2, 3, 4, 5, 6])).toBe(0);
    expect(tertileGap([1, 1, 1, 1, 1, 1], [6, 5, 4, 3, 2, 1])).toBe(0);
    // keys 1, 2, 2, 3 (k = 1): top = 3's g, bottom = 1's g; the tie never reaches an edge
    expect(tertileGap([2, 1, 3, 2], [5, 1, 9, 7])).toBe(8);
  });

  it("n = 8: thirds of 2; n < 3: missing", () => {
    // keys ascending = order; bottom g 1, 2 ; top g 7, 8 -> 7.5 - 1.5
    expect(tertileGap([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8])).toBe(6);
    expect(tertileGap([1, 2], [1, 2])).toBeNull();
  });
});

/** Counts of one episode from [s, r] pairs (game range given). */
function ep(pairs: [number | null, number][], range = { min: 0, max: 2 }): JudgingCounts {
  const acc = emptyCounts();
  for (const [s, r] of pairs) addStep(acc, s, r, range);
  return acc;
}

describe("runBlocks", () => {
  const range = { min: 0, max: 2 };
  const episodes = new Map<number, JudgingCounts>([
    [
      1,
      ep([
        [1, 1],
        [0, 0],
      ]),
    ], // agree, agree ; abs err 0, 0
    [2, ep([[1, 0]])], // over ; |1 - 0| = 1
    [3, ep([[null, 2]])], // unscored
    [4, ep([[0, 1]])], // under ; 1
    [5, ep([[2, 2]])], // agree ; 0
    [6, ep([[0, 0]])], // agree ; 0
    [7, ep([[null, 0]])],
    [8, ep([[null, 0]])],
    [9, ep([[null, 1]])], // block 9 has no scored step
  ]);

  it("computes A_t, E_t, g_t for blocks with both checkpoints valid", () => {
    // y: x0 = 1, x3 = 3, x6 = 2, x9 = 2.5 ; spread = 3 - 1 = 2
    const curve: CurvePoint[] = [
      { x: 0, y: 1 },
      { x: 3, y: 3 },
      { x: 6, y: 2 },
      { x: 9, y: 2.5 },
    ];
    const blocks = runBlocks(curve, episodes, range);
    expect(blocks.map((b) => b.t)).toEqual([3, 6]); // block 9: no scored step
    // t=3: eps 1..3, scored 3, agree 2 -> A = 2/3 ; abs err 1 -> E = 1 / 3 / 2 ; g = (3 - 1) / 2
    expect(blocks[0]?.A).toBeCloseTo(2 / 3, 12);
    expect(blocks[0]?.E).toBeCloseTo(1 / 6, 12);
    expect(blocks[0]?.g).toBeCloseTo(1, 12);
    // t=6: eps 4..6, agree 2 of 3 ; abs err 1 ; g = (2 - 3) / 2
    expect(blocks[1]?.A).toBeCloseTo(2 / 3, 12);
    expect(blocks[1]?.E).toBeCloseTo(1 / 6, 12);
    expect(blocks[1]?.g).toBeCloseTo(-0.5, 12);
  });

  it("skips blocks touching a failed checkpoint, and max/min use only valid checkpoints", () => {
    // x3 failed: blocks 3 and 6 dropped ; block 9 has no scored step -> none left.
    const curve: CurvePoint[] = [
      { x: 0, y: 1 },
      { x: 3, y: null },
      { x: 6, y: 2 },
      { x: 9, y: 2.5 },
    ];
    expect(runBlocks(curve, episodes, range)).toEqual([]);
    // Same, with a scored step in block 9: g = (2.5 - 2) / (2.5 - 1) = 1/3
    const eps2 = new Map(episodes);
    eps2.set(9, ep([[1, 1]]));
    const b = runBlocks(curve, eps2, range);
    expect(b.map((x) => x.t)).toEqual([9]);
    expect(b[0]?.g).toBeCloseTo(1 / 3, 12);
    expect(b[0]?.A).toBe(1);
  });

  it("a flat curve gives g = 0; a constant-reward game gives E missing", () => {
    const flat: CurvePoint[] = [
      { x: 0, y: 2 },
      { x: 3, y: 2 },
    ];
    const b = runBlocks(flat, new Map([[1, ep([[1, 0]], { min: 0, max: 0 })]]), { min: 0, max: 0 });
    expect(b).toHaveLength(1);
    expect(b[0]?.g).toBe(0);
    expect(b[0]?.E).toBeNull();
    expect(b[0]?.A).toBe(0);
  });

  it("a block's balanced accuracy, or null with fewer than 10 scored steps on a side of r > 0", () => {
    const rep = (n: number, pair: [number | null, number]): [number | null, number][] => Array.from({ length: n }, () => pair);
    const eps = new Map<number, JudgingCounts>([
      // block 3: r > 0: 7 said positive, 3 said 0 (10); r <= 0: 9 said 0, 3 said positive (12), one unscored
      [1, ep([...rep(7, [1, 1]), ...rep(3, [0, 2]), [null, 1]])],
      [2, ep([...rep(9, [0, 0]), ...rep(3, [1, 0])])],
      // block 6: 9 r > 0 steps only (and 20 r <= 0): not estimable
      [4, ep([...rep(9, [1, 1]), ...rep(20, [0, 0])])],
    ]);
    const curve: CurvePoint[] = [
      { x: 0, y: 0 },
      { x: 3, y: 1 },
      { x: 6, y: 2 },
    ];
    const b = runBlocks(curve, eps, range);
    expect(b.map((x) => x.t)).toEqual([3, 6]);
    expect(b[0]?.BA).toBeCloseTo((7 / 10 + 9 / 12) / 2, 12); // 0.725
    expect(b[0]?.A).toBeCloseTo(16 / 22, 12);
    expect(b[1]?.BA).toBeNull();
  });

  it("spacing is the gcd of the positive checkpoints", () => {
    expect(checkpointSpacing([0, 3, 6, 9].map((x) => ({ x, y: 1 })))).toBe(3);
    expect(checkpointSpacing([0, 5, 10].map((x) => ({ x, y: 1 })))).toBe(5);
    expect(checkpointSpacing([{ x: 0, y: 1 }])).toBe(0);
  });
});

describe("couplingStats", () => {
  it("pools blocks; -E uses only blocks with E", () => {
    const blocks = [
      { A: 0.2, E: 0.5, g: -1 },
      { A: 0.4, E: 0.3, g: 0 },
      { A: 0.6, E: null, g: 0.5 },
      { A: 0.8, E: 0.1, g: 1 },
    ];
    const s = couplingStats(blocks);
    expect(s.n_blocks).toBe(4);
    expect(s.rho_agree).toBeCloseTo(1, 12); // A and g both increasing
    expect(s.rho_neg_err).toBeCloseTo(1, 12); // -E = -0.5, -0.3, -0.1 vs g = -1, 0, 1
    // thirds of 1: top A (0.8, g 1) minus bottom (0.2, g -1) = 2
    expect(s.tertile_gap_agree).toBe(2);
    expect(s.tertile_gap_neg_err).toBe(2);
  });

  it("rho and the tertile gap of balanced accuracy use only the blocks that have one", () => {
    const blocks = [
      { A: 0.9, E: 0.5, g: -1, BA: 0.5 },
      { A: 0.1, E: 0.3, g: 0, BA: 0.7 },
      { A: 0.5, E: 0.2, g: 0.5, BA: null },
      { A: 0.3, E: 0.1, g: 1, BA: 0.9 },
    ];
    const s = couplingStats(blocks);
    expect(s.n_blocks_ba).toBe(3);
    // BA 0.5, 0.7, 0.9 against g -1, 0, 1: increasing together, while A is not.
    expect(s.rho_ba).toBeCloseTo(1, 12);
    expect(s.rho_agree).toBeCloseTo(-0.4, 12); // A ranks 4, 1, 3, 2 vs g ranks 1, 2, 3, 4: sum d^2 = 14, 1 - 6 * 14 / 60
    expect(s.tertile_gap_ba).toBe(2); // one block each: 1 - (-1)
    expect(couplingStats(blocks.map((b) => ({ ...b, BA: null }))).rho_ba).toBeNull();
  });
});

describe("weighted fast paths used by the bootstrap", () => {
  /** The resample the weights stand for, built explicitly. */
  function expand(x: number[], w: number[]): number[] {
    return x.flatMap((v, i) => Array.from({ length: w[i] ?? 0 }, () => v));
  }
  const pairs = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 25 })
    .map((t) => ({ x: t.map((p) => p[0] / 2), y: t.map((p) => p[1]), w: t.map((p) => p[2]) }));

  it("WeightedSpearman.rho(w) equals simple-statistics' rank correlation of the expanded sample", () => {
    fc.assert(
      fc.property(pairs, ({ x, y, w }) => {
        const ex = expand(x, w);
        const ey = expand(y, w);
        const ref = ex.length >= 2 ? ss.sampleRankCorrelation(ex, ey) : Number.NaN;
        const got = new WeightedSpearman(x, y).rho(w);
        if (!Number.isFinite(ref)) expect(got).toBeNull();
        else expect(got).toBeCloseTo(ref, 9);
      }),
      { numRuns: 400 },
    );
  });

  it("pearsonWeighted(w) equals simple-statistics' correlation of the expanded sample", () => {
    fc.assert(
      fc.property(pairs, ({ x, y, w }) => {
        const ex = expand(x, w);
        const ey = expand(y, w);
        const ref = ex.length >= 2 ? ss.sampleCorrelation(ex, ey) : Number.NaN;
        const got = pearsonWeighted(x, y, w);
        if (!Number.isFinite(ref) || new Set(ex).size < 2 || new Set(ey).size < 2) expect(got).toBeNull();
        else expect(got).toBeCloseTo(ref, 9);
      }),
      { numRuns: 400 },
    );
  });

  it("resampleWeights draws n items: weights sum to n", () => {
    const w = resampleWeights({ int: (n: number) => (n > 3 ? 3 : 0) }, 5, new Int32Array(5));
    expect([...w]).toEqual([0, 0, 0, 5, 0]);
  });
});
