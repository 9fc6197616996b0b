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
  type CurveSeries,
  mainResultsWideTable,
  type MainResultsRow,
  type MainResultsWideRow,
  type SummaryRow,
} from "./curveTables.js";
import { trainingBands, trainingEpochsTable, trainingSeedRows, trainingTable, type TrainingBandSeries, type TrainingEpochRow, type TrainingSeedRow } from "./trainingSeeds.js";
import type { Dataset } from "./dataset.js";
import { dialRuns, doseCorrelationTable, doseResponseTable, type DialRun, type DoseCorrelationRow, type DoseRow } from "./doseResponse.js";
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
import { distinct, gameRewardRanges, isTraining, requiredGames } from "./runs.js";
import { learnerJudge } from "./learnerPool.js";
import type { Table } from "./table.js";
import { qualityFiltered, runQualityTable, type RunQualityRow } from "./runQuality.js";
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
  /**
   * The judge dial's runs (doseResponse.ts) when they were played with their own protocol in their own
   * data directory (reproduce's `<data>/dial`); default: the learner runs of `ds` itself. The dose-response
   * tables exist when these runs hold at least two judge settings.
   */
  dial?: Dataset;
  /**
   * `report --include-flagged`: build the tables from flagged runs too (runQuality.ts), each such
   * row's model marked; default: flagged runs are left out and named in every table's notes.
   */
  includeFlagged?: boolean;
  /**
   * Hears each part's name once it is computed (once per part, after the parts it read): what a caller's reads cost. Tests use
   * it to check that a notebook's reads build only what it shows.
   */
  onBuild?: (part: ReportPart) => void;
}

/** Every table of the report, by file stem. */
export interface ReportTables {
  /** Every run's quality (endpoints.md "Run quality"): the gate that decides which runs the other tables use. */
  run_quality: Table<RunQualityRow>;
  main_results: Table<MainResultsRow>;
  /** main_results pivoted to the paper's layout (games as column groups, ICL and Memory side by side). */
  main_results_wide: Table<MainResultsWideRow>;
  self_judging: Table<SelfJudgingRow>;
  coupling: Table<CouplingRow>;
  run_level: Table<RunLevelRow>;
  summary_vs_history: Table<SummaryRow>;
  /** Figure 7's numbers per (model, game), means over loop seeds (trainingSeeds.ts). */
  training: Table<TrainingSeedRow>;
  /** Figure 7's points: each epoch's mean over loop seeds with its interval. */
  training_epochs: Table<TrainingEpochRow>;
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
  /** builtin:learner at several judge settings (doseResponse.ts): the dial's dose-response and r(Agree, gain). */
  judge_dose_response?: Table<DoseRow>;
  judge_dose_response_r?: Table<DoseCorrelationRow>;
}

/** Everything `report` writes, as data. */
export interface Report {
  bootstrap: BootstrapConfig;
  requireComplete: boolean;
  /** `--include-flagged`: flagged runs are in the tables, marked. */
  includeFlagged: boolean;
  /** What was done with flagged runs (left out, or in and marked), naming them; null when none was flagged. */
  qualityNote: string | null;
  tables: ReportTables;
  /** Figure data. */
  curves: CurveSeries[];
  /** Figure 7: per (model, game), the mean over loop seeds by epoch with its band, and each seed's line. */
  training: TrainingBandSeries[];
  calibration: CalibrationBin[];
  blocks: BlockRow[];
  /** The views' curves (figures `views_<game>`): empty when no run played `--views`. */
  views: ViewSeries[];
  /** The games a `views_<game>` figure is drawn for. */
  viewGames: string[];
  /** The judge dial's runs (figure `judge_dose_response`): empty without two judge settings. */
  dial: DialRun[];
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
 * The parts of a report, each computed at most once, on first use (see buildReport): the analyses
 * several tables share, then every table by its file stem.
 */
export type ReportPart = "curve_analysis" | "training_analysis" | "judging_inputs" | "blocks" | "view_analysis" | "calibration" | "verified" | "dial_runs" | TableName;
type TableName = keyof ReportTables;

/** `f`, computed on the first call and kept. */
function once<T>(f: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = f();
      done = true;
    }
    return value;
  };
}

/** Defines each of `getters` on `target` as an enumerable read-only property (in the given order). */
function defineLazy<T extends object>(target: T, getters: Record<string, () => unknown>): T {
  for (const [key, get] of Object.entries(getters)) Object.defineProperty(target, key, { get, enumerable: true, configurable: false });
  return target;
}

/**
 * The runs every table but run_quality is built from: those run_quality passed, or all of them with
 * the flagged ones marked (`includeFlagged`), and the note saying which. `buildReport` calls it; a
 * notebook that builds a table from the analysis functions itself calls it too, so it reads the very
 * runs the report's table reads.
 */
export function reportDataset(all: Dataset, opts: Pick<ReportOptions, "includeFlagged"> = {}): { ds: Dataset; note: string | null } {
  return qualityFiltered(all, opts.includeFlagged ?? false);
}

/**
 * Every table (rows with point + interval) and the figures' data. Pure given the data set and
 * options: the same seed gives the same digits.
 *
 * Each table, each figure's data and each shared analysis is computed on first access and then
 * kept (memoised getters), so a caller pays only for what it reads: `s3gym report` writes
 * everything and so builds everything; a notebook showing two tables builds those two and what they
 * share. Every bootstrap stream is keyed by its seed and the estimate's names (bootstrapRng), never
 * by the order of the draws, so a table's digits do not depend on what was read before it.
 * Which tables exist is decided at once (cheaply): `views`, `view_updates` and `forgetting` only
 * when some run played `--views`, the verified tables only with verified runs and their inputs.
 */
export function buildReport(all: Dataset, opts: ReportOptions = {}): Report {
  const cfg: BootstrapConfig = { B: opts.B ?? DEFAULT_B, seed: opts.seed ?? 0, level: opts.level ?? 0.95 };
  const requireComplete = opts.requireComplete ?? false;
  // Every table but run_quality is built from the runs that passed it (or all, marked: --include-flagged).
  const includeFlagged = opts.includeFlagged ?? false;
  const { ds, note: qualityNote } = reportDataset(all, { includeFlagged });
  const ref = opts.reference ? reportDataset(opts.reference, { includeFlagged }).ds : ds;
  // A part: computed once, on first use; onBuild hears it when done (after the parts it read).
  const part = <T>(name: ReportPart, f: () => T): (() => T) =>
    once(() => {
      const value = f();
      opts.onBuild?.(name);
      return value;
    });
  const ca = part("curve_analysis", () => analyzeCurves(ds, cfg, requiredGames(ref)));
  const tr = part("training_analysis", () => {
    const runs = analyzeTraining(ds, cfg);
    return { rows: trainingSeedRows(runs.rows, cfg), series: trainingBands(runs.series, cfg) };
  });
  const ji = part("judging_inputs", () => judgingInputs(ds, gameRewardRanges(ref)));
  const blocks = part("blocks", () => allBlocks(ji()));
  const va = part("view_analysis", () => analyzeViews(ds, cfg));
  const calibration = part("calibration", () => calibrationBins(ji(), 10, cfg));
  const verifiedInputs = verifiedInputsOf(ds, opts.verified);
  const verified = part("verified", () => verifiedTables(ca(), cfg, requireComplete, verifiedInputs!));
  const main = part("main_results", () => mainResultsTable(ca(), cfg, { requireComplete }));
  const dialDs = opts.dial ?? ds;
  const dial = part("dial_runs", () => dialRuns(dialDs, dialDs === ds ? ji() : judgingInputs(dialDs)));
  const hasDial = new Set(dialDs.runs.map((r) => learnerJudge(r.model)).filter((j) => j !== null)).size >= 2;
  // In the order `report` writes them: the keys of `report.tables` keep this order.
  const builders: Partial<Record<TableName, () => Table<object>>> = {
    run_quality: () => runQualityTable(all, cfg),
    main_results: main,
    main_results_wide: () => mainResultsWideTable(main()),
    self_judging: () => selfJudgingTable(ji(), cfg),
    coupling: () => couplingTable(blocks(), cfg),
    run_level: () => runLevelTable(ji(), cfg),
    summary_vs_history: () => summaryVsHistoryTable(ca(), cfg, { requireComplete }),
    training: () => trainingTable(tr().rows, cfg),
    training_epochs: () => trainingEpochsTable(tr().series, cfg),
    positive_rates: () => positiveRatesTable(ji(), cfg),
    cost: () => va().cost,
    cost_runs: () => va().costRuns,
    ...(hasViews(ds) ? { views: () => va().views, view_updates: () => va().updates, forgetting: () => va().forgetting } : {}),
    ...(verifiedInputs
      ? {
          verifier_reliability: () => verified().verifier_reliability,
          verified_vs_memory: () => verified().verified_vs_memory,
          verified_vs_history: () => verified().verified_vs_history,
          tokens_by_pathway: () => verified().tokens_by_pathway,
        }
      : {}),
    ...(hasDial ? { judge_dose_response: () => doseResponseTable(dial(), cfg), judge_dose_response_r: () => doseCorrelationTable(dial(), cfg) } : {}),
  };
  const tables: Record<string, () => unknown> = {};
  // The quality note rides on every table built from the filtered runs, main_results included.
  const noted = (build: () => Table<object>) => (qualityNote === null ? build : once(() => withNote(build(), qualityNote)));
  for (const [name, build] of Object.entries(builders)) {
    if (name === "run_quality") tables[name] = part("run_quality", build);
    else tables[name] = name === "main_results" ? noted(build) : part(name as TableName, noted(build));
  }
  // The data read (flagged runs included: the summary line counts what was loaded); judged steps are the tables'.
  const counts = once(() => ({
    runs: all.runs.length,
    trainingRuns: all.runs.filter(isTraining).length,
    steps: all.runs.reduce((a, r) => a + r.counts.steps, 0),
    judgedSteps: ji().runs.reduce((a, r) => a + r.total.n, 0),
  }));
  const report = { bootstrap: cfg, requireComplete, includeFlagged, qualityNote, tables: defineLazy({} as ReportTables, tables), warnings: ds.warnings } as Partial<Report>;
  return defineLazy(report, {
    curves: () => ca().series,
    training: () => tr().series,
    calibration,
    blocks,
    views: () => va().series,
    viewGames: once(() => distinct(va().series.map((v) => v.game))),
    dial: () => (hasDial ? dial() : []),
    ranges: () => ji().ranges,
    games: once(() => distinct(ca().series.map((c) => c.game))),
    incompleteModels: () => ca().incompleteModels,
    counts,
  }) as Report;
}

/** `table` with one more line in its notes (a new object: the builder's own table is not changed). */
function withNote<T extends object>(table: Table<T>, note: string): Table<T> {
  return { ...table, notes: [...table.notes, note] };
}

/**
 * The verified pathway's inputs for the tables, only when the data has verified runs and their
 * inputs were loaded: a model-filtered data set (--models) filters the inputs alike.
 */
function verifiedInputsOf(ds: Dataset, inputs: VerifiedInputs | undefined): VerifiedInputs | null {
  if (!inputs || inputs.verified.length === 0 || !ds.runs.some((r) => r.pathway === "verified")) return null;
  const models = new Set(ds.runs.map((r) => r.model));
  return { verified: inputs.verified.filter((r) => models.has(r.model)), usage: inputs.usage.filter((u) => models.has(u.model)) };
}

/** The verified pathway's four tables. */
function verifiedTables(ca: ReturnType<typeof analyzeCurves>, cfg: BootstrapConfig, requireComplete: boolean, inputs: VerifiedInputs) {
  return { verifier_reliability: verifierReliabilityTable(inputs), ...verifiedVsTables(ca, cfg, { requireComplete }), tokens_by_pathway: tokensByPathwayTable(inputs) };
}
