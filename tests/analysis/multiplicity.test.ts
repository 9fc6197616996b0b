/** Holm and Benjamini-Hochberg adjustments, hand-computed, and their columns beside every p column. */
import { describe, expect, it } from "vitest";
import { bhAdjust, holmAdjust, withAdjustedP } from "../../src/analysis/stats/multiplicity.js";
import type { Table } from "../../src/analysis/tables/table.js";

describe("holmAdjust and bhAdjust", () => {
  // p = 0.01, 0.04, 0.03, null, 0.20 (m = 4).
  // Holm, sorted 0.01, 0.03, 0.04, 0.20: 4*0.01 = 0.04; 3*0.03 = 0.09; 2*0.04 = 0.08 -> running max 0.09; 1*0.2 = 0.2.
  // BH: 0.2*4/4 = 0.2; 0.04*4/3 = 0.0533; 0.03*4/2 = 0.06 -> min with 0.0533 = 0.0533; 0.01*4/1 = 0.04.
  const ps = [0.01, 0.04, 0.03, null, 0.2];
  it("Holm: step-down, monotone, nulls stay null", () => {
    const h = holmAdjust(ps);
    expect(h[0]).toBeCloseTo(0.04, 12);
    expect(h[1]).toBeCloseTo(0.09, 12);
    expect(h[2]).toBeCloseTo(0.09, 12);
    expect(h[3]).toBeNull();
    expect(h[4]).toBeCloseTo(0.2, 12);
  });
  it("BH: step-up, capped at 1", () => {
    const q = bhAdjust(ps);
    expect(q[0]).toBeCloseTo(0.04, 12);
    expect(q[1]).toBeCloseTo(0.16 / 3, 12);
    expect(q[2]).toBeCloseTo(0.16 / 3, 12);
    expect(q[3]).toBeNull();
    expect(q[4]).toBeCloseTo(0.2, 12);
    expect(bhAdjust([0.9, 0.95])).toEqual([0.95, 0.95]);
  });
});

describe("withAdjustedP", () => {
  it("puts <p>_holm and <p>_bh beside each p column, one family over every p of the table, and names it", () => {
    const t: Table = {
      name: "t",
      title: "t",
      columns: [
        { key: "x", kind: "text" },
        { key: "a_p", kind: "p" },
        { key: "b_p", kind: "p" },
      ],
      rows: [
        { x: "r1", a_p: 0.01, b_p: 0.04 },
        { x: "r2", a_p: 0.03, b_p: null },
      ],
      notes: ["n0"],
    };
    const u = withAdjustedP(t);
    expect(u.columns.map((c) => c.key)).toEqual(["x", "a_p", "a_p_holm", "a_p_bh", "b_p", "b_p_holm", "b_p_bh"]);
    // Family of 3: 0.01, 0.04, 0.03. Holm: 0.03, 0.06, max(0.06, 0.04) = 0.06.
    expect(u.rows[0]!.a_p_holm).toBeCloseTo(0.03, 12);
    expect(u.rows[1]!.a_p_holm).toBeCloseTo(0.06, 12);
    expect(u.rows[0]!.b_p_holm).toBeCloseTo(0.06, 12);
    expect(u.rows[1]!.b_p_holm).toBeNull();
    expect(u.notes.at(-1)).toMatch(/family is every p-value this table prints \(a_p, b_p, over all its rows: 3 p-values\)/);
    expect(t.rows[0]).not.toHaveProperty("a_p_holm");
    // A table without p-values is unchanged.
    const plain: Table = { ...t, columns: [{ key: "x", kind: "text" }] };
    expect(withAdjustedP(plain)).toBe(plain);
  });
});
