/**
 * Balanced accuracy and AUROC, hand-computed (judging metrics a constant answer cannot pass), and the
 * weighted form the bootstrap uses: a weight w on a unit must equal that unit's steps written w times,
 * and the one-sweep jackknife must equal the generic leave-one-group-out.
 */
import { describe, expect, it } from "vitest";
import { auroc, balancedAccuracy, emptyCounts, addStep, judgeSteps, sideCounts, type JudgedStep } from "../../src/analysis/metrics/judging.js";
import { WeightedDiscrimination, type UnitSteps } from "../../src/analysis/stats/discrimination.js";
import { groupJackknifeMany, threeStageDesign, withinDesign, type Design } from "../../src/analysis/stats/intervals.js";
import { Rng } from "../../src/util/rng.js";

function counts(steps: readonly JudgedStep[]) {
  const c = emptyCounts();
  for (const p of steps) addStep(c, p.s, p.r, null);
  return c;
}

describe("balanced accuracy", () => {
  // r > 0: s = 1, 0, 2 -> agreed (s > 0) on 2 of 3; r <= 0: s = 0, 1, -1, 0 -> agreed (s <= 0) on 3 of 4.
  const steps: JudgedStep[] = [
    { s: 1, r: 1 },
    { s: 0, r: 0.5 },
    { s: 2, r: 3 },
    { s: 0, r: 0 },
    { s: 1, r: 0 },
    { s: -1, r: -2 },
    { s: 0, r: 0 },
    { s: null, r: 1 }, // unscored: on neither side
  ];

  it("is the mean of the two sides' agreement, Agree's rule on each", () => {
    expect(sideCounts(counts(steps))).toEqual({ pos: 3, neg: 4 });
    expect(balancedAccuracy(counts(steps))).toBeCloseTo((2 / 3 + 3 / 4) / 2, 12); // 17/24
    expect(judgeSteps(steps).agree).toBeCloseTo(5 / 7, 12); // Agree weighs the sides by their size
  });

  it("gives a constant answer 0.5 where Agree gives it the share of zero-reward steps", () => {
    // 2 rewarded steps in 20, the model always says 0: Agree 18/20 = 0.9, balanced accuracy (0 + 1) / 2.
    const constant: JudgedStep[] = Array.from({ length: 20 }, (_, i) => ({ s: 0, r: i < 2 ? 1 : 0 }));
    expect(judgeSteps(constant).agree).toBe(0.9);
    expect(balancedAccuracy(counts(constant))).toBe(0.5);
    // Always saying "positive" is no better.
    expect(balancedAccuracy(counts(constant.map((p) => ({ ...p, s: 1 }))))).toBe(0.5);
  });

  it("is undefined when a side is empty (all steps rewarded, or none)", () => {
    expect(
      balancedAccuracy(
        counts([
          { s: 1, r: 1 },
          { s: 0, r: 2 },
        ]),
      ),
    ).toBeNull();
    expect(
      balancedAccuracy(
        counts([
          { s: 0, r: 0 },
          { s: 1, r: -1 },
        ]),
      ),
    ).toBeNull();
    expect(
      balancedAccuracy(
        counts([
          { s: null, r: 1 },
          { s: 0, r: 0 },
        ]),
      ),
    ).toBeNull(); // the r > 0 step is unscored
  });
});

describe("AUROC", () => {
  it("counts r > 0 steps above r <= 0 steps, ties one half", () => {
    // pos s = 3, 1, 2; neg s = 1, 0, 2, 0. Pairs (12): 3 beats all 4 -> 4; 1 beats 0, 0 and ties 1 -> 2.5;
    // 2 beats 1, 0, 0 and ties 2 -> 3.5. U = 10 -> 10/12.
    const steps: JudgedStep[] = [
      { s: 3, r: 1 },
      { s: 1, r: 2 },
      { s: 2, r: 0.1 },
      { s: 1, r: 0 },
      { s: 0, r: 0 },
      { s: 2, r: -1 },
      { s: 0, r: 0 },
    ];
    expect(auroc(steps)).toBeCloseTo(10 / 12, 12);
  });

  it("is 1 for a perfect ranking, 0 for a reversed one, 0.5 for a constant", () => {
    expect(
      auroc([
        { s: 0.9, r: 1 },
        { s: 0.8, r: 1 },
        { s: 0.1, r: 0 },
      ]),
    ).toBe(1);
    expect(
      auroc([
        { s: 0.1, r: 1 },
        { s: 0.8, r: 0 },
        { s: 0.9, r: 0 },
      ]),
    ).toBe(0);
    expect(auroc(Array.from({ length: 50 }, (_, i) => ({ s: 0, r: i % 7 === 0 ? 1 : 0 })))).toBe(0.5);
  });

  it("leaves unscored steps out and is undefined when a side is empty", () => {
    expect(
      auroc([
        { s: null, r: 0 },
        { s: 1, r: 1 },
        { s: 0, r: 0 },
      ]),
    ).toBe(1);
    expect(
      auroc([
        { s: 1, r: 1 },
        { s: 0, r: 2 },
      ]),
    ).toBeNull();
    expect(
      auroc([
        { s: 1, r: 0 },
        { s: 0, r: 0 },
      ]),
    ).toBeNull();
    expect(
      auroc([
        { s: null, r: 1 },
        { s: 0, r: 0 },
      ]),
    ).toBeNull();
    expect(auroc([])).toBeNull();
  });
});

/** Units of steps with few distinct self-scores (many ties) and mixed rewards, from a seeded generator. */
function randomUnits(rng: Rng, n: number): UnitSteps[] {
  return Array.from({ length: n }, () => {
    const k = 1 + rng.int(6);
    const s: number[] = [];
    const r: number[] = [];
    for (let i = 0; i < k; i++) {
      s.push(rng.int(4) - 1);
      r.push(rng.int(3) === 0 ? 1 : 0);
    }
    return { s, r };
  });
}

/** The steps of `units` with unit u written w[u] times. */
function expand(units: readonly UnitSteps[], w: ArrayLike<number>): JudgedStep[] {
  const out: JudgedStep[] = [];
  units.forEach((u, i) => {
    for (let c = 0; c < (w[i] as number); c++) u.s.forEach((s, j) => out.push({ s, r: u.r[j] as number }));
  });
  return out;
}

describe("weighted balanced accuracy and AUROC (the bootstrap's form)", () => {
  it("a unit drawn w times counts as its steps written w times", () => {
    const rng = Rng.fromKey("discrimination/weights");
    const units = randomUnits(rng, 12);
    const wd = new WeightedDiscrimination(units, []);
    const out = new Float64Array(2);
    for (let t = 0; t < 20; t++) {
      const w = Int32Array.from({ length: units.length }, () => rng.int(3));
      wd.stats(w, out);
      const steps = expand(units, w);
      const ba = balancedAccuracy(counts(steps));
      const auc = auroc(steps);
      if (ba === null) expect(out[0]).toBeNaN();
      else expect(out[0]).toBeCloseTo(ba, 12);
      if (auc === null) expect(out[1]).toBeNaN();
      else expect(out[1]).toBeCloseTo(auc, 12);
    }
  });

  const designs: [string, (sizes: number[]) => Design][] = [
    ["episodes within runs (model rows)", (sizes) => withinDesign(sizes)],
    ["models, runs, episodes (pooled rows: a group is a model)", (sizes) => threeStageDesign([sizes.slice(0, 2), sizes.slice(2, 3), sizes.slice(3)])],
  ];
  for (const [name, make] of designs) {
    it(`its one-sweep jackknife equals the generic leave-one-group-out: ${name}`, () => {
      const rng = Rng.fromKey(`discrimination/jackknife/${name}`);
      const sizes = [4, 3, 5, 2, 3];
      const design = make(sizes);
      const units = randomUnits(rng, design.n);
      const wd = new WeightedDiscrimination(units, design.members);
      const w = new Int32Array(design.n);
      for (let t = 0; t < 30; t++) {
        if (t === 0) w.fill(1);
        else design.draw(rng, w);
        const before = Int32Array.from(w);
        const fast = wd.jackknife(w);
        const slow = groupJackknifeMany(design, wd.stats, 2, w);
        expect(Array.from(w)).toEqual(Array.from(before)); // w neither kept nor changed
        expect(fast.mult).toEqual(slow.mult);
        for (let j = 0; j < 2; j++) {
          const f = fast.values[j] as number[];
          const s = slow.values[j] as number[];
          expect(f.length).toBe(s.length);
          f.forEach((v, i) => (Number.isNaN(s[i] as number) ? expect(v).toBeNaN() : expect(v).toBeCloseTo(s[i] as number, 12)));
        }
      }
    });
  }
});
