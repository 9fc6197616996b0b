/**
 * `s3gym report --data DIR --out DIR [--bootstrap 2000] [--seed 0] [--models a,b] [--require-complete] [--include-flagged]`
 *
 * Loads one or more data directories (shards merged), computes every table with seeded bootstrap
 * intervals and writes `<out>/tables/<name>.csv|.md`, the figures `<out>/<figure>.svg|.png`, and
 * `<out>/report.json` (method, B, seed, inputs, warnings, files).
 * Exit codes: 0 done; 1 the data could not be analysed (invalid log line, no runs); 2 bad arguments.
 */
import { dataDirsOption } from "../shared/dataFlags.js";
import { describeNullCheck, nullCheck } from "../../analysis/tables/gainTables.js";
import { terminalSafe } from "../../models/secrets.js";
import { parseArgs } from "node:util";
import { listOf, optionFlags, optionRows, readOption, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { folderFlag, HelpRequested, joinNegativeNumbers, UsageError } from "../shared/args.js";
import { BOOTSTRAP_OPTIONS, DEFAULT_B, methodsNamed } from "../../analysis/stats/bootstrap.js";
import { filterModels, loadDataset, loadDialDataset, type Dataset } from "../../analysis/load/dataset.js";
import { buildReport } from "../../report/buildReport.js";
import type { Report } from "../../report/entries.js";
import type { Table } from "../../analysis/tables/table.js";
import { loadVerifiedInputs, type VerifiedInputs } from "../../analysis/load/verifiedData.js";
import { writeReport, type FigureNotDrawn } from "../../report/writeReport.js";
import { WriteFailedError } from "../../util/atomicWrite.js";
import { FIGURE_OPTIONS, figureOptionsFromFlags } from "../shared/figureFlags.js";
import type { FigureOptions } from "../../report/figures/printLayout.js";
import type { IntervalLayout } from "../../report/latex.js";

const TEX_INTERVALS = ["cell", "columns"] as const;

/** What `--data` needs, said when it is missing or names nothing. */
const DATA_REQUIRED = "a data directory holding runs/<run_id>/ (repeat it or give a comma list for shards)";

/**
 * report's own rows (the figure rows are FIGURE_OPTIONS, shared with `figure`): the parser spec, the
 * usage, the list of valid flags and the values derive from them. The values are read in this order.
 */
const REPORT_OPTIONS = {
  data: dataDirsOption({
    shown: "DIR",
    required: DATA_REQUIRED,
    help: "a data directory holding runs/<run_id>/ (repeat, or a comma list, to merge shards);\n                      its dial/ subdirectory, when present, holds the judge dial's runs (judge_dose_response)",
  }),
  out: {
    name: "out",
    kind: { type: "text", shown: "DIR", parse: (v: string) => folderFlag("out", v) },
    default: undefined,
    required: "the directory to write tables/ and figures into",
    help: "where tables/ (CSV + Markdown), figures (SVG + PNG) and report.json are written",
  },
  models: {
    name: "models",
    kind: {
      type: "text",
      shown: "a,b",
      parse: (v: string) => {
        const models = listOf(v);
        if (models.length === 0) throw new UsageError("--models is empty: expected a comma list of model names as logged");
        return models;
      },
    },
    default: null,
    help: "only these models (exact model strings as logged)",
  },
  bootstrap: { ...BOOTSTRAP_OPTIONS.bootstrap, arg: undefined, help: `bootstrap resamples per interval (integer >= 1; default ${DEFAULT_B})` },
  seed: { ...BOOTSTRAP_OPTIONS.seed, arg: undefined, help: "seed of the bootstrap streams (integer >= 0; default 0): same seed, same digits" },
  requireComplete: { name: "require-complete", kind: { type: "switch", on: true }, default: false, help: "the paper's rule: only models with results on every game enter the main table" },
  includeFlagged: {
    name: "include-flagged",
    kind: { type: "switch", on: true },
    default: false,
    help: "put runs flagged in run_quality (degenerate, failed, cut, truncated ...) back into the\n                      tables, their model marked ⚠ in every row (default: left out, named in each table's notes)",
  },
  texIntervals: {
    name: "tex-intervals",
    kind: {
      type: "text",
      shown: TEX_INTERVALS.join("|"),
      parse: (v: string) => {
        const t = v.trim();
        if (!(TEX_INTERVALS as readonly string[]).includes(t)) throw new UsageError(`--tex-intervals must be one of ${TEX_INTERVALS.join(", ")} (got '${v}')`);
        return t as IntervalLayout;
      },
    },
    default: "cell",
    help: "the .tex tables print an interval in its estimate's cell (cell, default) or in a\n                      column of its own (columns)",
  },
} as const satisfies OptionTable<{
  data: string[] | undefined;
  out: string | undefined;
  models: string[] | null;
  bootstrap: number;
  seed: number;
  requireComplete: boolean;
  includeFlagged: boolean;
  texIntervals: IntervalLayout;
}>;

/** Every row, in the order `--help` and "valid options" list them. */
const ROWS: Option<unknown>[] = [
  REPORT_OPTIONS.data,
  REPORT_OPTIONS.out,
  REPORT_OPTIONS.bootstrap,
  REPORT_OPTIONS.seed,
  REPORT_OPTIONS.models,
  REPORT_OPTIONS.requireComplete,
  REPORT_OPTIONS.includeFlagged,
  ...optionRows(FIGURE_OPTIONS),
  REPORT_OPTIONS.texIntervals,
];

const OPTIONS = { ...optionFlags(ROWS), help: { type: "boolean", short: "h" } } as const;

const VALID_FLAGS = [...ROWS.map((r) => `--${r.name}`), "--help"].join(", ");

export const REPORT_USAGE = [`usage: s3gym report ${usageToken(REPORT_OPTIONS.data)} [${usageToken(REPORT_OPTIONS.data)} ...] ${usageToken(REPORT_OPTIONS.out)} [flags]`, ...usageLines(ROWS)].join(
  "\n",
);

interface ReportArgs {
  data: string[];
  out: string;
  B: number;
  seed: number;
  models: string[] | null;
  requireComplete: boolean;
  includeFlagged: boolean;
  figures: FigureOptions;
  texIntervals: IntervalLayout;
}

/** Parses report's argv (strict); throws UsageError with a one-line message naming the flag. */
function parseReportArgs(argv: string[]): ReportArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: joinNegativeNumbers(argv, OPTIONS), options: OPTIONS, strict: true, allowPositionals: false });
  } catch (e) {
    const err = e as Error & { code?: string };
    const m = /'([^']+)'/.exec(err.message);
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw new UsageError(`unknown option '${m?.[1] ?? "?"}': valid options are ${VALID_FLAGS}`);
    if (err.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") throw new UsageError(`unexpected argument '${m?.[1] ?? "?"}': valid options are ${VALID_FLAGS}`);
    throw new UsageError(`${err.message.split("\n")[0]} (valid options: ${VALID_FLAGS})`);
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (v.help) throw new HelpRequested(REPORT_USAGE);
  // Row by row, in the order the checks have always run (the figure rows are read together, last but one).
  const o = REPORT_OPTIONS;
  const read = <T>(r: Option<T>): T => readOption(r as Option<unknown>, v[r.name]) as T;
  const data = read(o.data) as unknown as string[];
  const out = read(o.out) as unknown as string;
  const models = read(o.models);
  return {
    data,
    out,
    B: read(o.bootstrap),
    seed: read(o.seed),
    models,
    requireComplete: read(o.requireComplete),
    includeFlagged: read(o.includeFlagged),
    figures: figureOptionsFromFlags(read(FIGURE_OPTIONS.figureSize), read(FIGURE_OPTIONS.theme), read(FIGURE_OPTIONS.captionsInFigure)),
    texIntervals: read(o.texIntervals),
  };
}

/** Kept here for callers of the old location (bench/analysis.ts); the code lives in src/report/writeReport.ts. */
export { writeReport };

/**
 * The `report` subcommand. `argv` is everything after `report`. Returns the exit code (0 ok, 1 data
 * problem, 2 bad arguments); prints one line per problem on stderr, a short summary on stdout.
 */
/** What a caller in the same process (reproduce) may keep of a report once it is written. */
export interface ReportHooks {
  /** The data set as loaded, the report built from it (every table computed) and the whole data set it was a view of. */
  onWritten?(r: { ds: Dataset; full: Dataset; report: Report; dial: Dataset | undefined; verified: VerifiedInputs | undefined }): void;
}

export async function reportCommand(argv: string[], hooks: ReportHooks = {}): Promise<number> {
  // A bad flag or --help is thrown: src/cli/main.ts alone maps them to output and exit codes.
  const args = parseReportArgs(argv);
  // A log that cannot be read (LogFormatError) is thrown: src/cli/main.ts prints it and exits 1.
  let ds: Dataset = await loadDataset(args.data);
  if (args.models !== null) {
    const present = [...new Set(ds.runs.map((r) => r.model))].sort();
    const unknown = args.models.filter((m) => !present.includes(m));
    if (unknown.length > 0) {
      process.stderr.write(terminalSafe(`s3gym report: --models: unknown model '${unknown[0]}': valid values are ${present.join(", ") || "(none: no runs)"}\n`));
      return 2;
    }
  }
  // --models is a view: the game-level facts (NMAE's reward range, the games --require-complete asks
  // for) stay those of the whole data set, so a model's numbers do not depend on the selection.
  const full = ds;
  if (args.models !== null) ds = filterModels(ds, args.models);
  // The warnings first: when they left every run out, they are the reason there is nothing to report.
  const shown = ds.warnings.slice(0, 20);
  for (const w of shown) process.stderr.write(terminalSafe(`warning: ${w}\n`));
  if (ds.warnings.length > shown.length) process.stderr.write(terminalSafe(`warning: ... and ${ds.warnings.length - shown.length} more${ds.runs.length > 0 ? " (see report.json)" : ""}\n`));
  if (ds.runs.length === 0) {
    const why = ds.warnings.length > 0 ? `: every run was left out (${ds.warnings.length} warning${ds.warnings.length === 1 ? "" : "s"} above say why)` : "";
    process.stderr.write(terminalSafe(`s3gym report: no runs found in ${args.data.join(", ")}${why}\n`));
    return 1;
  }

  // The verified pathway's tables read verdicts, facts and calls beyond the data set.
  const verified = ds.runs.some((r) => r.pathway === "verified") ? await loadVerifiedInputs(args.data) : undefined;
  // The judge dial's runs, played with their own protocol under <data>/dial (reproduce), when present.
  const dial = await loadDialDataset(args.data);
  const report = buildReport(ds, {
    B: args.B,
    seed: args.seed,
    requireComplete: args.requireComplete,
    includeFlagged: args.includeFlagged,
    reference: full,
    ...(verified ? { verified } : {}),
    ...(dial ? { dial } : {}),
  });
  let files: string[];
  // Figures left out for want of data (no empty image is written): said on the terminal once the set is in place.
  const notDrawn: FigureNotDrawn[] = [];
  try {
    files = await writeReport(report, args.out, args.data, {
      onWarning: (w) => process.stderr.write(terminalSafe(`warning: ${w}\n`)),
      onFigureNotDrawn: (f) => notDrawn.push(f),
      figures: args.figures,
      texIntervals: args.texIntervals,
    });
  } catch (e) {
    if (!(e instanceof WriteFailedError)) throw e;
    // The set is written whole before it replaces the previous one: a failed write leaves that one as it was.
    throw new Error(`${e.message}; the report in ${args.out} was left as it was`, { cause: e });
  }
  hooks.onWritten?.({ ds, full, report, dial, verified });
  // What run quality added (unknown statuses named, tables emptied by flags): said here, not only under the tables.
  for (const w of report.warnings.slice(ds.warnings.length)) process.stderr.write(terminalSafe(`warning: ${w}\n`));
  const c = report.counts;
  // Figures left out for want of data (no empty image is written): report.json says the same.
  for (const f of notDrawn) process.stderr.write(terminalSafe(`note: figure ${f.name} not drawn: ${f.why}\n`));
  process.stdout.write(
    `s3gym report: ${c.runs} runs (${c.trainingRuns} training), ${c.steps} steps from ${args.data.join(", ")}; ` +
      `95% bootstrap intervals, B = ${args.B}, seed = ${args.seed}; methods per table (report.json interval_methods, and under each table): ${tableMethods(report)}\n` +
      `wrote ${files.length} files under ${args.out} (tables/*.csv, *.md, *.tex; figures *.pdf, *.svg, *.png at ${args.figures.size} size, *.vl.json, *.caption.md|.tex; report.json)\n` +
      // The null check's verdict in the terminal too ("not testable" when it rests on too few intervals).
      `${describeNullCheck(nullCheck(report.tables.main_results.rows))}\n`,
  );
  return 0;
}

/** "main_results: percentile, bootstrap-t; coupling: percentile; ...": the methods each table's intervals used. */
export function tableMethods(report: Report): string {
  return (Object.keys(report.tables) as (keyof Report["tables"])[])
    .map((name) => [name, methodsNamed((report.tables[name] as Table<object>).notes[0])] as const)
    .filter(([, m]) => m.length > 0)
    .map(([name, m]) => `${name}: ${m.join(" + ")}`)
    .join("; ");
}
