/** gain_vs_y0 and gain_vs_none (issue 24 item 3) on hand-computed cases. */
import { describe, expect, it } from "vitest";
import { concatGain, gainPoint, gainSignFlipP, gainUnderWeights, gainVsNone, gainVsNoneData, gainVsY0, gainVsY0Data } from "../../src/analysis/metrics/gain.js";
import type { SeedCurve } from "../../src/analysis/stats/seedCurves.js";
import { Rng } from "../../src/util/rng.js";

/** A SeedCurve from rows [x, scores per seed]. */
function sc(keys: number[], rows: [number, number[]][]): SeedCurve {
  return { run_id: "r", game: "g", xs: rows.map((r) => r[0]), keys, pairedBy: "seed", scores: Float64Array.from(rows.flatMap((r) => r[1])) };
}

const rng = (): Rng => Rng.fromKey("gain-test");

describe("gain on mean curves", () => {
  it("gain_vs_y0: mean over valid x >= 3 of y - y0 (x = 1 and a failed x = 9 left out)", () => {
    // y0 = 1; x = 3: 2 - 1 = 1; x = 6: 4 - 1 = 3; mean 2.
    expect(
      gainVsY0([
        { x: 0, y: 1 },
        { x: 1, y: 5 },
        { x: 3, y: 2 },
        { x: 6, y: 4 },
        { x: 9, y: null },
      ]),
    ).toBe(2);
  });
  it("gain_vs_y0 is signed: a curve below y0 gives a negative gain", () => {
    expect(
      gainVsY0([
        { x: 0, y: 3 },
        { x: 3, y: 1 },
        { x: 6, y: 2 },
      ]),
    ).toBe(-1.5);
  });
  it("gain_vs_y0 is missing without y0 or without a checkpoint x >= 3", () => {
    expect(gainVsY0([{ x: 3, y: 2 }])).toBeNull();
    expect(
      gainVsY0([
        { x: 0, y: null },
        { x: 3, y: 2 },
      ]),
    ).toBeNull();
    expect(
      gainVsY0([
        { x: 0, y: 1 },
        { x: 2, y: 2 },
      ]),
    ).toBeNull();
  });
  it("gain_vs_none: mean over x >= 3 valid on both sides of y_P - y_none", () => {
    // x = 3: 2 - 1 = 1; x = 6: none failed (skipped); x = 9: 3 - 4 = -1; x = 0 is before 3. Mean 0.
    const p = [
      { x: 0, y: 9 },
      { x: 3, y: 2 },
      { x: 6, y: 4 },
      { x: 9, y: 3 },
    ];
    const n = [
      { x: 0, y: 0 },
      { x: 3, y: 1 },
      { x: 6, y: null },
      { x: 9, y: 4 },
    ];
    expect(gainVsNone(p, n)).toBe(0);
    expect(gainVsNone([{ x: 3, y: 5 }], [{ x: 3, y: 2 }])).toBe(3);
    expect(gainVsNone([{ x: 3, y: 5 }], [{ x: 6, y: 2 }])).toBeNull();
  });
});

describe("gain on seed-level data", () => {
  // Seeds 1, 2: x = 0: [1, 3]; x = 3: [2, 5]; x = 6: [4, 4]. Mean curve 2, 3.5, 4: gain_vs_y0 = (1.5 + 2) / 2 = 1.75.
  const run = sc(
    [1, 2],
    [
      [0, [1, 3]],
      [3, [2, 5]],
      [6, [4, 4]],
    ],
  );
  it("gain_vs_y0 data: per seed y(x) - y(0), and the point equals the mean-curve gain", () => {
    const g = gainVsY0Data(run)!;
    expect([...g.d]).toEqual([1, 2, 3, 1]);
    expect(gainPoint(g)).toBe(1.75);
    expect(
      gainVsY0([
        { x: 0, y: 2 },
        { x: 3, y: 3.5 },
        { x: 6, y: 4 },
      ]),
    ).toBe(1.75);
  });
  it("weights: seed 1 drawn twice, seed 2 not: row means 1 and 3 -> 2", () => {
    expect(gainUnderWeights(gainVsY0Data(run)!, [2, 0])).toBe(2);
  });
  it("gain_vs_none data pairs seeds and needs the same seed list", () => {
    const none = sc(
      [1, 2],
      [
        [0, [1, 3]],
        [3, [1, 1]],
        [6, [5, 1]],
      ],
    );
    const g = gainVsNoneData(run, none)!;
    // x = 3: [1, 4]; x = 6: [-1, 3]; row means 2.5 and 1 -> 1.75.
    expect([...g.d]).toEqual([1, 4, -1, 3]);
    expect(gainPoint(g)).toBe(1.75);
    expect(gainVsNoneData(run, sc([1, 3], [[3, [1, 1]]]))).toBeNull();
  });
  it("exact sign-flip p: 3 seeds all improving -> 2 / 8; 2 seeds (2 and 1.5) -> 2 / 4", () => {
    const three = gainVsY0Data(
      sc(
        [1, 2, 3],
        [
          [0, [0, 0, 0]],
          [3, [1, 2, 3]],
        ],
      ),
    )!;
    expect(gainSignFlipP(three, 100, rng())).toEqual({ p: 0.25, kind: "exact" });
    // Per-seed differences 2 and 1.5: |T| = 1.75 reached by (+,+) and (-,-) only.
    expect(gainSignFlipP(gainVsY0Data(run)!, 100, rng())).toEqual({ p: 0.5, kind: "exact" });
  });
  it("a flat control (all differences 0) has p = 1", () => {
    const flat = gainVsY0Data(
      sc(
        [1, 2, 3],
        [
          [0, [1, 2, 3]],
          [3, [1, 2, 3]],
        ],
      ),
    )!;
    expect(gainPoint(flat)).toBe(0);
    expect(gainSignFlipP(flat, 100, rng()).p).toBe(1);
  });
  it("several runs: clusters averaged, a cluster weighted by its draws", () => {
    const other = gainVsY0Data(
      sc(
        [7],
        [
          [0, [0]],
          [3, [4]],
          [6, [4]],
          [9, [4]],
        ],
      ),
    )!;
    const g = concatGain([gainVsY0Data(run)!, other])!;
    expect(g.sizes).toEqual([2, 1]);
    expect(gainPoint(g)).toBe((1.75 + 4) / 2);
    expect(gainUnderWeights(g, [0, 0, 2])).toBe(4);
    // The first run drawn twice (its seeds 2 + 2 = 2 draws of size 2), the second once: (2 * 1.75 + 4) / 3.
    expect(gainUnderWeights(g, [2, 2, 1])).toBeCloseTo((2 * 1.75 + 4) / 3, 12);
  });
});
