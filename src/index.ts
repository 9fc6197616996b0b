/**
 * The kit's library entry (`dist/index.js`, the package `s3gym`): the public API, named one by one.
 * What is listed here is what notebooks, scripts and a study's own analysis may rely on; every other
 * module of the kit is internal and may change without notice. A new public function is one line in
 * its group below (docs/study.md, "The library").
 *
 * Notebooks run under tslab's Node10 resolution: a study's notebook imports `s3gym` (package.json
 * `main` and `types`), the kit's own notebooks `../dist/index.js`.
 *
 * tslab loads it with `require()`: nothing imported statically from here may reach vega (its node
 * build has a top-level await, which `require()` refuses). The renderer is reached through the lazy
 * wrappers of `report/notebooks/figures.ts` and `report/writeReport.ts`; tests/report/notebooks checks the graph.
 */

// Loading logs: the compact data set, columns and danfojs frames, the SQL view, whole runs.
export { loadDataset, loadDialDataset, filterModels, compareRuns } from "./analysis/load/dataset.js";
export type { Dataset, RunData, CheckpointData, ExploreSteps, LoadOptions, ExtraViewName } from "./analysis/load/dataset.js";
export {
  loadColumns,
  runColumns,
  loadFrames,
  numberColumn,
  textColumn,
  booleanColumn,
  STEP_COLUMNS,
  STEP_TEXT_COLUMNS,
  EPISODE_COLUMNS,
  CHECKPOINT_COLUMNS,
  RUN_COLUMNS,
} from "./analysis/load/frames.js";
export type { Columns, StepColumns, EpisodeColumns, CheckpointColumns, RunColumns, FrameColumns, FrameOptions, Frames, ColumnSource } from "./analysis/load/frames.js";
export { buildLogDatabase, openLogDatabase, exportTables, exportSchema, LogDatabase } from "./analysis/sql/logDatabase.js";
export type { LogDatabaseOptions, BuiltDatabase, QueryResult, ExportFormat, ExportResult } from "./analysis/sql/logDatabase.js";
export { TABLE_NAMES, TABLE_SCHEMAS } from "./analysis/sql/sqlSchema.js";
export type { SqlColumn, SqlTable, SqlTableName } from "./analysis/sql/sqlSchema.js";
export { readDeduped, readMergedRun, type DedupedRun, type MergedRun, type MergedEpisode } from "./logs/mergedRun.js";
export { loadVerifiedInputs } from "./analysis/load/verifiedData.js";
export type { VerifiedInputs, VerifiedRunInput } from "./analysis/load/verifiedData.js";

// The report: every table and figure as data, as `s3gym report` builds and writes them.
export { buildReport, reportEntries } from "./report/buildReport.js";
export { reportDataset, reportParts } from "./analysis/tables/reportParts.js";
export type { ReportOptions, ReportData } from "./analysis/tables/reportParts.js";
export { REPORT_ENTRIES, FIGURE_GROUPS, describeEntry } from "./report/entries.js";
export type { Report, ReportTables, TableName, ReportEntry, TableEntry, FigureEntry, NamedFigure, FigureGroup } from "./report/entries.js";
export { writeReport, writeTables, reportFigures, saveFigure, markdownOf } from "./report/writeReport.js";
export type { SavedFigure, WriteReportOptions } from "./report/writeReport.js";
export { toCsv, toMarkdown, fmt3, fmtEstimate } from "./report/tables.js";
export type { Cell, Column, ColumnKind, Table } from "./analysis/tables/table.js";

// One table at a time (the builders `buildReport` calls).
export { analyzeCurves, mainResultsTable, mainResultsWideTable, summaryVsHistoryTable, pathwayDeltaTable, analyzeTraining } from "./analysis/tables/curveTables.js";
export type {
  CurveAnalysis,
  CurveSeries,
  SeriesPoint,
  CurveTableOptions,
  MainResultsRow,
  MainResultsWideRow,
  SummaryRow,
  PathwayDelta,
  TrainingRow,
  TrainingSeries,
  TrainingPoint,
} from "./analysis/tables/curveTables.js";
export { judgingInputs, selfJudgingTable, positiveRatesTable, calibrationBins } from "./analysis/tables/judgingTables.js";
export type { JudgingInputs, JudgedRun, SelfJudgingRow, PositiveRatesRow, CalibrationBin } from "./analysis/tables/judgingTables.js";
export { couplingTable, runLevelTable, allBlocks } from "./analysis/tables/couplingTables.js";
export type { CouplingRow, RunLevelRow, BlockRow } from "./analysis/tables/couplingTables.js";
export { analyzeViews, hasViews } from "./analysis/tables/viewTables.js";
export type { ViewAnalysis, ViewRow, ViewUpdateRow, ForgettingRow, CostRow, CostRunRow } from "./analysis/tables/viewTables.js";
export { verifierReliabilityTable, verifiedVsTables, tokensByPathwayTable } from "./analysis/tables/verifiedTables.js";
export type { ReliabilityRow, TokensRow } from "./analysis/tables/verifiedTables.js";
export { compareTable, parseSelector, holm, signFlipP, COMPARE_METRICS, CompareError } from "./analysis/stats/compare.js";
export type { Selector, CompareMetric, CompareRow, CompareOptions } from "./analysis/stats/compare.js";
export { powerTable, pilotPairs, mddFromNull, DEFAULT_EPISODES } from "./analysis/stats/power.js";
export type { PowerMetric, PowerOptions, PowerRow } from "./analysis/stats/power.js";

// The metrics (docs/metrics.md): curves, gains, judging, coupling, views, cost.
export { curveY0, curveAvg, curveMax, aucPlus, naba, nabaFrom, nabaScale, curveMetrics, curveMetricsSorted, dNaba, summarizeDeltas, trainingMetrics } from "./analysis/metrics/curves.js";
export type { CurvePoint, CurveMetrics, DeltaSummary, TrainingMetrics } from "./analysis/metrics/curves.js";
export { gainVsY0, gainVsNone } from "./analysis/metrics/gain.js";
export { judgingStats, judgeSteps, positiveRates, rewardRange } from "./analysis/metrics/judging.js";
export type { JudgedStep, JudgingCounts, JudgingStats, RewardRange } from "./analysis/metrics/judging.js";
export { pearson, spearman, pearsonWeighted, tertileGap, runBlocks, couplingStats, WeightedSpearman } from "./analysis/metrics/coupling.js";
export type { CouplingStats } from "./analysis/metrics/coupling.js";
export { transferGain, updateGains, disagreement, forgetting } from "./analysis/metrics/viewMetrics.js";
export { accumulateCall, costPerCheckpoint, gainPerMillionTokens } from "./analysis/metrics/cost.js";
export { runCurve, gameRewardRanges, requiredGames, episodeCounts } from "./analysis/load/runs.js";
export { seedCurve, seedStream, curveStatistic } from "./analysis/stats/seedCurves.js";

// Intervals: the bootstrap, the designs and their coverage rules.
export { bootstrapRng, bootstrapEstimate, bootstrapReplicates, percentileInterval, estimate, methodsNamed, DEFAULT_B, DEFAULT_METHODS } from "./analysis/stats/bootstrap.js";
export type { BootstrapConfig, Interval, Estimate, IntervalMethod } from "./analysis/stats/bootstrap.js";
export { tableInterval, tableIntervalMany, unitBootstrap, unitBootstrapMany, simpleDesign, clusterDesign, withinDesign, twoStageDesign, threeStageDesign } from "./analysis/stats/intervals.js";
export type { Design, TableInterval, UnitBootstrap } from "./analysis/stats/intervals.js";
export { minSupportedUnits, flagEstimate, smallNNote, MEASURED_COVERAGE } from "./analysis/stats/coverage.js";
export { signFlipTest } from "./analysis/stats/signFlip.js";
export type { SignFlipResult } from "./analysis/stats/signFlip.js";

// Notebooks: settings from the environment, display, figures, exports.
export { notebookSettings } from "./report/notebooks/settings.js";
export type { NotebookSettings } from "./report/notebooks/settings.js";
export { notebookDataset, notebookDialDataset, notebookVerifiedInputs } from "./report/notebooks/datasetSnapshot.js";
export { showTable, showFigure, showSpec, showFrame, showColumns, displayBundle, tablePlainText } from "./report/notebooks/display.js";
export type { MimeBundle, ShownFigure } from "./report/notebooks/display.js";
export { tableHtml, columnsHtml, frameHtml, escapeHtml } from "./report/notebooks/html.js";
export { renderSvg, renderPng } from "./report/notebooks/figures.js";
export { frameCsv, frameJson, exportFrame } from "./report/notebooks/export.js";
export { curvesSpec, trainingSpec, calibrationSpec, couplingSpec, specCaption } from "./report/figures/specs.js";
export { reliabilitySpec } from "./report/figures/reliabilitySpec.js";
export { compareCurvesSpec } from "./report/figures/compareSpecs.js";
export { DEFAULT_THEME, parseTheme, loadTheme, applyTheme, type Theme } from "./report/figures/theme.js";
export { FIGURE_SIZES, DEFAULT_FIGURE_OPTIONS, type FigureOptions, type FigureSize } from "./report/figures/printLayout.js";
export { toLatex, paperTable4, latexText } from "./report/latex.js";
export { viewsSpec, costGainSpec } from "./report/figures/viewSpecs.js";

// The log format (docs/logs.md): one zod schema per file, and the names they use.
export {
  SCHEMA_VERSION,
  PHASES,
  VIEWS,
  EXTRA_VIEWS,
  RUN_FILES,
  viewOf,
  StepRecord,
  EpisodeRecord,
  CheckpointRecord,
  CallRecord,
  MemoryRecord,
  CurriculumRecord,
  VerdictRecord,
  VerifiedFactRecord,
  RunManifest,
  RunConfigRecord,
  InvocationRecord,
  SettingsRecord,
  ProtocolRecord,
  ResolvedModelRecord,
  CheckpointModelRecord,
  RunQualityRecord,
  UsageRecord,
} from "./logs/schema.js";
export type { ViewName, ExtraView } from "./logs/schema.js";
export { JUDGED_PATHWAYS, TRAINING_PATHWAY } from "./pathways/registry.js";

// Games and replies.
export { GAMES, getGame, parseGameList } from "./games/registry.js";
export { GAME_NAMES, CONFIG_NAMES } from "./games/types.js";
export type { Game, GameName, EpisodeState, PolicyContext, PolicyDecision } from "./games/types.js";
export { successThreshold, isSolved } from "./games/successThreshold.js";
export { parseResponse } from "./agent/parseResponse.js";

// Synthetic logs, for trying an analysis before a run.
export { writeSyntheticData } from "./logs/synthetic.js";
export type { SyntheticSummary } from "./logs/synthetic.js";
export { syntheticRuns, SYNTHETIC_GAMES, SYNTHETIC_MODELS } from "./logs/syntheticRuns.js";
export type { SyntheticOptions, SyntheticRun } from "./logs/syntheticRuns.js";
