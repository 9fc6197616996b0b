/** The seeded percentile bootstrap: reproducible digits, the percentile rule, intervals around points. */
import fc from "fast-check";
import * as ss from "simple-statistics";
import { describe, expect, it } from "vitest";
import {
  bootstrapEstimate,
  bootstrapReplicates,
  bootstrapRng,
  describeBootstrap,
  gainTallyMethod,
  MethodTally,
  methodsNamed,
  percentileInterval,
  resampleMean,
} from "../../src/analysis/stats/bootstrap.js";

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("percentileInterval", () => {
  it("takes the 2.5% and 97.5% quantiles with linear interpolation (type 7)", () => {
    // 1..100: index 99 * 0.025 = 2.475 -> 3 + 0.475 ; index 99 * 0.975 = 96.525 -> 97 + 0.525
    const reps = Array.from({ length: 100 }, (_, i) => 100 - i); // order must not matter
    const iv = percentileInterval(reps);
    expect(iv.lo).toBeCloseTo(3.475, 12);
    expect(iv.hi).toBeCloseTo(97.525, 12);
  });

  it("leaves NaN replicates out, and gives nulls when none is left", () => {
    const iv = percentileInterval([Number.NaN, 5, Number.NaN, 5]);
    expect(iv).toEqual({ lo: 5, hi: 5 });
    expect(percentileInterval([Number.NaN])).toEqual({ lo: null, hi: null });
  });

  it("honours another level", () => {
    // 0..10, level 0.8: index 10 * 0.1 = 1 and 10 * 0.9 = 9
    const iv = percentileInterval(
      Array.from({ length: 11 }, (_, i) => i),
      0.8,
    );
    expect(iv.lo).toBeCloseTo(1, 12); // (1 - 0.8) / 2 is 0.0999... in floating point
    expect(iv.hi).toBeCloseTo(9, 12);
  });
});

describe("seeded streams", () => {
  const data = [0.1, 0.4, 0.35, 0.8, 0.05, 0.6, 0.9, 0.2];

  it("the same seed and key give the same digits; another seed or key gives others", () => {
    const a = bootstrapReplicates(data, (s) => mean(s), 200, bootstrapRng(0, "curve", "run-a"));
    const b = bootstrapReplicates(data, (s) => mean(s), 200, bootstrapRng(0, "curve", "run-a"));
    const c = bootstrapReplicates(data, (s) => mean(s), 200, bootstrapRng(1, "curve", "run-a"));
    const d = bootstrapReplicates(data, (s) => mean(s), 200, bootstrapRng(0, "curve", "run-b"));
    expect([...a]).toEqual([...b]);
    expect([...a]).not.toEqual([...c]);
    expect([...a]).not.toEqual([...d]);
  });

  it("resampleMean of a constant list is that constant; of nothing is NaN", () => {
    expect(resampleMean([2, 2, 2], bootstrapRng(3, "x"))).toBe(2);
    expect(resampleMean([], bootstrapRng(3, "x"))).toBeNaN();
  });

  it("replicates of the mean centre on the sample mean", () => {
    const reps = bootstrapReplicates(data, (s) => mean(s), 2000, bootstrapRng(7, "centre"));
    // the bootstrap mean of means is the sample mean up to Monte Carlo error (sd / sqrt(B) tiny here)
    expect(ss.mean([...reps])).toBeCloseTo(mean(data), 2);
  });
});

describe("intervals contain their point estimate for monotone statistics", () => {
  it("mean, over arbitrary small samples", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 15 }), fc.nat(1000), (xs, seed) => {
        const e = bootstrapEstimate(xs, (s) => mean(s), { B: 400, seed }, bootstrapRng(seed, "prop"));
        expect(e.lo as number).toBeLessThanOrEqual((e.point as number) + 1e-12);
        expect(e.hi as number).toBeGreaterThanOrEqual((e.point as number) - 1e-12);
      }),
      { numRuns: 60 },
    );
  });

  it("a proportion (Agree-like 0/1 data)", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), fc.nat(1000), (bits, seed) => {
        const xs = bits.map((b) => (b ? 1 : 0));
        const e = bootstrapEstimate(xs, (s) => mean(s), { B: 400, seed }, bootstrapRng(seed, "prop01"));
        expect(e.lo as number).toBeLessThanOrEqual(e.point as number);
        expect(e.hi as number).toBeGreaterThanOrEqual(e.point as number);
      }),
      { numRuns: 60 },
    );
  });

  it("a missing statistic has no interval", () => {
    expect(bootstrapEstimate([1, 2], () => null, { B: 10, seed: 0 }, bootstrapRng(0, "n"))).toEqual({ point: null, lo: null, hi: null });
  });
});

describe("describeBootstrap", () => {
  it("names method, level, B, seed and the resampled unit", () => {
    expect(describeBootstrap({ B: 2000, seed: 0, method: "percentile" }, "blocks")).toBe("Intervals: 95% percentile bootstrap, B = 2000, seed = 0; resampled: blocks.");
    // Without a tally: the configured default of judging tables (the bootstrap-t from 10 units).
    expect(describeBootstrap({ B: 2000, seed: 0 }, "blocks")).toMatch(/^Intervals: 95% studentized bootstrap \(bootstrap-t, jackknife standard errors; BCa for multi-stage rows/);
  });

  it("with a tally, names the methods the intervals actually used, with counts", () => {
    const t = new MethodTally();
    t.add("percentile", false, 3);
    t.add("studentized");
    t.add("percentile", true);
    const line = describeBootstrap({ B: 100, seed: 1 }, "seeds", t);
    expect(line).toBe(
      "Intervals: 95% intervals by percentile bootstrap (3 intervals), studentized bootstrap (bootstrap-t, jackknife standard errors) (1), percentile bootstrap in place of a bootstrap-t interval that left the statistic's range (1), B = 100, seed = 1; resampled: seeds.",
    );
    expect(methodsNamed(line)).toEqual(["percentile", "bootstrap-t", "percentile fallback"]);
    expect(methodsNamed("Training: no intervals")).toEqual([]);
    expect(methodsNamed(describeBootstrap({ B: 100, seed: 1 }, "nothing (this table has no intervals)"))).toEqual([]);
    expect(describeBootstrap({ B: 100, seed: 1 }, "cells", new MethodTally())).toMatch(/^Intervals: 95% no intervals/);
  });

  it("names the tests a paired gain's interval inverts, apart from the bootstrap it is not", () => {
    const t = new MethodTally();
    t.add("percentile", false, 2);
    t.add(gainTallyMethod("sign-flip"), false, 4);
    t.add(gainTallyMethod("t over runs"));
    const line = describeBootstrap({ B: 100, seed: 1 }, "seeds", t);
    expect(line).toBe("Intervals: 95% intervals by percentile bootstrap (2 intervals), inversion of the exact sign-flip test (4), t interval over runs (1), B = 100, seed = 1; resampled: seeds.");
    expect(methodsNamed(line)).toEqual(["percentile", "sign-flip inversion", "t over runs"]);
    // A gain whose estimate carries no test (none was run) is still a sign-flip gain by default.
    expect(gainTallyMethod(undefined)).toBe("signflip");
  });
});
