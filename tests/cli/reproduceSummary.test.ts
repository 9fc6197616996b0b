/**
 * The reproduce summary names what every table and figure is. The stems below are the files `report`
 * writes (src/analysis/report.ts ReportTables, src/report/writeReport.ts figures), written out by hand
 * so a new table without a description fails here.
 */
import { describe, expect, it } from "vitest";
import { describeOutput } from "../../src/cli/reproduce.js";

const TABLES = [
  "main_results", "main_results_wide", "self_judging", "coupling", "run_level", "summary_vs_history", "training",
  "positive_rates", "cost", "cost_runs", "views", "view_updates", "forgetting", "verifier_reliability",
  "verified_vs_memory", "verified_vs_history", "tokens_by_pathway",
];
const FIGURES = ["curves_chess", "curves_pvz", "training", "calibration", "coupling", "views_snake", "views_trust", "cost_gain"];

describe("reproduce summary descriptions", () => {
  it("describes every table and figure report writes", () => {
    const blank = [...TABLES.map((t) => [t, describeOutput(t, false)]), ...FIGURES.map((f) => [`${f}.svg`, describeOutput(f, true)])].filter(([, d]) => d!.trim() === "");
    expect(blank).toEqual([]);
  });
  it("tells the views' figures from the views table", () => {
    expect(describeOutput("views_snake", true)).toMatch(/panel per evaluation view/);
    expect(describeOutput("views", false)).toMatch(/run x view/);
  });
});
