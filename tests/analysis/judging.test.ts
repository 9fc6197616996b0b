/** Self-judging metrics, hand-computed (metrics.md, "Self-judging"). */
import { describe, expect, it } from "vitest";
import { addStep, emptyCounts, judgeSteps, judgingStats, positiveRates, rewardRange, type JudgedStep } from "../../src/analysis/metrics/judging.js";

describe("Agree, Over, Under, NMAE", () => {
  // r range over ALL steps (unscored included): r in {1, 0, 0, 1, 2} -> [0, 2].
  const steps: JudgedStep[] = [
    { s: 1, r: 1 }, // agree; |1 - 1| = 0
    { s: 0, r: 0 }, // agree (both not positive); 0
    { s: 5, r: 0 }, // over; clip(5) = 2 -> |2 - 0| = 2
    { s: -1, r: 1 }, // under; clip(-1) = 0 -> |0 - 1| = 1
    { s: null, r: 2 }, // unscored, but its r sets the range's max
  ];

  it("counts unscored steps apart and computes the rates over the scored ones", () => {
    const m = judgeSteps(steps);
    expect(m.n_steps).toBe(5);
    expect(m.n_unscored).toBe(1);
    expect(m.agree).toBe(0.5); // 2 of 4
    expect(m.over).toBe(0.25);
    expect(m.under).toBe(0.25);
    // (0 + 0 + 2 + 1) / 4 / (2 - 0)
    expect(m.nmae).toBeCloseTo(0.375, 12);
  });

  it("uses a given (game-level) range for a subset, clipping s into it", () => {
    // subset {s: 5, r: 0} with the game range [0, 2]: |2 - 0| / 2 = 1 ; with its own range it would be missing.
    expect(judgeSteps([{ s: 5, r: 0 }], { min: 0, max: 2 }).nmae).toBe(1);
    expect(judgeSteps([{ s: 5, r: 0 }]).nmae).toBeNull();
    // s below the range: clip(-3) = -1 in [-1, 3] ; |-1 - 3| / 4 = 1
    expect(judgeSteps([{ s: -3, r: 3 }], { min: -1, max: 3 }).nmae).toBe(1);
  });

  it("reports NMAE missing for a game with a constant reward, the other rates as usual", () => {
    const m = judgeSteps([
      { s: 1, r: 0 },
      { s: 0, r: 0 },
      { s: null, r: 0 },
    ]);
    expect(m.nmae).toBeNull();
    expect(m.agree).toBe(0.5);
    expect(m.over).toBe(0.5);
    expect(m.under).toBe(0);
  });

  it("a set with only unscored steps has counts and no rates", () => {
    const m = judgeSteps([
      { s: null, r: 1 },
      { s: null, r: 0 },
    ]);
    expect([m.n_steps, m.n_unscored, m.agree, m.nmae, m.over, m.under]).toEqual([2, 2, null, null, null, null]);
  });

  it("treats NaN as unscored in the typed-array path", () => {
    const acc = emptyCounts();
    addStep(acc, Number.NaN, 1, { min: 0, max: 1 });
    addStep(acc, 1, 1, { min: 0, max: 1 });
    expect(judgingStats(acc, { min: 0, max: 1 })).toEqual({ n_steps: 2, n_unscored: 1, agree: 1, nmae: 0, over: 0, under: 0 });
  });

  it("rewardRange includes every reward and is null for nothing", () => {
    expect(rewardRange([0.5, -1, 3, 0])).toEqual({ min: -1, max: 3 });
    expect(rewardRange([])).toBeNull();
  });
});

describe("positive rates", () => {
  it("are over the scored steps", () => {
    const acc = emptyCounts();
    // scored: (1, 1), (0, 1), (2, 0) -> Pr(r > 0) = 2/3, Pr(s > 0) = 2/3 ; the unscored step is ignored.
    for (const [s, r] of [
      [1, 1],
      [0, 1],
      [2, 0],
      [null, 5],
    ] as [number | null, number][])
      addStep(acc, s, r, null);
    const p = positiveRates(acc);
    expect(p?.p_r).toBeCloseTo(2 / 3, 12);
    expect(p?.p_s).toBeCloseTo(2 / 3, 12);
    expect(positiveRates(emptyCounts())).toBeNull();
  });
});
