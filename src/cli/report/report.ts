/**
 * `s3gym report --data DIR --out DIR [--bootstrap 2000] [--seed 0] [--models a,b] [--require-complete] [--include-flagged]`
 *
 * Loads one or more data directories (shards merged), computes every table with seeded bootstrap
 * intervals and writes `<out>/tables/<name>.csv|.md`, the figures `<out>/<figure>.svg|.png`, and
 * `<out>/report.json` (method, B, seed, inputs, warnings, files).
 * Exit codes: 0 done; 1 the data could not be analysed (invalid log line, no runs); 2 bad arguments.
 */
import { describeNullCheck, nullCheck } from "../../analysis/tables/gainTables.js";
import { terminalSafe } from "../../models/secrets.js";
import { parseArgs } from "node:util";
import { listOf, repeatedList } from "../../util/options.js";
import { folderFlag, HelpRequested, joinNegativeNumbers, UsageError } from "../shared/args.js";
import { DEFAULT_B, methodsNamed } from "../../analysis/stats/bootstrap.js";
import { filterModels, loadDataset, loadDialDataset, type Dataset } from "../../analysis/load/dataset.js";
import { buildReport } from "../../report/buildReport.js";
import type { Report } from "../../report/entries.js";
import type { Table } from "../../analysis/tables/table.js";
import { loadVerifiedInputs, type VerifiedInputs } from "../../analysis/load/verifiedData.js";
import { writeReport, type FigureNotDrawn } from "../../report/writeReport.js";
import { WriteFailedError } from "../../util/atomicWrite.js";
import { LogFormatError } from "../../logs/reader.js";
import { figureOptionsFromFlags, oneOf } from "../shared/figureFlags.js";
import type { FigureOptions } from "../../report/figures/printLayout.js";
import type { IntervalLayout } from "../../report/latex.js";

const OPTIONS = {
  data: { type: "string", multiple: true },
  out: { type: "string" },
  bootstrap: { type: "string" },
  seed: { type: "string" },
  models: { type: "string" },
  "require-complete": { type: "boolean" },
  "include-flagged": { type: "boolean" },
  "figure-size": { type: "string" },
  theme: { type: "string" },
  "captions-in-figure": { type: "boolean" },
  "tex-intervals": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const VALID_FLAGS = "--data, --out, --bootstrap, --seed, --models, --require-complete, --include-flagged, --figure-size, --theme, --captions-in-figure, --tex-intervals, --help";

export const REPORT_USAGE = `usage: s3gym report --data DIR [--data DIR ...] --out DIR [--bootstrap 2000] [--seed 0] [--models a,b] [--require-complete] [--include-flagged]
                    [--figure-size column|page|slide] [--theme theme.json] [--captions-in-figure] [--tex-intervals cell|columns]

  --data DIR          a data directory holding runs/<run_id>/ (repeat, or a comma list, to merge shards);
                      its dial/ subdirectory, when present, holds the judge dial's runs (judge_dose_response)
  --out DIR           where tables/ (CSV + Markdown), figures (SVG + PNG) and report.json are written
  --bootstrap B       bootstrap resamples per interval (integer >= 1; default ${DEFAULT_B})
  --seed N            seed of the bootstrap streams (integer >= 0; default 0): same seed, same digits
  --models a,b        only these models (exact model strings as logged)
  --require-complete  the paper's rule: only models with results on every game enter the main table
  --include-flagged   put runs flagged in run_quality (degenerate, failed, cut, truncated ...) back into the
                      tables, their model marked ⚠ in every row (default: left out, named in each table's notes)
  --figure-size SIZE  lay every figure out for column (3.3 in), page (7 in; the default) or slide (13.3 in)
                      width, text >= 7 pt at that size; each figure is written as PDF, SVG and PNG (300 dpi)
  --theme FILE        a JSON theme (font, fontSize, palette, sequential, neutral, frame, text, lineWidth,
                      bandOpacity: docs/paper.md) applied to every figure
  --captions-in-figure  draw each figure's title and caption into the image (default: the plot only; the
                      caption is written apart as <figure>.caption.md and .caption.tex)
  --tex-intervals L   the .tex tables print an interval in its estimate's cell (cell, default) or in a
                      column of its own (columns)`;

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

function parseIntFlag(flag: string, raw: string | undefined, dflt: number, min: number, max: number): number {
  if (raw === undefined) return dflt;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) throw new UsageError(`${flag} must be an integer >= ${min} (got '${raw}'), at most ${max}`);
  if (Number(raw) > max) throw new UsageError(`${flag} must be at most ${max} (got '${raw}'), at least ${min}`);
  return Number(raw);
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
  const v = parsed.values;
  if (v.help) throw new HelpRequested(REPORT_USAGE);
  const data = repeatedList(v.data);
  if (data.length === 0) throw new UsageError("--data is required: a data directory holding runs/<run_id>/ (repeat it or give a comma list for shards)");
  if (v.out === undefined || v.out.trim() === "") throw new UsageError("--out is required: the directory to write tables/ and figures into");
  folderFlag("out", v.out);
  let models: string[] | null = null;
  if (v.models !== undefined) {
    models = listOf(v.models);
    if (models.length === 0) throw new UsageError("--models is empty: expected a comma list of model names as logged");
  }
  return {
    data,
    out: v.out,
    B: parseIntFlag("--bootstrap", v.bootstrap, DEFAULT_B, 1, 1_000_000),
    seed: parseIntFlag("--seed", v.seed, 0, 0, 4_294_967_295),
    models,
    requireComplete: v["require-complete"] ?? false,
    includeFlagged: v["include-flagged"] ?? false,
    figures: figureOptionsFromFlags(v["figure-size"], v.theme, v["captions-in-figure"] ?? false),
    texIntervals: oneOf("--tex-intervals", v["tex-intervals"], ["cell", "columns"] as const, "cell"),
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
  let ds: Dataset;
  try {
    ds = await loadDataset(args.data);
  } catch (e) {
    if (e instanceof LogFormatError) {
      process.stderr.write(terminalSafe(`s3gym report: ${e.message}\n`));
      return 1;
    }
    throw e;
  }
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
    process.stderr.write(terminalSafe(`s3gym report: ${e.message}; the report in ${args.out} was left as it was\n`));
    return 1;
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
