/**
 * Curve metrics, hand-computed (metrics.md, "Curves"). Every expected number below is worked out in
 * the comment next to it from the curve's values.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  aucPlus,
  curveAvg,
  curveMax,
  curveMetrics,
  curveMetricsSorted,
  dNaba,
  naba,
  nabaFrom,
  nabaScale,
  summarizeDeltas,
  trainingMetrics,
  type CurveMetrics,
  type CurvePoint,
} from "../../src/analysis/metrics/curves.js";

const c = (...ys: (number | null)[]): CurvePoint[] => ys.map((y, i) => ({ x: 3 * i, y }));

describe("Avg, Max, AUC+, NABA", () => {
  it("a failed checkpoint in the middle is left out and AUC+ joins its neighbours", () => {
    // x: 0 3 6 9 ; y: 1 2 - 4
    const curve = c(1, 2, null, 4);
    expect(curveAvg(curve)).toBeCloseTo(7 / 3, 12); // (1 + 2 + 4) / 3
    expect(curveMax(curve)).toBe(4);
    // c = 0, 1, -, 3: (3-0)(0+1)/2 + (9-3)(1+3)/2 = 1.5 + 12
    expect(aucPlus(curve)).toBeCloseTo(13.5, 12);
    expect(naba(curve)).toBeCloseTo(13.5, 12); // scale y0 = 1
  });

  it("a failed checkpoint at x = 0 leaves AUC+ and NABA missing (never 0)", () => {
    const curve = c(null, 2, 5);
    expect(aucPlus(curve)).toBeNull();
    expect(naba(curve)).toBeNull();
    expect(curveAvg(curve)).toBeCloseTo(3.5, 12); // (2 + 5) / 2
    expect(curveMax(curve)).toBe(5);
  });

  it("y0 = 0 with a later non-zero value uses the first non-zero value as the scale", () => {
    // y: 0 0 0.5 1 ; c = 0 0 0.5 1: 3*0/2 + 3*(0+0.5)/2 + 3*(0.5+1)/2 = 0 + 0.75 + 2.25 = 3
    const curve = c(0, 0, 0.5, 1);
    expect(aucPlus(curve)).toBeCloseTo(3, 12);
    expect(nabaScale(curve)).toBe(0.5);
    expect(naba(curve)).toBeCloseTo(6, 12); // 3 / 0.5
  });

  it("the first non-zero value skips failed checkpoints", () => {
    // y: 0 - 2 ; scale = 2 ; c = 0 - 2: (6-0)(0+2)/2 = 6 ; NABA 3
    const curve = c(0, null, 2);
    expect(nabaScale(curve)).toBe(2);
    expect(naba(curve)).toBeCloseTo(3, 12);
  });

  it("a flat curve has AUC+ 0 and NABA 0; an all-zero curve has NABA 0", () => {
    expect(aucPlus(c(2, 2, 2))).toBe(0);
    expect(naba(c(2, 2, 2))).toBe(0);
    expect(curveAvg(c(2, 2, 2))).toBe(2);
    expect(naba(c(0, 0, 0))).toBe(0);
    expect(nabaScale(c(0, 0, 0))).toBe(0);
  });

  it("values below y0 are clipped to 0 before integrating", () => {
    // y: 1 0.5 2 ; c = 0 0 1: 3*(0+0)/2 + 3*(0+1)/2 = 1.5
    expect(aucPlus(c(1, 0.5, 2))).toBeCloseTo(1.5, 12);
  });

  it("uses the x spacing of the data (uneven x after a missing record)", () => {
    // x: 0, 3, 9 (no record for 6); y: 0.2, 0.4, 0.8 ; c = 0, 0.2, 0.6: 3*0.2/2 + 6*0.8/2 = 0.3 + 2.4
    const curve: CurvePoint[] = [
      { x: 9, y: 0.8 },
      { x: 0, y: 0.2 },
      { x: 3, y: 0.4 },
    ];
    expect(aucPlus(curve)).toBeCloseTo(2.7, 12);
  });

  it("reproduces the paper's check: y0 = 0.369 and AUC+ = 12.28 give NABA = 33.28", () => {
    expect(nabaFrom(12.28, 0.369)).toBeCloseTo(33.28, 2);
    // A two-point curve with exactly that area: 3 * (0 + (y3 - y0)) / 2 = 12.28.
    const y3 = 0.369 + (2 * 12.28) / 3;
    expect(
      aucPlus([
        { x: 0, y: 0.369 },
        { x: 3, y: y3 },
      ]),
    ).toBeCloseTo(12.28, 10);
    expect(
      naba([
        { x: 0, y: 0.369 },
        { x: 3, y: y3 },
      ]),
    ).toBeCloseTo(33.28, 2);
  });

  it("uses |y0| as the scale when y0 < 0, so an improvement stays positive (documented departure)", () => {
    // y: -2 1 ; c = 0 3 ; AUC+ = 3*(0+3)/2 = 4.5 ; scale = |-2| = 2 ; NABA = 2.25
    expect(nabaScale(c(-2, 1))).toBe(2);
    expect(naba(c(-2, 1))).toBeCloseTo(2.25, 12);
    // y0 = 0, first non-zero -4: scale 4 ; y: 0 -4 2 ; c = 0 0 2 ; AUC+ = 3*(0+0)/2 + 3*(0+2)/2 = 3 ; NABA 0.75
    expect(nabaScale(c(0, -4, 2))).toBe(4);
    expect(naba(c(0, -4, 2))).toBeCloseTo(0.75, 12);
    expect(curveMetrics(c(0, -4, 2)).naba).toBeCloseTo(0.75, 12);
  });

  it("a curve with no valid checkpoint has every metric missing", () => {
    expect(curveMetrics(c(null, null))).toEqual({ avg: null, max: null, auc_plus: null, naba: null });
    expect(curveMetrics([])).toEqual({ avg: null, max: null, auc_plus: null, naba: null });
  });
});

describe("dNABA", () => {
  it("is memory minus history, missing when either is", () => {
    expect(dNaba(3, 7.5)).toBe(-4.5);
    expect(dNaba(null, 1)).toBeNull();
    expect(dNaba(1, null)).toBeNull();
  });

  it("counts wins, losses and ties (|d| < 1e-9) and skips missing values", () => {
    const s = summarizeDeltas([2, -1, 0, 5e-10, -3e-10, null, 1]);
    expect([s.wins, s.losses, s.ties, s.n]).toEqual([2, 1, 3, 6]);
    // mean of 2, -1, 0, 5e-10, -3e-10, 1 = 2 / 6 (plus 2e-10 / 6)
    expect(s.mean).toBeCloseTo(2 / 6, 9);
    expect(summarizeDeltas([null]).mean).toBeNull();
  });
});

describe("training curves", () => {
  it("dFinal, Avg/Max over updated epochs, AUC+ with spacing 1, count above y0", () => {
    // epochs 0..4, y: 1 2 - 0.5 3
    const curve: CurvePoint[] = [1, 2, null, 0.5, 3].map((y, x) => ({ x, y }));
    const m = trainingMetrics(curve);
    expect(m.y0).toBe(1);
    expect(m.y_final).toBe(3);
    expect(m.d_final).toBe(2);
    expect(m.avg).toBeCloseTo(5.5 / 3, 12); // (2 + 0.5 + 3) / 3, epoch 0 excluded
    expect(m.max).toBe(3);
    // c = 0 1 - 0 2: 1*(0+1)/2 + 2*(1+0)/2 + 1*(0+2)/2 = 0.5 + 1 + 1
    expect(m.auc_plus).toBeCloseTo(2.5, 12);
    expect(m.n_above).toBe(2); // 2 and 3 are above 1
    expect(m.n_updated).toBe(3);
  });

  it("a failed last epoch leaves y_final and d_final missing; a failed base leaves the y0-based ones missing", () => {
    const lastFailed = trainingMetrics([1, 2, null].map((y, x) => ({ x, y })));
    expect(lastFailed.y_final).toBeNull();
    expect(lastFailed.d_final).toBeNull();
    expect(lastFailed.avg).toBe(2);
    const baseFailed = trainingMetrics([null, 2, 4].map((y, x) => ({ x, y })));
    expect([baseFailed.y0, baseFailed.d_final, baseFailed.auc_plus, baseFailed.n_above]).toEqual([null, null, null, null]);
    expect(baseFailed.avg).toBe(3);
    expect(baseFailed.y_final).toBe(4);
  });
});

describe("curveMetricsSorted (the bootstrap's allocation-free path)", () => {
  it("agrees with curveMetrics on any curve", () => {
    const point = fc.record({
      y: fc.option(
        fc.integer({ min: -20, max: 40 }).map((v) => v / 4),
        { nil: null },
      ),
    });
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 12 }), (pts) => {
        const curve: CurvePoint[] = pts.map((p, i) => ({ x: 3 * i, y: p.y }));
        const ref = curveMetrics(curve);
        const valid = curve.filter((p) => p.y !== null);
        const out: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
        curveMetricsSorted(
          valid.map((p) => p.x),
          valid.map((p) => p.y as number),
          valid.length,
          valid[0]?.x === 0,
          out,
        );
        for (const k of ["avg", "max", "auc_plus", "naba"] as const) {
          if (ref[k] === null) expect(out[k]).toBeNull();
          else expect(out[k]).toBeCloseTo(ref[k] as number, 9);
        }
      }),
      { numRuns: 300 },
    );
  });
});
