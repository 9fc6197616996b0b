/**
 * Avg's interval and the t machinery behind the run-level intervals (intervals.ts): Student's t by
 * hand-checked values, the t interval of a mean by hand, the bootstrap-t hull on cases small enough
 * to enumerate, and the estimand rule.
 */
import { describe, expect, it } from "vitest";
import { ESTIMAND_TEXT, estimandOf, meanTInterval, simpleDesign, studentTQuantile, studentTUpper, studentizedHullInterval, tInterval } from "../../src/analysis/stats/intervals.js";
import { Rng } from "../../src/util/rng.js";

describe("Student's t", () => {
  it("quantiles of the 97.5% point from tables: df 1 12.7062, df 2 4.3027, df 9 2.2622, df 29 2.0452", () => {
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 4);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.3027, 4);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.2622, 4);
    expect(studentTQuantile(0.975, 29)).toBeCloseTo(2.0452, 4);
    expect(studentTQuantile(0.025, 9)).toBeCloseTo(-2.2622, 4);
  });
  it("df 1 is the Cauchy: P(T > t) = 1/2 - atan(t) / pi", () => {
    for (const t of [-3, -0.5, 0, 1, 2, 10]) expect(studentTUpper(t, 1)).toBeCloseTo(0.5 - Math.atan(t) / Math.PI, 10);
  });
  it("df 2 in closed form: P(T > t) = (1 - t / sqrt(2 + t^2)) / 2", () => {
    for (const t of [-2, 0.3, 1.7, 5]) expect(studentTUpper(t, 2)).toBeCloseTo((1 - t / Math.sqrt(2 + t * t)) / 2, 10);
  });
});

describe("the t interval of a mean", () => {
  it("[1, 2, 3, 4]: 2.5 +- 3.182446 x 1.290994 / 2 = [0.44574, 4.55426], p of t = 3.8730 on 3 df = 0.03047", () => {
    const r = meanTInterval([1, 2, 3, 4])!;
    expect(r.point).toBe(2.5);
    expect(r.lo).toBeCloseTo(0.44574, 4);
    expect(r.hi).toBeCloseTo(4.55426, 4);
    expect(r.p).toBeCloseTo(0.03047, 4);
  });
  it("fewer than 2 values: none; a zero se: the point, p 1 at 0 and 0 elsewhere", () => {
    expect(meanTInterval([3])).toBeNull();
    expect(tInterval(0, 0, 4)).toEqual({ lo: 0, hi: 0, p: 1, se: 0, df: 4 });
    expect(tInterval(2, 0, 4)).toEqual({ lo: 2, hi: 2, p: 0, se: 0, df: 4 });
  });
  it("excludes 0 exactly when p < 0.05, at the edge too", () => {
    const q = studentTQuantile(0.975, 5);
    for (const f of [1 - 1e-12, 1, 1 + 1e-12, 0.5, 2]) {
      const r = tInterval(q * f, 1, 5)!;
      expect(r.lo > 0 || r.hi < 0).toBe(r.p < 0.05);
    }
  });
});

describe("Avg's bootstrap-t hull (studentizedHullInterval)", () => {
  const mean =
    (v: number[]) =>
    (w: Int32Array): number => {
      let s = 0;
      let n = 0;
      for (let i = 0; i < v.length; i++) {
        s += (w[i] as number) * (v[i] as number);
        n += w[i] as number;
      }
      return n > 0 ? s / n : Number.NaN;
    };
  it("2 units [0, 1]: every resample with spread is {0, 1} itself (t* = 0) and the one-valued ones have se 0 off the point (left out), so the hull is the t interval 0.5 +- 12.706 x 0.5", () => {
    const r = studentizedHullInterval(simpleDesign(2), mean([0, 1]), 500, Rng.fromKey("hull"))!;
    expect(r.lo).toBeCloseTo(0.5 - 12.7062047 * 0.5, 5);
    expect(r.hi).toBeCloseTo(0.5 + 12.7062047 * 0.5, 5);
  });
  it("is never narrower than the t interval, and holds the point", () => {
    const rng = Rng.fromKey("hull-data");
    for (let i = 0; i < 30; i++) {
      const v = Array.from({ length: 10 }, () => -Math.log(1 - rng.float()));
      const r = studentizedHullInterval(simpleDesign(10), mean(v), 300, Rng.fromKey(`hull-${i}`))!;
      const t = meanTInterval(v)!;
      expect(r.lo).toBeLessThanOrEqual(t.lo + 1e-12);
      expect(r.hi).toBeGreaterThanOrEqual(t.hi - 1e-12);
      expect(r.point).toBeCloseTo(t.point, 12);
    }
  });
  it("on right-skewed data it reaches further up than down (the equal-tailed bootstrap-t's share)", () => {
    // One large value among small ones: resamples holding it more often have a large mean AND a large
    // se, so t* has a long LEFT tail and the equal-tailed interval a long UPPER end.
    const v = [0, 0.1, 0.2, 0.1, 0, 0.3, 0.2, 0.1, 0, 5];
    const r = studentizedHullInterval(simpleDesign(10), mean(v), 2000, Rng.fromKey("skew"))!;
    expect(r.hi - r.point).toBeGreaterThan(r.point - r.lo);
  });
  it("a constant statistic gives [point, point]", () => {
    const r = studentizedHullInterval(simpleDesign(5), mean([2, 2, 2, 2, 2]), 100, Rng.fromKey("c"))!;
    expect([r.lo, r.hi]).toEqual([2, 2]);
  });
});

describe("the estimand rule", () => {
  it("one run: this run; two or more drawn: the model; kept: these runs", () => {
    expect(estimandOf(1)).toBe("this run");
    expect(estimandOf(0)).toBe("this run");
    expect(estimandOf(2)).toBe("model");
    expect(estimandOf(3, { runsFixed: true })).toBe("these runs");
    expect(ESTIMAND_TEXT["this run"]).toContain("not the model's");
  });
});
