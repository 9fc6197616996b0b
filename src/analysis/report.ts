/**
 * One call that computes every table and every figure's data from a loaded data set. The CLI's
 * `report` renders its output; a notebook can call it (or any single builder) and render the same
 * rows, so the numbers have exactly one implementation.
 */
import { DEFAULT_B, type BootstrapConfig } from "./bootstrap.js";
import { allBlocks, couplingTable, runLevelTable, type BlockRow, type CouplingRow, type RunLevelRow } from "./couplingTables.js";
import {
  analyzeCurves,
  analyzeTraining,
  mainResultsTable,
  summaryVsHistoryTable,
  trainingTable,
  type CurveSeries,
  mainResultsWideTable,
  type MainResultsRow,
  type MainResultsWideRow,
  type SummaryRow,
  type TrainingRow,
  type TrainingSeries,
} from "./curveTables.js";
import type { Dataset } from "./dataset.js";
import type { RewardRange } from "./judging.js";
import {
  calibrationBins,
  judgingInputs,
  positiveRatesTable,
  selfJudgingTable,
  type CalibrationBin,
  type PositiveRatesRow,
  type SelfJudgingRow,
} from "./judgingTables.js";
import { distinct, gameRewardRanges, requiredGames } from "./runs.js";
import type { Table } from "./table.js";
import { analyzeViews, hasViews, type CostRow, type CostRunRow, type ForgettingRow, type ViewRow, type ViewSeries, type ViewUpdateRow } from "./viewTables.js";
import type { VerifiedInputs } from "./verifiedData.js";
import { tokensByPathwayTable, verifiedVsTables, verifierReliabilityTable, type ReliabilityRow, type TokensRow } from "./verifiedTables.js";

export interface ReportOptions {
  /** Bootstrap resamples (default 2000). */
  B?: number;
  /** Seed of the bootstrap streams (default 0). */
  seed?: number;
  /** Interval coverage (default 0.95). */
  level?: number;
  /** The paper's rule: only models with results on every game enter the main table and dNABA. */
  requireComplete?: boolean;
  /**
   * The whole data set when `ds` is a model-filtered view of it (filterModels, `--models`): each game's
   * NMAE reward range and the games the completeness rule requires come from it, so a model's numbers
   * and its completeness do not depend on which other models were selected. Default: `ds`.
   */
  reference?: Dataset;
  /**
   * The verified pathway's inputs (loadVerifiedInputs): when the data has verified runs, the report
   * adds verifier_reliability, verified_vs_memory, verified_vs_history and tokens_by_pathway.
   */
  verified?: VerifiedInputs;
}

/** Every table of the report, by file stem. */
export interface ReportTables {
  main_results: Table<MainResultsRow>;
  /** main_results pivoted to the paper's layout (games as column groups, ICL and Memory side by side). */
  main_results_wide: Table<MainResultsWideRow>;
  self_judging: Table<SelfJudgingRow>;
  coupling: Table<CouplingRow>;
  run_level: Table<RunLevelRow>;
  summary_vs_history: Table<SummaryRow>;
  training: Table<TrainingRow>;
  positive_rates: Table<PositiveRatesRow>;
  /** Cost per checkpoint and per run (views.md "Cost"): every data set has calls. */
  cost: Table<CostRow>;
  cost_runs: Table<CostRunRow>;
  /** The evaluation views' tables (views.md): only when some run played `--views`. */
  views?: Table<ViewRow>;
  view_updates?: Table<ViewUpdateRow>;
  forgetting?: Table<ForgettingRow>;
  /** Verified runs only (docs/verified.md). */
  verifier_reliability?: Table<ReliabilityRow>;
  verified_vs_memory?: Table<SummaryRow>;
  verified_vs_history?: Table<SummaryRow>;
  tokens_by_pathway?: Table<TokensRow>;
}

/** Everything `report` writes, as data. */
export interface Report {
  bootstrap: BootstrapConfig;
  requireComplete: boolean;
  tables: ReportTables;
  /** Figure data. */
  curves: CurveSeries[];
  training: TrainingSeries[];
  calibration: CalibrationBin[];
  blocks: BlockRow[];
  /** The views' curves (figures `views_<game>`): empty when no run played `--views`. */
  views: ViewSeries[];
  /** The games a `views_<game>` figure is drawn for. */
  viewGames: string[];
  ranges: Map<string, RewardRange | null>;
  /** Games a curve figure is drawn for (those with a non-training row in `ds`). */
  games: string[];
  /** model -> games it lacks. */
  incompleteModels: Map<string, string[]>;
  /** Loader warnings carried along. */
  warnings: string[];
  /** Counts for the summary line. */
  counts: { runs: number; trainingRuns: number; steps: number; judgedSteps: number };
}

/**
 * Computes every table (rows with point + interval) and the figures' data. Pure given the data set
 * and options: the same seed gives the same digits.
 */
export function buildReport(ds: Dataset, opts: ReportOptions = {}): Report {
  const cfg: BootstrapConfig = { B: opts.B ?? DEFAULT_B, seed: opts.seed ?? 0, level: opts.level ?? 0.95 };
  const requireComplete = opts.requireComplete ?? false;
  const ref = opts.reference ?? ds;
  const ca = analyzeCurves(ds, cfg, requiredGames(ref));
  const tr = analyzeTraining(ds, cfg);
  const ji = judgingInputs(ds, gameRewardRanges(ref));
  const blocks = allBlocks(ji);
  const main = mainResultsTable(ca, cfg, { requireComplete });
  const va = analyzeViews(ds, cfg);
  const withViews = hasViews(ds);
  return {
    bootstrap: cfg,
    requireComplete,
    tables: {
      main_results: main,
      main_results_wide: mainResultsWideTable(main),
      self_judging: selfJudgingTable(ji, cfg),
      coupling: couplingTable(blocks, cfg),
      run_level: runLevelTable(ji, cfg),
      summary_vs_history: summaryVsHistoryTable(ca, cfg, { requireComplete }),
      training: trainingTable(tr.rows, cfg),
      positive_rates: positiveRatesTable(ji, cfg),
      cost: va.cost,
      cost_runs: va.costRuns,
      ...(withViews ? { views: va.views, view_updates: va.updates, forgetting: va.forgetting } : {}),
      ...verifiedTables(ds, ca, cfg, requireComplete, opts.verified),
    },
    curves: ca.series,
    training: tr.series,
    calibration: calibrationBins(ji, 10, cfg),
    blocks,
    views: va.series,
    viewGames: distinct(va.series.map((v) => v.game)),
    ranges: ji.ranges,
    games: distinct(ca.series.map((c) => c.game)),
    incompleteModels: ca.incompleteModels,
    warnings: ds.warnings,
    counts: {
      runs: ds.runs.length,
      trainingRuns: tr.rows.length,
      steps: ds.runs.reduce((a, r) => a + r.counts.steps, 0),
      judgedSteps: ji.runs.reduce((a, r) => a + r.total.n, 0),
    },
  };
}

/** The verified pathway's tables, only when the data has verified runs and their inputs were loaded. */
function verifiedTables(ds: Dataset, ca: ReturnType<typeof analyzeCurves>, cfg: BootstrapConfig, requireComplete: boolean, inputs: VerifiedInputs | undefined): Partial<ReportTables> {
  if (!inputs || inputs.verified.length === 0 || !ds.runs.some((r) => r.pathway === "verified")) return {};
  // A model-filtered data set (--models) filters the inputs alike.
  const models = new Set(ds.runs.map((r) => r.model));
  inputs = { verified: inputs.verified.filter((r) => models.has(r.model)), usage: inputs.usage.filter((u) => models.has(u.model)) };
  return { verifier_reliability: verifierReliabilityTable(inputs), ...verifiedVsTables(ca, cfg, { requireComplete }), tokens_by_pathway: tokensByPathwayTable(inputs) };
}
