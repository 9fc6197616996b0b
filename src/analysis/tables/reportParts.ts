/**
 * The shared analyses of a report, computed lazily from a loaded data set: what every report entry's
 * builder reads (src/report/entries.ts). `buildReport` (src/report/buildReport.ts) puts the tables on
 * top; a notebook can call it (or any single builder) and render the same rows, so the numbers have
 * exactly one implementation.
 */
import { DEFAULT_B, type BootstrapConfig } from "../stats/bootstrap.js";
import { allBlocks, type BlockRow } from "./couplingTables.js";
import { analyzeCurves, analyzeTraining, mainResultsTable, type CurveSeries, type MainResultsRow } from "./curveTables.js";
import { trainingBands, trainingSeedRows, type TrainingBandSeries, type TrainingSeedRow } from "./trainingSeeds.js";
import type { Dataset } from "../load/dataset.js";
import { dialRuns, type DialRun } from "./doseResponse.js";
import { isJudgeSwapRun } from "../load/judgeSwapRuns.js";
import { isProbeRun } from "../probe/memoryProbes.js";
import type { RewardRange } from "../metrics/judging.js";
import { calibrationBins, judgingInputs, reliabilityBins, type CalibrationBin, type ReliabilityBin } from "./judgingTables.js";
import { distinct, gameRewardRanges, isTraining, requiredGames } from "../load/runs.js";
import { learnerJudge } from "./learnerPool.js";
import type { Table } from "./table.js";
import { qualityFiltered } from "./runQuality.js";
import { analyzeViews, hasViews, type ViewSeries } from "./viewTables.js";
import type { VerifiedInputs } from "../load/verifiedData.js";
import { tokensByPathwayTable, verifiedVsTables, verifierReliabilityTable } from "./verifiedTables.js";
import { contentHash, partsFor, type PartInput, type PartsMemo } from "./partsMemo.js";

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

/**
 * Everything a report holds besides its tables: the options it was built with and the figures' data.
 * The tables (`Report`, src/report/entries.ts) are derived from the report entries
 * (src/report/entries.ts), one line per table and figure.
 */
export interface ReportData {
  bootstrap: BootstrapConfig;
  requireComplete: boolean;
  /** `--include-flagged`: flagged runs are in the tables, marked. */
  includeFlagged: boolean;
  /** What was done with flagged runs (left out, or in and marked), naming them; null when none was flagged. */
  qualityNote: string | null;
  /** Set when leaving the flagged runs out left the paper tables no run at all: what happened and the fix (terminal and report.json). */
  emptiedByFlags: string | null;
  /** Figure data. */
  curves: CurveSeries[];
  /** Figure 7: per (model, game), the mean over loop seeds by epoch with its band, and each seed's line. */
  training: TrainingBandSeries[];
  calibration: CalibrationBin[];
  /** The reliability diagram: per game and model, binned self-score against mean reward, with counts. */
  reliability: ReliabilityBin[];
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
 * The parts of a report, each computed at most once, on first use (see reportParts): the analyses
 * several tables share, then every table by its file stem (a report entry's name).
 */
export type SharedPart = "curve_analysis" | "training_analysis" | "judging_inputs" | "blocks" | "view_analysis" | "calibration" | "reliability" | "verified" | "dial_runs";
export type ReportPart = SharedPart | (string & {});

/**
 * The groups of report entries: which data an entry needs, so whether its table exists. `core`
 * tables always exist; `views` ones only when some run played `--views`; `verified` ones only with
 * verified runs and their inputs; `dial` ones only when the judge dial has two judge settings.
 */
export type EntryGroup = "core" | "views" | "verified" | "dial" | "judge" | "probes";

/**
 * What a report entry's builder reads: the runs, the options, and the shared analyses, each a
 * memoised getter (computed on first call, then kept). `part` wraps a builder the same way: it
 * runs once and `onBuild` hears its name once.
 */
export interface ReportParts {
  /** Every loaded run (run_quality reads them all). */
  all: Dataset;
  /** The runs every other table reads: those run_quality passed, or all of them, marked. */
  ds: Dataset;
  cfg: BootstrapConfig;
  requireComplete: boolean;
  includeFlagged: boolean;
  qualityNote: string | null;
  emptiedByFlags: string | null;
  /** Which entry groups have data (EntryGroup). */
  has: Record<EntryGroup, boolean>;
  /** `f` as a part: computed once (or taken from a memo, partsMemo.ts); `reads` names the extra inputs it reads beyond the data set. */
  part: <T>(name: ReportPart, f: () => T, reads?: readonly PartInput[]) => () => T;
  /** The parts computed so far (not those taken from a memo), as a memo for another report of the same data set; null when the report's reference is another data set. */
  memo: () => PartsMemo | null;
  curves: () => ReturnType<typeof analyzeCurves>;
  training: () => { rows: TrainingSeedRow[]; series: TrainingBandSeries[] };
  judging: () => ReturnType<typeof judgingInputs>;
  blocks: () => BlockRow[];
  views: () => ReturnType<typeof analyzeViews>;
  calibration: () => CalibrationBin[];
  verified: () => ReturnType<typeof verifiedTables>;
  /** main_results before its quality note (main_results_wide pivots it). */
  main: () => Table<MainResultsRow>;
  /** The figures' data of a report (`ReportData` less the options), as lazy getters in the report's order. */
  figureData: Record<string, () => unknown>;
  dial: () => DialRun[];
  /**
   * The judge swap's runs (judgeSwapTables.ts): every run judged otherwise than `self` or rejudged,
   * with the `self` and none runs they pair with, of the data set and of the dial's. Every other
   * table reads `ds` without them.
   */
  judgeSwap: Dataset;
  /** The memory probes' runs (memoryProbes.ts) with the intact and none runs they pair with; every other table reads `ds` without them. */
  memoryProbes: Dataset;
  /** What the data holds (ReportData's counts). */
  counts: () => ReportData["counts"];
}

/**
 * How each report option enters a memo's key (partsMemo.ts): a new option that changes any part's
 * value must be keyed there too, and this record does not compile until it says how.
 */
const MEMO_KEYED: Record<keyof ReportOptions, string> = {
  B: "cfg",
  seed: "cfg",
  level: "cfg",
  requireComplete: "key",
  includeFlagged: "key",
  reference: "the memo applies only when the data set is its own reference",
  verified: "content hash, for the parts that read it",
  dial: "content hash, for the parts that read it",
  onBuild: "not a value: heard for a part taken from the memo too",
};

/** `f`, computed on the first call and kept. */
export function once<T>(f: () => T): () => T {
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
export function defineLazy<T extends object>(target: T, getters: Record<string, () => unknown>): T {
  for (const [key, get] of Object.entries(getters)) Object.defineProperty(target, key, { get, enumerable: true, configurable: false });
  return target;
}

/**
 * The runs every table but run_quality is built from: those run_quality passed, or all of them with
 * the flagged ones marked (`includeFlagged`), and the note saying which. `buildReport` calls it; a
 * notebook that builds a table from the analysis functions itself calls it too, so it reads the very
 * runs the report's table reads.
 */
export function reportDataset(all: Dataset, opts: Pick<ReportOptions, "includeFlagged"> = {}): { ds: Dataset; note: string | null; emptied: string | null } {
  return qualityFiltered(all, opts.includeFlagged ?? false);
}

/**
 * The shared analyses of a report, each computed on first access and then kept, so a caller pays
 * only for what it reads (buildReport, src/report/buildReport.ts, builds the tables on top). Every
 * bootstrap stream is keyed by its seed and the estimate's names (bootstrapRng), never by the order
 * of the draws, so a table's digits do not depend on what was read before it. Which groups have
 * data is decided at once (cheaply).
 */
export function reportParts(all: Dataset, opts: ReportOptions = {}): ReportParts {
  const cfg: BootstrapConfig = { B: opts.B ?? DEFAULT_B, seed: opts.seed ?? 0, level: opts.level ?? 0.95 };
  const requireComplete = opts.requireComplete ?? false;
  // Every table but run_quality is built from the runs that passed it (or all, marked: --include-flagged).
  const includeFlagged = opts.includeFlagged ?? false;
  const { ds: withJudged, note: qualityNote, emptied: emptiedByFlags } = reportDataset(all, { includeFlagged });
  // Runs of the judge swap are the same model, game and pathway as their `self` run: only its table reads them.
  const ds = withoutJudgeSwap(withJudged);
  const ref = opts.reference ? withoutJudgeSwap(reportDataset(opts.reference, { includeFlagged }).ds) : ds;
  // A part: computed once, on first use; onBuild hears its name once, when first done (after the parts
  // it read): a table that is also a shared part (main_results) is announced once.
  const announced = new Set<string>();
  // Parts a report of this very data set already computed (partsMemo.ts: reproduce's report, handed to
  // its notebooks); only when the data set is its own reference, as in every notebook.
  const selfRef = opts.reference === undefined || opts.reference === all;
  const settings = { cfg, requireComplete, includeFlagged };
  const inputs: Record<PartInput, unknown> = { dial: opts.dial, verified: opts.verified };
  const lookup = selfRef ? partsFor(all, settings, inputs) : null;
  void MEMO_KEYED;
  const computed: PartsMemo["parts"] = {};
  const part = <T>(name: ReportPart, f: () => T, reads: readonly PartInput[] = []): (() => T) =>
    once(() => {
      const found = lookup?.(name);
      const value = found?.hit ? (found.value as T) : f();
      if (!found?.hit) computed[name] = { reads: [...reads], value };
      if (!announced.has(name)) {
        announced.add(name);
        opts.onBuild?.(name);
      }
      return value;
    });
  const memo = (): PartsMemo | null => (selfRef ? { key: { ...settings, inputs: { dial: contentHash(opts.dial), verified: contentHash(opts.verified) } }, parts: { ...computed } } : null);
  const ca = part("curve_analysis", () => analyzeCurves(ds, cfg, requiredGames(ref)));
  const tr = part("training_analysis", () => {
    const runs = analyzeTraining(ds, cfg);
    return { rows: trainingSeedRows(runs.rows, cfg), series: trainingBands(runs.series, cfg) };
  });
  const ji = part("judging_inputs", () => judgingInputs(ds, gameRewardRanges(ref)));
  const blocks = part("blocks", () => allBlocks(ji()));
  const va = part("view_analysis", () => analyzeViews(ds, cfg));
  const calibration = part("calibration", () => calibrationBins(ji(), 10, cfg));
  const reliability = part("reliability", () => reliabilityBins(ji(), 10));
  const verifiedInputs = verifiedInputsOf(ds, opts.verified);
  const verified = part("verified", () => verifiedTables(ca(), cfg, requireComplete, verifiedInputs!), ["verified"]);
  const main = part("main_results", () => mainResultsTable(ca(), cfg, { requireComplete }));
  const dialDs = opts.dial ? withoutJudgeSwap(opts.dial) : ds;
  // Memory probes replay a recorded run like a rejudge: out of every table but memory_probes.
  const judgeSwap: Dataset = { ...withJudged, runs: [...withJudged.runs, ...(opts.dial?.runs ?? [])].filter((r) => !isProbeRun(r)) };
  const memoryProbes: Dataset = withJudged;
  const hasJudgeSwap = judgeSwap.runs.some(isJudgeSwapRun);
  const dial = part("dial_runs", () => dialRuns(dialDs, dialDs === ds ? ji() : judgingInputs(dialDs)), ["dial"]);
  const hasDial = new Set(dialDs.runs.map((r) => learnerJudge(r.model)).filter((j) => j !== null)).size >= 2;
  // The data read (flagged runs included: the summary line counts what was loaded); judged steps are the tables'.
  const counts = once(() => ({
    runs: all.runs.length,
    trainingRuns: all.runs.filter(isTraining).length,
    steps: all.runs.reduce((a, r) => a + r.counts.steps, 0),
    judgedSteps: ji().runs.reduce((a, r) => a + r.total.n, 0),
  }));
  const figureData = {
    curves: () => ca().series,
    training: () => tr().series,
    calibration,
    reliability,
    blocks,
    views: () => va().series,
    viewGames: once(() => distinct(va().series.map((v) => v.game))),
    dial: () => (hasDial ? dial() : []),
    ranges: () => ji().ranges,
    games: once(() => distinct(ca().series.map((c) => c.game))),
    incompleteModels: () => ca().incompleteModels,
    counts,
  };
  return {
    all,
    ds,
    cfg,
    requireComplete,
    includeFlagged,
    qualityNote,
    emptiedByFlags,
    has: { core: true, views: hasViews(ds), verified: verifiedInputs !== null, dial: hasDial, judge: hasJudgeSwap, probes: withJudged.runs.some(isProbeRun) },
    part,
    memo,
    curves: ca,
    training: tr,
    judging: ji,
    blocks,
    views: va,
    calibration,
    verified,
    main,
    dial,
    judgeSwap,
    memoryProbes,
    counts,
    figureData,
  };
}

/** The data set without its judge-swap runs (the same object when it has none). */
function withoutJudgeSwap(ds: Dataset): Dataset {
  return ds.runs.some(isJudgeSwapRun) ? { ...ds, runs: ds.runs.filter((r) => !isJudgeSwapRun(r)) } : ds;
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
