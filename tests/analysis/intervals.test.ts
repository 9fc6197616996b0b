/** Interval methods and resampling designs (issue 11), on hand-computed cases. */
import { describe, expect, it } from "vitest";
import { bootstrapRng } from "../../src/analysis/stats/bootstrap.js";
import {
  bcaAcceleration,
  bcaInterval,
  clusterDesign,
  groupJackknife,
  groupJackknifeMany,
  jackknifeSe,
  normalCdf,
  normalQuantile,
  simpleDesign,
  studentizedInterval,
  RATE_RANGE,
  intervalInRange,
  observedRange,
  seNegligible,
  tableInterval,
  tableIntervalMany,
  threeStageDesign,
  twoStageDesign,
  unitBootstrap,
  unitBootstrapMany,
  withinDesign,
} from "../../src/analysis/stats/intervals.js";

const meanStat =
  (x: readonly number[]) =>
  (w: ArrayLike<number>): number => {
    let s = 0;
    let n = 0;
    for (let i = 0; i < x.length; i++) {
      s += (w[i] as number) * (x[i] as number);
      n += w[i] as number;
    }
    return n > 0 ? s / n : Number.NaN;
  };

describe("jackknife", () => {
  it("the jackknife se of a mean is s / sqrt(n): 1, 2, 3, 4 -> sqrt(5/12)", () => {
    // leave-one-out means 3, 8/3, 7/3, 2; mean 2.5; sum of squares 5/9; * 3/4 = 5/12.
    const jk = groupJackknife(simpleDesign(4), meanStat([1, 2, 3, 4]), new Int32Array([1, 1, 1, 1]));
    expect(jk.values.map((v) => Number(v.toFixed(12)))).toEqual([3, 8 / 3, 7 / 3, 2].map((v) => Number(v.toFixed(12))));
    expect(jackknifeSe(jk.values, jk.mult)).toBeCloseTo(Math.sqrt(5 / 12), 12);
  });

  it("on a resample, one copy is removed and counted with its multiplicity", () => {
    // weights (2, 0, 1) on 1, 2, 3: leave one 1 -> mean(1, 3) = 2 (twice); leave the 3 -> 1.
    const jk = groupJackknife(simpleDesign(3), meanStat([1, 2, 3]), new Int32Array([2, 0, 1]));
    expect(jk).toEqual({ values: [2, 1], mult: [2, 1] });
  });

  it("cluster designs leave a whole cluster out", () => {
    // clusters {1, 2} and {6}: leave the first -> 6; leave the second -> 1.5.
    const jk = groupJackknife(clusterDesign([2, 1]), meanStat([1, 2, 6]), new Int32Array([1, 1, 1]));
    expect(jk).toEqual({ values: [6, 1.5], mult: [1, 1] });
  });

  it("the acceleration of symmetric jackknife values is 0; a skewed set has the hand-computed sign", () => {
    expect(bcaAcceleration([1, 2, 3], [1, 1, 1])).toBe(0);
    // values 0, 0, 3: mean 1, d = mean - v = 1, 1, -2: sum d^2 = 6, sum d^3 = -6 -> a = -6 / (6 * 6^1.5)
    expect(bcaAcceleration([0, 0, 3], [1, 1, 1])).toBeCloseTo(-6 / (6 * 6 ** 1.5), 12);
  });
});

describe("normal distribution helpers", () => {
  it("quantile and CDF invert each other and hit the textbook values", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 8);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalCdf(1.959963985)).toBeCloseTo(0.975, 7);
    expect(normalCdf(-1)).toBeCloseTo(0.158655254, 7);
    for (const p of [0.001, 0.025, 0.3, 0.9, 0.999]) expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 7);
  });
});

describe("intervals from replicates", () => {
  const reps = Array.from({ length: 101 }, (_, i) => i); // 0..100

  it("BCa with no bias (half the replicates below the point) and no acceleration is the percentile interval", () => {
    const iv = bcaInterval(50, reps, 0);
    expect(iv.lo).toBeCloseTo(2.5, 4);
    expect(iv.hi).toBeCloseTo(97.5, 4);
  });

  it("BCa moves both ends up when most replicates fall below the point", () => {
    // 84.5% below 85 -> z0 = probit(0.845) ~ 1.015: the ends move to Phi(2 z0 -+ 1.96) quantiles.
    const iv = bcaInterval(84.5, reps, 0);
    expect(iv.lo as number).toBeGreaterThan(2.5 + 20);
    expect(iv.hi as number).toBeGreaterThan(99);
  });

  it("the bootstrap-t interval is point - t_hi se .. point - t_lo se", () => {
    // t replicates 0..100: quantiles 2.5 and 97.5; point 10, se 2 -> [10 - 195, 10 - 5].
    const iv = studentizedInterval(10, 2, reps);
    expect(iv.lo).toBeCloseTo(-185, 9);
    expect(iv.hi).toBeCloseTo(5, 9);
  });
});

describe("designs", () => {
  it("within: every cluster keeps its size; cluster: whole clusters; two-stage: draws of clusters, each resampled", () => {
    const rng = bootstrapRng(0, "designs");
    const w = new Int32Array(5);
    const within = withinDesign([2, 3]);
    within.draw(rng, w);
    expect([(w[0] as number) + (w[1] as number), (w[2] as number) + (w[3] as number) + (w[4] as number)]).toEqual([2, 3]);
    const cluster = clusterDesign([2, 3]);
    cluster.draw(rng, w);
    expect(w[0]).toBe(w[1]);
    expect(new Set([w[2], w[3], w[4]]).size).toBe(1);
    expect((w[0] as number) + (w[2] as number)).toBe(2); // two clusters drawn
    const two = twoStageDesign([2, 2]);
    const w4 = new Int32Array(4);
    two.draw(rng, w4);
    expect(w4.reduce((a, b) => a + b, 0)).toBe(4);
    expect([within.units, cluster.units, two.units, two.studentizable]).toEqual([2, 2, 2, false]);
  });

  it("tableInterval: bootstrap-t from 10 to 50 units, BCa for multi-stage, percentile below 10 or above 50", () => {
    const x = Array.from({ length: 60 }, (_, i) => (i * 7) % 11);
    const run = (design: ReturnType<typeof simpleDesign>, n: number) => tableInterval(design, meanStat(x.slice(0, n)), 50, bootstrapRng(0, "t"), "studentized").method;
    expect(run(simpleDesign(2), 2)).toBe("percentile");
    expect(run(simpleDesign(3), 3)).toBe("percentile");
    expect(run(simpleDesign(9), 9)).toBe("percentile");
    expect(run(simpleDesign(10), 10)).toBe("studentized");
    expect(
      run(
        threeStageDesign([
          [2, 2],
          [2, 2],
        ]),
        8,
      ),
    ).toBe("bca");
    expect(run(simpleDesign(50), 50)).toBe("studentized");
    expect(run(simpleDesign(60), 60)).toBe("percentile");
    expect(run(twoStageDesign([2, 2, 2]), 6)).toBe("bca");
  });

  it("a constant statistic gets the interval [point, point] from every method, never none", () => {
    for (const method of ["percentile", "bca", "studentized"] as const) {
      const r = unitBootstrap(withinDesign([3, 3]), meanStat([1, 1, 1, 1, 1, 1]), 100, bootstrapRng(0, "c"), method);
      expect(r.interval, method).toEqual({ lo: 1, hi: 1 });
    }
  });

  it("the bootstrap-t of a mean brackets the point and is no narrower than the percentile's on skewed data", () => {
    const x = [0, 0, 0, 0, 0, 0, 1, 2, 5, 20];
    const pct = unitBootstrap(simpleDesign(10), meanStat(x), 2000, bootstrapRng(1, "s"), "percentile");
    const stu = unitBootstrap(simpleDesign(10), meanStat(x), 2000, bootstrapRng(1, "s"), "studentized");
    expect(stu.point).toBeCloseTo(2.8, 12);
    expect(stu.interval.lo as number).toBeLessThan(2.8);
    expect(stu.interval.hi as number).toBeGreaterThan(2.8);
    // a right-skewed sample: the bootstrap-t reaches further right than the percentile interval
    expect(stu.interval.hi as number).toBeGreaterThan(pct.interval.hi as number);
  });
});

describe("intervals that stay in range (issue 24)", () => {
  it("a jackknife se that is a rounding crumb counts as 0: no exploding t, the constant case stays [point, point]", () => {
    // Ten 0.3s: the leave-one-out means are equal, but their floating-point mean is not 0.3 exactly.
    const x = Array.from({ length: 10 }, () => 0.3);
    const jk = groupJackknife(simpleDesign(10), meanStat(x), new Int32Array(10).fill(1));
    const se = jackknifeSe(jk.values, jk.mult);
    expect(se).toBeGreaterThan(0); // the crumb the old `se > 0` test let through
    expect(se).toBeLessThan(1e-12);
    expect(seNegligible(se, 0.3)).toBe(true);
    expect(seNegligible(0.01, 0.3)).toBe(false);
    expect(studentizedInterval(0.3, se, [-5e13, 0, 5e13])).toEqual({ lo: 0.3, hi: 0.3 });
  });

  it("a degenerate resample does not select the bootstrap-t: nine equal values and one outlier stay inside [min, max]", () => {
    // Many resamples draw only 0.1s: their se is a crumb and their t would be (v - point) / 1e-17.
    const x = [...Array.from({ length: 9 }, () => 0.1), 0.7];
    const r = tableInterval(simpleDesign(10), meanStat(x), 400, bootstrapRng(3, "crumb"), "studentized", 0.95, observedRange(x));
    expect(Number.isFinite(r.interval.lo as number) && Number.isFinite(r.interval.hi as number)).toBe(true);
    expect(r.interval.lo as number).toBeGreaterThanOrEqual(0.1 - 1e-12);
    expect(r.interval.hi as number).toBeLessThanOrEqual(0.7 + 1e-12);
  });

  it("an interval that leaves the statistic's range falls back to percentile (said, not clipped)", () => {
    // A rate of 1 success in 10: the bootstrap-t reaches below 0.
    const x = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    const raw = unitBootstrap(simpleDesign(10), meanStat(x), 500, bootstrapRng(2, "rate"), "studentized");
    expect(raw.interval.lo as number).toBeLessThan(0); // the precondition: without the range it leaves [0, 1]
    const r = tableInterval(simpleDesign(10), meanStat(x), 500, bootstrapRng(2, "rate"), "studentized", 0.95, RATE_RANGE);
    expect(r.method).toBe("percentile");
    expect(r.fellBack).toBe(true);
    expect(r.interval.lo as number).toBeGreaterThanOrEqual(0);
    // the percentile interval of the same replicates (same stream), not a clipped bootstrap-t
    expect(r.interval.hi).not.toBe(raw.interval.hi);
    const inRange = tableInterval(simpleDesign(10), meanStat(x), 500, bootstrapRng(2, "rate"), "studentized");
    expect(inRange.method).toBe("studentized"); // no range given: any finite interval stands
  });

  it("intervalInRange: finite, ordered, inside up to rounding", () => {
    expect(intervalInRange({ lo: 0, hi: 1 }, RATE_RANGE)).toBe(true);
    expect(intervalInRange({ lo: 0, hi: 1 + 1e-12 }, RATE_RANGE)).toBe(true);
    expect(intervalInRange({ lo: -0.01, hi: 0.5 }, RATE_RANGE)).toBe(false);
    expect(intervalInRange({ lo: 0.6, hi: 0.5 }, RATE_RANGE)).toBe(false);
    expect(intervalInRange({ lo: -Infinity, hi: 0.5 })).toBe(false);
    expect(intervalInRange({ lo: null, hi: null })).toBe(false);
    expect(observedRange([3, Number.NaN, -2, 7])).toEqual({ lo: -2, hi: 7 });
  });

  it("three stages: models drawn, then each drawn model's runs, then each drawn run's episodes", () => {
    // Model 0 has runs of 2 and 1 episodes, model 1 one run of 3: a draw of model 0 adds two run
    // draws (2 or 1 episodes each), of model 1 three episodes.
    const d = threeStageDesign([[2, 1], [3]]);
    expect([d.n, d.units, d.studentizable, Array.from(d.groups)]).toEqual([6, 2, false, [0, 0, 0, 1, 1, 1]]);
    const rng = bootstrapRng(0, "three");
    const w = new Int32Array(6);
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      d.draw(rng, w);
      const m0 = w[0]! + w[1]! + w[2]!;
      const m1 = w[3]! + w[4]! + w[5]!;
      expect(m1 % 3).toBe(0);
      expect([0, 2, 3, 4, 4, 5, 6, 7, 8]).toContain(m0);
      // the first run's episodes and the second run's come in whole run draws
      expect((w[0]! + w[1]!) % 2).toBe(0);
      seen.add(m0);
    }
    expect(seen.has(3)).toBe(true); // one draw of each of model 0's runs
  });
});

describe("several statistics over one stream of draws (unitBootstrapMany)", () => {
  const x = [3, 1, 4, 1, 5, 9, 2, 6];
  const y = [2, 7, 1, 8, 2, 8, 1, 8];
  // A mean, a ratio of two weighted sums, and a statistic undefined when unit 0 is not drawn.
  const stats: ((w: Int32Array) => number)[] = [
    meanStat(x),
    (w) => {
      let a = 0;
      let b = 0;
      for (let i = 0; i < x.length; i++) [a, b] = [a + w[i]! * x[i]!, b + w[i]! * y[i]!];
      return b > 0 ? a / b : Number.NaN;
    },
    (w) => (w[0] === 0 ? Number.NaN : meanStat(y)(w)),
  ];
  const vector = (w: Int32Array, out: Float64Array): void => stats.forEach((s, j) => void (out[j] = s(w)));
  const designs = { simple: simpleDesign(8), cluster: clusterDesign([3, 2, 3]), within: withinDesign([4, 4]), twoStage: twoStageDesign([2, 3, 3]) };

  for (const [name, design] of Object.entries(designs)) {
    for (const method of ["percentile", "bca", "studentized"] as const) {
      it(`${name} design, ${method}: each statistic gets exactly what it gets alone`, () => {
        const many = unitBootstrapMany(design, vector, stats.length, 300, bootstrapRng(7, "many", name), method);
        stats.forEach((s, j) => {
          const alone = unitBootstrap(design, s, 300, bootstrapRng(7, "many", name), method);
          expect(many[j]!.point).toBe(alone.point);
          expect(many[j]!.interval).toEqual(alone.interval);
          expect(Array.from(many[j]!.replicates)).toEqual(Array.from(alone.replicates));
        });
        // The streams really differ per statistic's values: the three results are not one copied thrice.
        expect(many[0]!.point).not.toBe(many[1]!.point);
      });
    }
  }

  it("tableIntervalMany falls back like tableInterval (two-stage -> BCa, few units -> percentile)", () => {
    for (const design of [twoStageDesign([2, 3]), simpleDesign(2), simpleDesign(8)]) {
      const many = tableIntervalMany(design, vector, stats.length, 100, bootstrapRng(1, "t"), "studentized");
      stats.forEach((s, j) => {
        const alone = tableInterval(design, s, 100, bootstrapRng(1, "t"), "studentized");
        expect(many[j]!.method).toBe(alone.method);
        expect(many[j]!.interval).toEqual(alone.interval);
      });
    }
  });

  it("groupJackknifeMany gives each statistic its own leave-one-out values", () => {
    // weights (2, 0, 1) on 1, 2, 3: the mean's values 2 (leave a 1), 1 (leave the 3); the max's 3, 1.
    const max = (w: ArrayLike<number>): number => Math.max(...[1, 2, 3].filter((_, i) => (w[i] as number) > 0));
    const jk = groupJackknifeMany(simpleDesign(3), (w, out) => ((out[0] = meanStat([1, 2, 3])(w)), (out[1] = max(w))), 2, new Int32Array([2, 0, 1]));
    expect(jk).toEqual({
      values: [
        [2, 1],
        [3, 1],
      ],
      mult: [2, 1],
    });
  });
});
