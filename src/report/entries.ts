/**
 * The report entries: the one list of the report's tables and figures. Each entry names its file
 * stem, its kind, its builder, what it reproduces (the paper's artefact or the docs page: reproduce's
 * summary prints it), the notebook that shows it, and its group (which data it needs, so whether it
 * exists). Everything else is derived from this list: the `ReportTables` type and the order `report`
 * writes the tables in (buildReport), the figure groups a notebook may ask for (`FIGURE_GROUPS`), the
 * figures `report` draws (reportFigures), and the summary's descriptions (`describeEntry`).
 *
 * Adding a table = one builder module (src/analysis/) plus one `tableEntry` line below; a figure = one
 * spec function (src/report/figures/) plus one `figureEntry` line. Tests pass a longer list to
 * buildReport to add a toy entry without touching this file.
 *
 * Keep this module free of static vega imports (see writeReport.ts): the figure builders return
 * vega-lite specs, the renderer is loaded lazily.
 */
import type { TopLevelSpec } from "vega-lite";
import type { EntryGroup, ReportData, ReportParts } from "../analysis/tables/reportParts.js";
import type { Table } from "../analysis/tables/table.js";
import { couplingTable, runLevelTable } from "../analysis/tables/couplingTables.js";
import { mainResultsWideTable, summaryVsHistoryTable } from "../analysis/tables/curveTables.js";
import { doseCorrelationTable, doseResponseTable } from "../analysis/tables/doseResponse.js";
import { judgeSwapTable } from "../analysis/tables/judgeSwapTables.js";
import { memoryProbesTable } from "../analysis/probe/memoryProbes.js";
import { positiveRatesTable, selfJudgingTable } from "../analysis/tables/judgingTables.js";
import { runQualityTable } from "../analysis/tables/runQuality.js";
import { trainingEpochsTable, trainingTable } from "../analysis/tables/trainingSeeds.js";
import { fnv1a32 } from "../util/rng.js";
import { calibrationSpec, curvesSpec, trainingSpec } from "./figures/specs.js";
import { couplingFacetSpec, doseResponseSpec } from "./figures/doseSpecs.js";
import { judgeSwapSpec } from "./figures/judgeSwapSpec.js";
import { costGainSpec, viewsSpec } from "./figures/viewSpecs.js";
import { reliabilitySpec } from "./figures/reliabilitySpec.js";

/** What every entry says about itself. */
interface EntryBase<N extends string, G extends EntryGroup> {
  /** The file stem: `tables/<name>.csv|.md`, or the figure `<name>.svg|.png` (`<name>_<game>` per game). */
  name: N;
  /** Which data the entry needs: a table of a group without data does not exist (EntryGroup). */
  group: G;
  /** What it reproduces (the paper's artefact, or the docs page that defines it): reproduce's summary line. */
  paper: string;
  /** The notebook (notebooks/<file>) that shows it, or null when none does. */
  notebook: string | null;
}

/** A table: built from the report's shared analyses. */
export interface TableEntry<N extends string = string, R extends object = object, G extends EntryGroup = EntryGroup> extends EntryBase<N, G> {
  kind: "table";
  build: (parts: ReportParts) => Table<R>;
  /**
   * `all`: built from every loaded run, so the quality note is not added (run_quality, the gate
   * itself); default `passed`: built from the runs run_quality passed, the note added to its notes.
   */
  runs?: "all" | "passed";
}

/** A figure to draw: its file stem under `<out>/` and its vega-lite spec. */
export interface NamedFigure {
  name: string;
  spec: TopLevelSpec;
  /** What the figure estimates (its caption files' last line); the entry's when not set. */
  estimand?: string;
}

/** A figure group: one figure, or one per game. */
export interface FigureEntry<N extends string = string> extends EntryBase<N, EntryGroup> {
  kind: "figure";
  /** One figure per game, each named `<name>_<game>` (perGameFigureNames); else one figure named `name`. */
  perGame: boolean;
  /** What the figure estimates, for its caption files (`<name>.caption.md|.tex`). */
  estimand?: string;
  /** The group's figures (none when the data has nothing to draw). `fileSafe` comes from the lazily loaded renderer. */
  draw: (report: Report, fileSafe: (label: string) => string) => NamedFigure[];
}

// biome-ignore lint/suspicious/noExplicitAny: entries of different row types in one list; each entry is typed by tableEntry where it is written
export type ReportEntry = TableEntry<string, any, EntryGroup> | FigureEntry;

/** A table entry, its name, group and row type kept literal for `ReportTables`. */
function tableEntry<const N extends string, R extends object, const G extends EntryGroup>(e: Omit<TableEntry<N, R, G>, "kind">): TableEntry<N, R, G> {
  return { kind: "table", ...e };
}

/** A figure entry. */
function figureEntry<const N extends string>(e: Omit<FigureEntry<N>, "kind">): FigureEntry<N> {
  return { kind: "figure", ...e };
}

/** The tables, in the order `report` writes them (the keys of `report.tables` keep it). */
const TABLE_ENTRIES = [
  tableEntry({
    name: "run_quality",
    group: "core",
    runs: "all",
    notebook: "00_explore_logs.ipynb",
    paper: "run quality: flagged runs (degenerate, server-cut prompts, bad replies) and what the tables did with them (docs/endpoints.md)",
    build: (p) => runQualityTable(p.all, p.cfg),
  }),
  tableEntry({ name: "main_results", group: "core", notebook: "01_main_results.ipynb", paper: "paper Table 4", build: (p) => p.main() }),
  tableEntry({ name: "main_results_wide", group: "core", notebook: "01_main_results.ipynb", paper: "paper Table 4 in the paper's layout", build: (p) => mainResultsWideTable(p.main()) }),
  tableEntry({ name: "self_judging", group: "core", notebook: "02_self_judging.ipynb", paper: "paper Table 5", build: (p) => selfJudgingTable(p.judging(), p.cfg) }),
  tableEntry({ name: "coupling", group: "core", notebook: "03_coupling.ipynb", paper: "paper Table 6", build: (p) => couplingTable(p.blocks(), p.cfg) }),
  tableEntry({ name: "run_level", group: "core", notebook: "03_coupling.ipynb", paper: "Table 6's run-level correlations", build: (p) => runLevelTable(p.judging(), p.cfg) }),
  tableEntry({
    name: "summary_vs_history",
    group: "core",
    notebook: "04_summary_vs_history.ipynb",
    paper: "paper Table 7",
    build: (p) => summaryVsHistoryTable(p.curves(), p.cfg, { requireComplete: p.requireComplete }),
  }),
  tableEntry({ name: "training", group: "core", notebook: "05_training_curves.ipynb", paper: "Figure 7's numbers, over loop seeds", build: (p) => trainingTable(p.training().rows, p.cfg) }),
  tableEntry({
    name: "training_epochs",
    group: "core",
    notebook: "05_training_curves.ipynb",
    paper: "Figure 7's curve: each epoch's mean over loop seeds",
    build: (p) => trainingEpochsTable(p.training().series, p.cfg),
  }),
  tableEntry({ name: "positive_rates", group: "core", notebook: "02_self_judging.ipynb", paper: "extra: Pr(r>0) vs Pr(s>0)", build: (p) => positiveRatesTable(p.judging(), p.cfg) }),
  tableEntry({ name: "cost", group: "core", notebook: "06_views_and_cost.ipynb", paper: "cost per checkpoint: calls, tokens, dollars (docs/views.md)", build: (p) => p.views().cost }),
  tableEntry({ name: "cost_runs", group: "core", notebook: "06_views_and_cost.ipynb", paper: "cost per run, gain per million exploration tokens", build: (p) => p.views().costRuns }),
  tableEntry({ name: "views", group: "views", notebook: "06_views_and_cost.ipynb", paper: "views: Avg/NABA, best snapshot, regression per run x view (docs/views.md)", build: (p) => p.views().views }),
  tableEntry({ name: "view_updates", group: "views", notebook: "06_views_and_cost.ipynb", paper: "views: gain of each update per view (docs/views.md)", build: (p) => p.views().updates }),
  tableEntry({ name: "forgetting", group: "views", notebook: "06_views_and_cost.ipynb", paper: "views: replay forgetting rate per run (docs/views.md)", build: (p) => p.views().forgetting }),
  tableEntry({
    name: "verifier_reliability",
    group: "verified",
    notebook: "07_verified_pathway.ipynb",
    paper: "verified pathway: verifier reliability",
    build: (p) => p.verified().verifier_reliability,
  }),
  tableEntry({
    name: "verified_vs_memory",
    group: "verified",
    notebook: "07_verified_pathway.ipynb",
    paper: "verified pathway: dNABA(verified - memory)",
    build: (p) => p.verified().verified_vs_memory,
  }),
  tableEntry({
    name: "verified_vs_history",
    group: "verified",
    notebook: "07_verified_pathway.ipynb",
    paper: "verified pathway: dNABA(verified - history)",
    build: (p) => p.verified().verified_vs_history,
  }),
  tableEntry({ name: "tokens_by_pathway", group: "verified", notebook: "07_verified_pathway.ipynb", paper: "verified pathway: tokens per pathway", build: (p) => p.verified().tokens_by_pathway }),
  tableEntry({
    name: "judge_dose_response",
    group: "dial",
    notebook: "03_coupling.ipynb",
    paper: "the learner's judge dial: Agree, NMAE and gains per judge and pathway (docs/learner.md)",
    build: (p) => doseResponseTable(p.dial(), p.cfg),
  }),
  tableEntry({
    name: "judge_dose_response_r",
    group: "dial",
    notebook: "03_coupling.ipynb",
    paper: "the judge dial: r(Agree, gain) over its runs (docs/learner.md)",
    build: (p) => doseCorrelationTable(p.dial(), p.cfg),
  }),
  tableEntry({
    name: "judge_swap",
    group: "judge",
    notebook: "08_judge_swap.ipynb",
    paper: "judge swap: gain_vs_none per judge and the contrasts value of judging, placebo, external (docs/judging.md)",
    build: (p) => judgeSwapTable(p.judgeSwap, p.cfg),
  }),
  tableEntry({
    name: "memory_probes",
    group: "probes",
    notebook: "08_judge_swap.ipynb",
    paper: "memory probes: gain_vs_none with the memory intact, emptied, shuffled, transplanted, and each probe's effect (docs/memory.md)",
    build: (p) => memoryProbesTable(p.memoryProbes.runs, p.cfg),
  }),
] as const;

type AnyTableEntry = (typeof TABLE_ENTRIES)[number];
type RowOf<E> = E extends TableEntry<string, infer R, EntryGroup> ? R : never;

/** The tables' types, derived from the entries: a `core` table always exists, one of another group only when the data has that group's runs. */
type TablesOf = { [E in AnyTableEntry as E["group"] extends "core" ? E["name"] : never]: Table<RowOf<E>> } & {
  [E in AnyTableEntry as E["group"] extends "core" ? never : E["name"]]?: Table<RowOf<E>>;
};

/** Every table of the report, by file stem (an interface, so it reads like one in a notebook's hints). */
export interface ReportTables extends TablesOf {}

/** The table names (`<out>/tables/<name>.csv|.md`) in the order `report` writes them. */
export type TableName = keyof ReportTables;

/** Everything `report` writes, as data: the figures' data and options (ReportData) and the tables. */
export interface Report extends ReportData {
  tables: ReportTables;
}

/**
 * The file stem of each game's figure of a per-game group: `<prefix>_<game>` with the name made
 * file-safe. Two games whose names make the same stem (`a/b`, `a_b`) would overwrite one figure; each
 * of them gets a short hash of its exact name appended instead, so every game keeps its own figure,
 * the same on every run.
 */
export function perGameFigureNames(prefix: string, games: readonly string[], fileSafe: (label: string) => string): Map<string, string> {
  const stems = new Map(games.map((g) => [g, `${prefix}_${fileSafe(g)}`]));
  const users = new Map<string, number>();
  for (const stem of stems.values()) users.set(stem, (users.get(stem) ?? 0) + 1);
  for (const [g, stem] of stems) if (users.get(stem)! > 1) stems.set(g, `${stem}-${fnv1a32(g).toString(16).padStart(8, "0")}`);
  return stems;
}

/** A per-game group's figures: one per game of `games`, each drawn by `spec`. */
function perGame(prefix: string, games: readonly string[], fileSafe: (label: string) => string, spec: (game: string) => TopLevelSpec): NamedFigure[] {
  const stems = perGameFigureNames(prefix, games, fileSafe);
  return games.map((game) => ({ name: stems.get(game)!, spec: spec(game) }));
}

/** The figures, in the order `report` draws them. Each reads only its own data (buildReport builds a part on first read). */
const FIGURE_ENTRIES = [
  figureEntry({
    name: "curves",
    group: "core",
    perGame: true,
    notebook: "01_main_results.ipynb",
    paper: "paper Figures 3-6",
    estimand: "the mean evaluation score (game units) of each model and pathway at each checkpoint, over the held-out evaluation seeds",
    draw: (r, fileSafe) => perGame("curves", r.games, fileSafe, (g) => curvesSpec(g, r.curves, r.bootstrap)),
  }),
  figureEntry({
    name: "training",
    group: "core",
    perGame: false,
    notebook: "05_training_curves.ipynb",
    paper: "paper Figure 7",
    estimand: "the mean evaluation score (game units) of each fine-tuned model at each epoch, averaged over loop seeds",
    draw: (r) => [{ name: "training", spec: trainingSpec(r.training, r.bootstrap) }],
  }),
  figureEntry({
    name: "calibration",
    group: "core",
    perGame: false,
    notebook: "02_self_judging.ipynb",
    paper: "calibration plot (Table 5), and calibration_reliability: the reliability diagram per model",
    estimand: "the mean verifier reward of the scored exploration steps whose clipped self-score falls in each bin (calibration_reliability: per model)",
    draw: (r) => [
      { name: "calibration", spec: calibrationSpec(r.calibration, r.ranges, r.bootstrap) },
      { name: "calibration_reliability", spec: reliabilitySpec(r.reliability, r.ranges) },
    ],
  }),
  figureEntry({
    name: "coupling",
    group: "core",
    perGame: false,
    notebook: "03_coupling.ipynb",
    paper: "coupling scatter (Table 6)",
    estimand: "per exploration block, the agreement A_t of self-scores with rewards against the normalised improvement g_t",
    draw: (r) => [{ name: "coupling", spec: couplingFacetSpec(r.blocks, r.bootstrap) }],
  }),
  figureEntry({
    name: "views",
    group: "views",
    perGame: true,
    notebook: "06_views_and_cost.ipynb",
    paper: "views: a panel per evaluation view (docs/views.md)",
    estimand: "the mean evaluation score (game units) of each model and pathway at each checkpoint, per evaluation view",
    draw: (r, fileSafe) => perGame("views", r.viewGames, fileSafe, (g) => viewsSpec(g, r.views, r.bootstrap)),
  }),
  figureEntry({
    name: "cost_gain",
    group: "views",
    perGame: false,
    notebook: "06_views_and_cost.ipynb",
    paper: "OOD gain against exploration cost (docs/views.md)",
    estimand: "per run, the out-of-distribution gain OODG = y_eval(last) - y_eval(0) against its exploration and consolidation cost",
    draw: (r) => (r.viewGames.length > 0 ? [{ name: "cost_gain", spec: costGainSpec(r.tables.cost_runs.rows, r.bootstrap, episodeRange(r.curves)) }] : []),
  }),
  figureEntry({
    name: "judge_dose_response",
    group: "dial",
    perGame: false,
    notebook: "03_coupling.ipynb",
    paper: "the judge dial: gain against Agree, a line per pathway (docs/learner.md)",
    estimand: "per judge setting and pathway, the mean normalised gain of the learner's runs against their mean Agree",
    draw: (r) => {
      const dose = r.tables.judge_dose_response;
      return dose ? [{ name: "judge_dose_response", spec: doseResponseSpec(dose.rows, r.bootstrap) }] : [];
    },
  }),
  figureEntry({
    name: "judge_swap",
    group: "judge",
    perGame: false,
    notebook: "08_judge_swap.ipynb",
    paper: "judge swap: gain_vs_none per judge, game and pathway (docs/judging.md)",
    draw: (r) => {
      const t = r.tables.judge_swap;
      return t && t.rows.length > 0 ? [{ name: "judge_swap", spec: judgeSwapSpec(t.rows, r.bootstrap) }] : [];
    },
  }),
] as const;

/** Figure groups (`reportFigures(report, groups)`): the figure entries' names. */
export type FigureGroup = (typeof FIGURE_ENTRIES)[number]["name"];
export const FIGURE_GROUPS: readonly FigureGroup[] = FIGURE_ENTRIES.map((e) => e.name);

/** Every report entry: the tables, then the figures (each kind in the order `report` writes it). */
export const REPORT_ENTRIES: readonly ReportEntry[] = [...TABLE_ENTRIES, ...FIGURE_ENTRIES];

/**
 * What a written file reproduces, by its stem (`main_results`, `curves_chess`), for reproduce's
 * summary: the entry of that kind and name, or the figure entry whose `<name>_` it starts with (a
 * per-game figure, or a group's further figure such as `calibration_reliability`); "" when no entry
 * made it.
 */
export function describeEntry(stem: string, kind: "table" | "figure", entries: readonly ReportEntry[] = REPORT_ENTRIES): string {
  const exact = entries.find((e) => e.kind === kind && e.name === stem);
  if (exact) return exact.paper;
  // A per-game figure (`curves_chess`), or a group's further figure (`calibration_reliability`).
  const group = entries.find((e) => e.kind === "figure" && kind === "figure" && stem.startsWith(`${e.name}_`));
  return group?.paper ?? "";
}

/** "10" or "3-10": the evaluation episodes per checkpoint behind the curves' points (the cost figure's caption). */
function episodeRange(curves: Report["curves"]): string | undefined {
  const ns = curves.flatMap((c) => c.points.map((p) => p.n_episodes));
  if (ns.length === 0) return undefined;
  const lo = Math.min(...ns);
  const hi = Math.max(...ns);
  return lo === hi ? String(lo) : `${lo}-${hi}`;
}
