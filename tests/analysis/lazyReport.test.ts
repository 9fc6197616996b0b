/**
 * buildReport computes each part on first read (memoised getters): a lazily built table has the
 * bytes of the same table built directly by its builder (the eager code path), whatever was read
 * before it; a reader pays only for what it reads; and the summary counts match the generator's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { allBlocks, couplingTable, runLevelTable } from "../../src/analysis/tables/couplingTables.js";
import { withAdjustedP } from "../../src/analysis/stats/multiplicity.js";
import { analyzeCurves, analyzeTraining, mainResultsTable, mainResultsWideTable, summaryVsHistoryTable } from "../../src/analysis/tables/curveTables.js";
import { trainingBands, trainingEpochsTable, trainingSeedRows, trainingTable } from "../../src/analysis/tables/trainingSeeds.js";
import { loadDataset, type Dataset } from "../../src/analysis/load/dataset.js";
import { calibrationBins, judgingInputs, positiveRatesTable, selfJudgingTable } from "../../src/analysis/tables/judgingTables.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { ReportTables } from "../../src/report/entries.js";
import { type ReportPart } from "../../src/analysis/tables/reportParts.js";
import { gameRewardRanges, requiredGames } from "../../src/analysis/load/runs.js";
import { writeSyntheticData, type SyntheticSummary } from "../../src/logs/synthetic.js";
import type { Table } from "../../src/analysis/tables/table.js";
import { analyzeViews } from "../../src/analysis/tables/viewTables.js";
import { toCsv } from "../../src/report/tables.js";
import { qualityFiltered, runQualityTable } from "../../src/analysis/tables/runQuality.js";
import { reportFigures, writeTables } from "../../src/report/writeReport.js";
import { tempDir } from "./helpers.js";

const CFG = { B: 40, seed: 3, level: 0.95 };

let ds: Dataset;
let summary: SyntheticSummary;
const all = (): Dataset => ds;

beforeAll(async () => {
  const dir = tempDir();
  summary = await writeSyntheticData(dir, {
    seed: 5,
    models: ["a", "b"],
    games: ["snake", "trust"],
    pathways: ["history", "memory"],
    exploreEpisodes: 6,
    checkpointEvery: 3,
    evalEpisodes: 3,
    stepsPerEpisode: [2, 5],
    failRate: 0.1,
    training: { models: ["t"], epochs: 3 },
  });
  ds = await loadDataset(dir);
});

/** The tables as the eager buildReport computed them: every builder called directly, on the runs run_quality let through. */
function eagerTables(): Record<string, Table<object>> {
  const all = ds;
  const ds_ = qualityFiltered(all, false).ds;
  return eagerOn(all, ds_);
}

function eagerOn(all: Dataset, ds: Dataset): Record<string, Table<object>> {
  const ca = analyzeCurves(ds, CFG, requiredGames(ds));
  const ji = judgingInputs(ds, gameRewardRanges(ds));
  const va = analyzeViews(ds, CFG);
  const main = mainResultsTable(ca, CFG, {});
  return {
    run_quality: runQualityTable(all, CFG),
    // The report adds Holm and BH beside every p column (multiplicity.ts).
    main_results: withAdjustedP(main),
    main_results_wide: mainResultsWideTable(main),
    self_judging: selfJudgingTable(ji, CFG),
    coupling: couplingTable(allBlocks(ji), CFG),
    run_level: runLevelTable(ji, CFG),
    summary_vs_history: withAdjustedP(summaryVsHistoryTable(ca, CFG, {})),
    training: trainingTable(trainingSeedRows(analyzeTraining(ds, CFG).rows, CFG), CFG),
    training_epochs: trainingEpochsTable(trainingBands(analyzeTraining(ds, CFG).series, CFG), CFG),
    positive_rates: positiveRatesTable(ji, CFG),
    cost: va.cost,
    cost_runs: va.costRuns,
  };
}

/** A report that records the parts it builds, in order. */
function traced(): { report: ReturnType<typeof buildReport>; built: ReportPart[] } {
  const built: ReportPart[] = [];
  return { report: buildReport(ds, { ...CFG, onBuild: (p) => built.push(p) }), built };
}

describe("the lazily built report", () => {
  it("lists its tables in the report's order without building any of them", () => {
    const { report, built } = traced();
    expect(Object.keys(report.tables)).toEqual([
      "run_quality",
      "main_results",
      "main_results_wide",
      "self_judging",
      "coupling",
      "run_level",
      "summary_vs_history",
      "training",
      "training_epochs",
      "positive_rates",
      "cost",
      "cost_runs",
    ]);
    expect(built).toEqual([]);
  });

  it("has every table byte-identical to the builder's own, read in reverse order", () => {
    const eager = eagerTables();
    const { report } = traced();
    const names = Object.keys(report.tables).reverse() as (keyof ReportTables)[];
    for (const name of names) expect(toCsv(report.tables[name] as Table<object>), name).toBe(toCsv(eager[name]!));
    expect(names.length).toBe(Object.keys(eager).length);
  });

  it("builds a table once, and only what it needs", () => {
    const { report, built } = traced();
    const first = report.tables.main_results;
    expect(report.tables.main_results).toBe(first);
    expect(built).toEqual(["curve_analysis", "main_results"]);
    void report.tables.main_results_wide;
    expect(built).toEqual(["curve_analysis", "main_results", "main_results_wide"]);
    void report.tables.self_judging;
    expect(built.slice(3)).toEqual(["judging_inputs", "self_judging"]);
    expect(built).not.toContain("view_analysis");
  });

  it("writes only the named tables and draws only the named figures' data", async () => {
    const { report, built } = traced();
    const out = tempDir();
    const files = await writeTables(report, out, ["coupling", "run_level"]);
    expect(files.map((f) => f.slice(out.length + 1))).toEqual([
      "tables/coupling.csv",
      "tables/coupling.md",
      "tables/coupling.tex",
      "tables/run_level.csv",
      "tables/run_level.md",
      "tables/run_level.tex",
    ]);
    expect(built).toEqual(["judging_inputs", "blocks", "coupling", "run_level"]);
    const figures = await reportFigures(report, ["coupling", "calibration"]);
    expect(figures.map((f) => f.name)).toEqual(["calibration", "calibration_reliability", "coupling"]);
    expect(built.slice(4)).toEqual(["calibration", "reliability"]);
    expect(built).not.toContain("curve_analysis");
  });

  it("counts runs, training runs and steps as the generator wrote them", () => {
    const { report } = traced();
    expect(report.counts.runs).toBe(summary.runs);
    expect(report.counts.trainingRuns).toBe(summary.trainingRuns);
    expect(report.counts.steps).toBe(summary.steps);
    expect(report.warnings).toBe(ds.warnings);
  });

  it("gives the curve figures' data and the calibration bins of the direct builders", () => {
    const { report } = traced();
    const ds = qualityFiltered(all(), false).ds;
    const ca = analyzeCurves(ds, CFG, requiredGames(ds));
    expect(report.curves).toEqual(ca.series);
    expect(report.games).toEqual(["snake", "trust"]);
    expect(report.calibration).toEqual(calibrationBins(judgingInputs(ds, gameRewardRanges(ds)), 10, CFG));
    expect([...report.incompleteModels]).toEqual([...ca.incompleteModels]);
  });
});
