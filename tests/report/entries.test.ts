/**
 * The report entries are the one list of tables and figures: every entry describes itself (what it
 * reproduces, its notebook), and a table or figure added to the list (here a toy one, defined in this
 * file only) reaches the written report, report.json and reproduce's summary with no other change.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Dataset } from "../../src/analysis/load/dataset.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { writeSyntheticData, type SyntheticSummary } from "../../src/logs/synthetic.js";
import { buildReport } from "../../src/report/buildReport.js";
import { describeEntry, FIGURE_GROUPS, REPORT_ENTRIES, type ReportEntry } from "../../src/report/entries.js";
import { reportFigures, writeReport } from "../../src/report/writeReport.js";
import { outputLines, readWrittenReport } from "../../src/cli/reproduce/reproduceSummary.js";
import { tempDir } from "../analysis/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the report entries", () => {
  it("have one name per kind", () => {
    for (const kind of ["table", "figure"] as const) {
      const names = REPORT_ENTRIES.filter((e) => e.kind === kind).map((e) => e.name);
      expect(new Set(names).size, kind).toBe(names.length);
    }
  });

  it("each say in words what they reproduce, each its own thing", () => {
    const vague = REPORT_ENTRIES.filter((e) => e.paper.trim().split(/\s+/).length < 3);
    expect(vague.map((e) => `${e.kind} ${e.name}: '${e.paper}'`)).toEqual([]);
    for (const kind of ["table", "figure"] as const) {
      const texts = REPORT_ENTRIES.filter((e) => e.kind === kind).map((e) => e.paper);
      expect(new Set(texts).size, kind).toBe(texts.length);
    }
  });

  it("name a notebook that exists and shows them", () => {
    const wrong = REPORT_ENTRIES.filter((e) => {
      if (e.notebook === null) return false;
      const file = join(ROOT, "notebooks", e.notebook);
      return !existsSync(file) || !readFileSync(file, "utf8").includes(e.kind === "table" ? `tables.${e.name}` : `\\"${e.name}\\"`);
    });
    expect(wrong.map((e) => `${e.kind} ${e.name} -> ${e.notebook}`)).toEqual([]);
  });

  it("describe a per-game figure by its group and tell the views figures from the views table", () => {
    expect(describeEntry("curves_chess", "figure")).toBe("paper Figures 3-6");
    expect(describeEntry("views_snake", "figure")).toMatch(/panel per evaluation view/);
    expect(describeEntry("views", "table")).toMatch(/run x view/);
    expect(describeEntry("training", "table")).toMatch(/numbers, over loop seeds/);
    expect(describeEntry("training", "figure")).toBe("paper Figure 7");
    expect(describeEntry("no_such_table", "table")).toBe("");
    expect(FIGURE_GROUPS).toEqual(["curves", "training", "calibration", "coupling", "views", "cost_gain", "judge_dose_response", "judge_swap"]);
  });
});

describe("a toy table and figure added to the list", () => {
  let ds: Dataset;
  let summary: SyntheticSummary;
  beforeAll(async () => {
    const dir = tempDir();
    summary = await writeSyntheticData(dir, {
      seed: 2,
      models: ["a"],
      games: ["snake", "trust"],
      pathways: ["history"],
      exploreEpisodes: 3,
      checkpointEvery: 3,
      evalEpisodes: 2,
      stepsPerEpisode: [2, 3],
    });
    ds = await loadDataset(dir);
  });

  // One row: how many runs the report read (every loaded run: runs "all").
  const toyTable: ReportEntry = {
    kind: "table",
    name: "toy_runs",
    group: "core",
    runs: "all",
    notebook: null,
    paper: "a toy table: the runs read",
    build: (p) => ({ name: "toy_runs", title: "Toy", columns: [{ key: "runs", kind: "int" }], rows: [{ runs: p.all.runs.length }], notes: ["Intervals: none (a count)."] }),
  };
  const toyFigure: ReportEntry = {
    kind: "figure",
    name: "toy",
    group: "core",
    perGame: true,
    notebook: null,
    paper: "a toy figure per game",
    draw: (r, fileSafe) =>
      r.games.map((g) => ({
        name: `toy_${fileSafe(g)}`,
        spec: { title: `toy ${g}`, data: { values: [{ x: 1, y: 2 }] }, mark: "point", encoding: { x: { field: "x", type: "quantitative" }, y: { field: "y", type: "quantitative" } } },
      })),
  };
  const withToys = [...REPORT_ENTRIES, toyTable, toyFigure];

  it("are written by writeReport, listed in report.json and described by reproduce's summary", async () => {
    const report = buildReport(ds, { B: 20, seed: 1 }, withToys);
    expect(Object.keys(report.tables).at(-1)).toBe("toy_runs");
    // The calibration group draws the pooled calibration plot and the per-model reliability diagram.
    expect((await reportFigures(report, ["calibration"])).map((f) => f.name)).toEqual(["calibration", "calibration_reliability"]);
    expect(describeEntry("calibration_reliability", "figure")).toMatch(/reliability diagram per model/);
    const out = tempDir();
    await writeReport(report, out);
    // 2 games x 1 model x 1 pathway, as the generator counted them.
    expect(summary.runs).toBe(2);
    expect(readFileSync(join(out, "tables", "toy_runs.csv"), "utf8")).toBe("runs\n2\n");
    expect(readFileSync(join(out, "tables", "toy_runs.md"), "utf8")).toContain("| 2 |");
    expect(existsSync(join(out, "toy_snake.svg")) && existsSync(join(out, "toy_trust.png"))).toBe(true);
    const meta = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { files: string[]; interval_methods: Record<string, string> };
    expect(meta.files).toEqual(expect.arrayContaining(["tables/toy_runs.csv", "tables/toy_runs.md", "toy_snake.svg", "toy_trust.svg"]));
    expect(meta.interval_methods.toy_runs).toBe("Intervals: none (a count).");
    const lines = outputLines(readWrittenReport(out), { tables: "T", figures: "F" }, withToys);
    expect(lines).toContain(`                ${"toy_runs".padEnd(20)} a toy table: the runs read`);
    expect(lines).toContain(`                ${"toy_snake".padEnd(20)} a toy figure per game`);
    expect(lines.some((l) => l.startsWith(`                ${"main_results".padEnd(20)} paper Table 4 (intervals: `))).toBe(true);
    // Without the toy entries the same files have no description: the list is what describes them.
    expect(outputLines(readWrittenReport(out), { tables: "T", figures: "F" })).toContain(`                ${"toy_runs".padEnd(20)} `);
  });

  it("leaves the report's own list alone", () => {
    const report = buildReport(ds, { B: 20, seed: 1 });
    expect(Object.keys(report.tables)).not.toContain("toy_runs");
  });
});
