/** Interval methods and resampling designs (issue 11), on hand-computed cases. */
import { describe, expect, it } from "vitest";
import { bootstrapRng } from "../../src/analysis/bootstrap.js";
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
  tableInterval,
  tableIntervalMany,
  twoStageDesign,
  unitBootstrap,
  unitBootstrapMany,
  withinDesign,
} from "../../src/analysis/intervals.js";

const meanStat = (x: readonly number[]) => (w: ArrayLike<number>): number => {
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

  it("tableInterval: bootstrap-t from 3 to 50 units, BCa for two-stage, percentile below 3 or above 50", () => {
    const x = Array.from({ length: 60 }, (_, i) => (i * 7) % 11);
    const run = (design: ReturnType<typeof simpleDesign>, n: number) =>
      tableInterval(design, meanStat(x.slice(0, n)), 50, bootstrapRng(0, "t"), "studentized").method;
    expect(run(simpleDesign(2), 2)).toBe("percentile");
    expect(run(simpleDesign(3), 3)).toBe("studentized");
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
    expect(jk).toEqual({ values: [[2, 1], [3, 1]], mult: [2, 1] });
  });
});
