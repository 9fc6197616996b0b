/**
 * The reproduce summary names what every table and figure is. The tables are every key of
 * ReportTables (a Record over its keys: a new table that is not listed here fails the type check),
 * the figures every group `report` writes (FIGURE_GROUPS; curves_ and views_ stand for their games).
 */
import { describe, expect, it } from "vitest";
import type { ReportTables } from "../../src/analysis/report.js";
import { describeOutput } from "../../src/cli/reproduce.js";
import { FIGURE_GROUPS } from "../../src/report/writeReport.js";

const TABLE_KEYS: Record<keyof ReportTables, true> = {
  run_quality: true, main_results: true, main_results_wide: true, self_judging: true, coupling: true, run_level: true,
  summary_vs_history: true, training: true, training_epochs: true, positive_rates: true, cost: true, cost_runs: true,
  views: true, view_updates: true, forgetting: true, verifier_reliability: true, verified_vs_memory: true,
  verified_vs_history: true, tokens_by_pathway: true, judge_dose_response: true, judge_dose_response_r: true,
};
const TABLES = Object.keys(TABLE_KEYS);
const FIGURES = FIGURE_GROUPS.map((g) => (g === "curves" ? "curves_chess" : g === "views" ? "views_snake" : g));

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
