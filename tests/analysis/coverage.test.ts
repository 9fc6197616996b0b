/** The coverage table's rules: the smallest supported size, and the flag on estimates below it. */
import { describe, expect, it } from "vitest";
import { MEASURED_COVERAGE, coverageAt, flagEstimate, minSupportedUnits, smallNNote } from "../../src/analysis/stats/coverage.js";

describe("coverage table", () => {
  it("the smallest size from which every measured size covers 95 +- 3", () => {
    // Checked against the table's own numbers: the rule, not the numbers, is under test.
    for (const metric of Object.keys(MEASURED_COVERAGE) as (keyof typeof MEASURED_COVERAGE)[]) {
      const cov = MEASURED_COVERAGE[metric].coverage;
      const min = minSupportedUnits(metric);
      const sizes = [3, 5, 10, 30] as const;
      if (min === null) expect(Math.abs(cov[30] - 95)).toBeGreaterThan(3);
      else for (const u of sizes) expect(Math.abs(cov[u] - 95) <= 3, `${metric} ${u}`).toBe(u >= min);
    }
  });

  it("flags an estimate below the supported size and writes the note; a missing interval is never flagged", () => {
    const min = minSupportedUnits("nmae");
    expect(min).toBe(10);
    const below = flagEstimate({ point: 1, lo: 0, hi: 2, n: 3 }, "nmae");
    const at = flagEstimate({ point: 1, lo: 0, hi: 2, n: min as number }, "nmae");
    expect(below.indicative).toBe(true);
    expect(at.indicative).toBeUndefined();
    expect(flagEstimate({ point: 1, lo: null, hi: null, n: 3 }, "nmae").indicative).toBeUndefined();
    const note = smallNNote([{ nmae: below }, { nmae: at }], [{ key: "nmae", metric: "nmae" }]);
    expect(note).toHaveLength(1);
    expect(note[0]).toContain(`n=3: ${(coverageAt("nmae", 3) as number).toFixed(0)}% measured`);
    expect(smallNNote([{ nmae: at }], [{ key: "nmae", metric: "nmae" }])).toEqual([]);
  });

  it("a metric no measured size supports (Avg: 90% in its worst shape at 30 seeds) is indicative at every n", () => {
    expect(minSupportedUnits("avg")).toBeNull();
    expect(flagEstimate({ point: 1, lo: 0, hi: 2, n: 100 }, "avg").indicative).toBe(true);
  });

  it("coverageAt reads the largest measured size not above n", () => {
    expect(coverageAt("avg", 2)).toBeNull();
    expect(coverageAt("avg", 7)).toBe(MEASURED_COVERAGE.avg.coverage[5]);
    expect(coverageAt("avg", 98)).toBe(MEASURED_COVERAGE.avg.coverage[30]);
  });
});
