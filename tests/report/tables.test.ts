/** Rendering rules: 3 decimals, `0.547 [0.412, 0.690]`, missing = empty cell, notes under the table. */
import { describe, expect, it } from "vitest";
import type { Table } from "../../src/analysis/tables/table.js";
import { csvHeader, fmt3, fmtEstimate, toCsv, toMarkdown } from "../../src/report/tables.js";

describe("number formatting", () => {
  it("prints 3 decimals and never -0.000", () => {
    expect(fmt3(0.5474)).toBe("0.547");
    expect(fmt3(12)).toBe("12.000");
    expect(fmt3(-0.0001)).toBe("0.000");
    expect(fmt3(-1.23456)).toBe("-1.235");
  });

  it("prints missing values as empty strings", () => {
    expect(fmt3(null)).toBe("");
    expect(fmt3(Number.NaN)).toBe("");
    expect(fmtEstimate({ point: null, lo: 1, hi: 2 })).toBe("");
  });

  it("prints an estimate as `point [lo, hi]`, or the point alone without an interval", () => {
    expect(fmtEstimate({ point: 0.547, lo: 0.412, hi: 0.69 })).toBe("0.547 [0.412, 0.690]");
    expect(fmtEstimate({ point: 0.547, lo: null, hi: null })).toBe("0.547");
  });

  it("says beside an indicative interval how many units it rests on, and prints a mark last", () => {
    expect(fmtEstimate({ point: 0.547, lo: 0.41, hi: 0.69, n: 3, indicative: true })).toBe("0.547 [0.410, 0.690] n=3");
    // enough units: no n= (the CSV still has it)
    expect(fmtEstimate({ point: 0.547, lo: 0.41, hi: 0.69, n: 30 })).toBe("0.547 [0.410, 0.690]");
    expect(fmtEstimate({ point: 12, lo: 10, hi: 14, n: 3, indicative: true, mark: "to x=27" })).toBe("12.000 [10.000, 14.000] n=3 to x=27");
    // no interval: nothing to call indicative
    expect(fmtEstimate({ point: 0.5, lo: null, hi: null, n: 3, indicative: true })).toBe("0.500");
  });
});

describe("CSV and Markdown", () => {
  const table: Table = {
    name: "t",
    title: "A table",
    columns: [
      { key: "model", kind: "text" },
      { key: "n", kind: "int" },
      { key: "avg", kind: "estimate" },
      { key: "naba", kind: "estimate_point" },
      { key: "gap", kind: "num" },
    ],
    rows: [
      { model: "a,b", n: 3, avg: { point: 0.5, lo: 0.25, hi: 0.75, n: 3, indicative: true }, naba: { point: 2, lo: 1, hi: 3 }, gap: null },
      { model: "c", n: 0, avg: { point: null, lo: null, hi: null }, naba: { point: null, lo: null, hi: null }, gap: -0.25 },
    ],
    notes: ["Intervals: 95% percentile bootstrap, B = 10, seed = 0; resampled: runs."],
  };

  it("expands estimate columns in the CSV header only for `estimate`", () => {
    expect(csvHeader(table.columns)).toEqual(["model", "n", "avg", "avg_lo", "avg_hi", "avg_n", "avg_indicative", "naba", "gap"]);
  });

  it("writes CSV at full precision with the indicative flag, empty cells for missing values (never 0), quoted commas", () => {
    expect(toCsv(table)).toBe(["model,n,avg,avg_lo,avg_hi,avg_n,avg_indicative,naba,gap", '"a,b",3,0.5,0.25,0.75,3,true,2,', "c,0,,,,,,,-0.25", ""].join("\n"));
    // No rounding: 1/3 keeps its digits; -0 prints as 0.
    const exact: typeof table = { ...table, rows: [{ model: "d", n: 1, avg: { point: 1 / 3, lo: 0.1, hi: 2 / 3, n: 12 }, naba: { point: -0, lo: null, hi: null }, gap: 1e-7 }] };
    expect(toCsv(exact).split("\n")[1]).toBe(`d,1,${1 / 3},0.1,${2 / 3},12,false,0,1e-7`);
  });

  it("a single unit prints no interval, only the point and n=1", () => {
    const one: typeof table = { ...table, rows: [{ model: "e", n: 1, avg: { point: 1.5, lo: 1.5, hi: 1.5, n: 1 }, naba: { point: null, lo: null, hi: null }, gap: null }] };
    expect(toCsv(one).split("\n")[1]).toBe("e,1,1.5,,,1,,,");
    expect(toMarkdown(one)).toContain("| e | 1 | 1.500 n=1 |  |  |");
  });

  it("writes Markdown with intervals in one cell and the notes under the table", () => {
    const md = toMarkdown(table);
    const lines = md.split("\n");
    expect(lines[0]).toBe("## A table");
    expect(lines).toContain("| model | n | avg | naba | gap |");
    expect(lines).toContain("| a,b | 3 | 0.500 [0.250, 0.750] n=3 | 2.000 [1.000, 3.000] |  |");
    expect(lines).toContain("| c | 0 |  |  | -0.250 |");
    expect(md.indexOf("Intervals: 95% percentile bootstrap, B = 10, seed = 0")).toBeGreaterThan(md.indexOf("| c | 0 |"));
  });
});
