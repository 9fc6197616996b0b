/**
 * The inverted sign-flip test (signFlip.ts signFlipInversion, gain.ts gainSignFlipInterval): hand-computed
 * small cases, the inversion checked against the test itself at its ends, and the agreement
 * "interval excludes 0" iff "p < 0.05" over many seeded random data sets.
 */
import { describe, expect, it } from "vitest";
import { gainLinearForm, gainPoint, gainSignFlipInterval, gainSignFlipP, type GainData } from "../../src/analysis/metrics/gain.js";
import { estimateGain } from "../../src/analysis/tables/gainTables.js";
import { signFlipInversion, signFlipTest } from "../../src/analysis/stats/signFlip.js";
import { Rng } from "../../src/util/rng.js";

const rng = (): Rng => Rng.fromKey("inversion-test");
/** One row, one run: the gain is the plain mean of d. */
const oneRow = (d: number[]): GainData => ({ rows: 1, n: d.length, d: Float64Array.from(d), sizes: [d.length] });
/** The same data shifted by delta (every present difference minus delta). */
const shifted = (g: GainData, delta: number): GainData => ({ ...g, d: g.d.map((v) => (Number.isNaN(v) ? v : v - delta)) });

describe("signFlipInversion on hand-computed cases", () => {
  it("3 units [1, 2, 4] at level 0.5: [1, 4], p(0) = 2/8", () => {
    // Mirror pairs (unit 3 never flipped): {} always reaches |T|; {1}: means 1 vs 3 -> [1, 3];
    // {2}: 2 vs 2.5 -> [2, 2.5]; {1,2}: 1.5 vs 4 -> [1.5, 4]; each weight 2 of 8. p >= 0.5 needs 4
    // hits: 2 always + 2 more = the smallest low (1) and the largest high (4). At 0 only +-(1+2+4)
    // reaches |7|: p = 2/8.
    const r = signFlipInversion([1 / 3, 2 / 3, 4 / 3], [1 / 3, 1 / 3, 1 / 3], 0, rng(), 0.5)!;
    expect(r.point).toBeCloseTo(7 / 3, 12);
    expect(r.lo).toBeCloseTo(1, 8);
    expect(r.hi).toBeCloseTo(4, 8);
    expect(r.p).toBe(0.25);
    expect(r.kind).toBe("exact");
  });
  it("6 units at 95%: [min d, max d] (4 of 64 patterns needed: the two always-patterns and one singleton pair)", () => {
    // d = [-1, 0.5, 2, 3, 4, 7], T = 15.5; at 0 the flips F with sum_F <= 0 or >= 15.5 reach it:
    // {}, {-1}, {-1, 0.5} and their mirrors: p = 6/64 = 0.09375 >= 0.05, and 0 is inside [-1, 7].
    const d = [-1, 0.5, 2, 3, 4, 7];
    const e = gainSignFlipInterval(oneRow(d), 0, rng())!;
    expect(e.lo).toBeCloseTo(-1, 8);
    expect(e.hi).toBeCloseTo(7, 8);
    expect(e.p).toBe(6 / 64);
  });
  it("6 positive units: p = 2/64 < 0.05 and the interval [min, max] excludes 0", () => {
    const e = gainSignFlipInterval(oneRow([0.5, 1, 2, 3, 4, 7]), 0, rng())!;
    expect(e.p).toBe(2 / 64);
    expect(e.lo).toBeCloseTo(0.5, 8);
    expect(e.hi).toBeCloseTo(7, 8);
  });
  it("5 or fewer units: the test cannot reject at 5% (p >= 2/32), so the interval is unbounded", () => {
    const e = gainSignFlipInterval(oneRow([1, 2, 3, 4, 5]), 0, rng())!;
    expect(e.lo).toBe(-Infinity);
    expect(e.hi).toBe(Infinity);
    expect(e.p).toBe(2 / 32);
  });
  it("constant differences: the interval is the point, p = 1 at a point of 0", () => {
    const e = gainSignFlipInterval(oneRow([0, 0, 0, 0, 0, 0, 0]), 0, rng())!;
    expect(e.lo).toBeCloseTo(0, 12);
    expect(e.hi).toBeCloseTo(0, 12);
    expect(e.p).toBe(1);
  });
});

describe("gainLinearForm: the gain as sum_k u_k with weights c_k", () => {
  it("two rows, a missing value and two runs: u sums to the point, c to 1", () => {
    // Run A (units 0, 1): row 0 [1, 3], row 1 [NaN, 5] -> gain (2 + 5) / 2 = 3.5; run B (unit 2): [2, 4] -> 3.
    // Gain = (3.5 + 3) / 2 = 3.25. Unit 0: row 0 weight 1/(2*2*2) = 1/8 -> u 1/8, c 1/8; unit 1:
    // row 0 1/8 * 3, row 1 1/(2*2*1) * 5 -> u 3/8 + 5/4, c 1/8 + 1/4; unit 2: 1/(2*2*1) each row -> u 6/4, c 2/4.
    const g: GainData = { rows: 2, n: 3, d: Float64Array.from([1, 3, 2, Number.NaN, 5, 4]), sizes: [2, 1] };
    const { u, c } = gainLinearForm(g);
    expect([...u].map((v) => +v.toFixed(12))).toEqual([0.125, 1.625, 1.5]);
    expect([...c].map((v) => +v.toFixed(12))).toEqual([0.125, 0.375, 0.5]);
    expect(u.reduce((a, b) => a + b, 0)).toBeCloseTo(gainPoint(g)!, 12);
  });
});

/** A random GainData: 6..12 units in 1..3 runs, 1..4 rows, some differences missing. */
function randomGain(r: Rng): GainData {
  const runs = 1 + r.int(3);
  const sizes = Array.from({ length: runs }, () => 2 + r.int(3));
  const n = sizes.reduce((a, b) => a + b, 0);
  const rows = 1 + r.int(4);
  const shift = r.float() - 0.3;
  const d = Float64Array.from({ length: rows * n }, () => (r.float() < 0.1 ? Number.NaN : shift + (r.float() - 0.5) * 2));
  // Keep every unit present somewhere (a unit with no value has no weight, and changes nothing).
  for (let k = 0; k < n; k++) if (Number.isNaN(d[k] as number)) d[k] = shift;
  return { rows, n, d, sizes };
}

describe("the inversion is the test's acceptance set", () => {
  it("p(0) equals the sign-flip test's p (exact), and the test rejects just outside each end and accepts just inside", () => {
    const r = Rng.fromKey("inversion-property");
    let checked = 0;
    for (let i = 0; i < 60; i++) {
      const g = randomGain(r);
      if (g.n < 6) continue;
      const inv = gainSignFlipInterval(g, 0, rng())!;
      expect(inv.p).toBeCloseTo(gainSignFlipP(g, 0, rng()).p!, 12);
      const width = inv.hi - inv.lo;
      const eps = 1e-6 * Math.max(1, width);
      const pAt = (delta: number): number => gainSignFlipP(shifted(g, delta), 0, rng()).p!;
      expect(pAt(inv.lo - eps)).toBeLessThan(0.05);
      expect(pAt(inv.lo + eps)).toBeGreaterThanOrEqual(0.05);
      expect(pAt(inv.hi + eps)).toBeLessThan(0.05);
      expect(pAt(inv.hi - eps)).toBeGreaterThanOrEqual(0.05);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });
  it("Monte Carlo (more than 16 units): p is signFlipTest's on the same seeded draws, and the ends bracket the test", () => {
    const d = Array.from({ length: 20 }, (_, k) => 0.2 + Math.sin(k * 1.7));
    const g = oneRow(d);
    const inv = gainSignFlipInterval(g, 2000, Rng.fromKey("mc"))!;
    expect(inv.kind).toBe("random");
    expect(inv.p).toBeCloseTo(gainSignFlipP(g, 2000, Rng.fromKey("mc")).p!, 12);
    const pAt = (delta: number): number => gainSignFlipP(shifted(g, delta), 2000, Rng.fromKey("mc")).p!;
    expect(pAt(inv.lo - 1e-6)).toBeLessThan(0.05);
    expect(pAt(inv.lo + 1e-6)).toBeGreaterThanOrEqual(0.05);
    expect(pAt(inv.hi + 1e-6)).toBeLessThan(0.05);
    expect(pAt(inv.hi - 1e-6)).toBeGreaterThanOrEqual(0.05);
  });
  it("signFlipTest of the linear statistic agrees with the inversion's p on integer data with ties", () => {
    // Binary-like differences tie often: the tie rule must count them in both.
    const d = [1, 0, 1, 1, -1, 1, 0, 1, 1, 1];
    const u = d.map((v) => v / d.length);
    const c = d.map(() => 1 / d.length);
    const inv = signFlipInversion(u, c, 0, rng())!;
    const test = signFlipTest(d.length, 0, rng(), (flip) => u.reduce((a, v, k) => a + (flip[k] ? -v : v), 0));
    expect(inv.p).toBe(test.p);
  });
});

describe("agreement: the printed interval excludes 0 exactly when the printed p < 0.05", () => {
  it("over 400 seeded random data sets (one run, runs kept, runs drawn)", () => {
    const r = Rng.fromKey("agreement-property");
    let excl = 0;
    for (let i = 0; i < 400; i++) {
      const g = randomGain(r);
      for (const runsFixed of [false, true]) {
        const e = estimateGain(g, { B: 100, seed: i }, ["prop", String(i)], { runsFixed });
        if (e.estimate.lo === null || e.estimate.hi === null || e.p === null) continue;
        const excludes = e.estimate.lo > 0 || e.estimate.hi < 0;
        expect(excludes).toBe(e.p < 0.05);
        if (excludes) excl++;
      }
    }
    // Both outcomes occur, so the property was exercised on both sides.
    expect(excl).toBeGreaterThan(20);
    expect(excl).toBeLessThan(700);
  });
});
