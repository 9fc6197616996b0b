/**
 * Writing a computed report to disk: `<out>/tables/<name>.csv|.md`, the figures `<out>/<figure>.svg|.png`
 * and `<out>/report.json`. `s3gym report` calls `writeReport`; the notebooks call the same functions
 * for their own section (`writeTables`, `reportFigures` + `saveFigure`), so a table or a figure has
 * one implementation and a notebook writes the very bytes `report` writes.
 *
 * Nothing written under `tables/` or into a figure depends on the time or on where the data lives:
 * rerunning on the same logs gives the same bytes. Only `report.json` names its inputs.
 *
 * The renderer (`src/report/figures/render.ts`) is imported lazily: vega's node build has a top-level
 * await, and a module graph with one cannot be `require()`d, which is how tslab (CommonJS) loads the
 * kit into a notebook. Keep every static import of this module free of vega.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { z } from "zod";
import { replaceFileSet, type FileSetFaults } from "../util/fileSet.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { specCaption } from "./figures/specs.js";
import type { MainResultsRow } from "../analysis/tables/curveTables.js";
import { reportEntries, reportRunProvenance } from "./buildReport.js";
import { kitProvenance } from "../runner/settings/provenance.js";
import { perGameFigureNames, type FigureEntry, type FigureGroup, type NamedFigure, type Report, type TableName } from "./entries.js";
import { INSTRUMENT_MARK, isInstrument } from "../analysis/tables/instruments.js";
import { describeNullCheck, nullCheck } from "../analysis/tables/gainTables.js";
import { estimandNote, estimandOf } from "../analysis/stats/estimand.js";
import type { Table } from "../analysis/tables/table.js";
import { toCsv, toMarkdown } from "./tables.js";
import { paperTable4, toLatex, type IntervalLayout } from "./latex.js";
import { captionMarkdown, captionTex } from "./figures/captions.js";
import { DEFAULT_FIGURE_OPTIONS, type FigureOptions } from "./figures/printLayout.js";

/**
 * How a table's cells are decorated in Markdown (and the notebooks' HTML and text): in every table an
 * instrument's model name gets ‡ (analysis/tables/instruments.ts), and the main tables (long and wide) mark
 * incomplete models with a dagger. The CSV keeps the plain name.
 */
export function cellLabel(name: string): (row: object, key: string, text: string) => string {
  const main = name === "main_results" || name === "main_results_wide";
  return (row, key, text) => {
    if (key !== "model") return text;
    let out = text;
    if (main && !(row as MainResultsRow).complete) out = `${out} †`;
    if (isInstrument(String((row as { model?: unknown }).model ?? ""))) out = `${out} ${INSTRUMENT_MARK}`;
    return out;
  };
}

/** The Markdown `report` writes for a table. */
export function markdownOf(name: string, table: Table<object>): string {
  return toMarkdown(table, cellLabel(name));
}

/**
 * How every output file of a report (a table's CSV or Markdown, a figure, report.json) is written:
 * whole or not at all (a temporary renamed into place, src/util/atomicWrite.ts), and a failure names
 * the file and its cause ("disk full writing <file>"). Other writers of report files (LaTeX, PDF) use
 * it too. Not synced to disk one by one: a report is rebuilt from the logs at any time.
 */
export function writeOutputFile(path: string, content: string | Buffer): void {
  writeFileAtomic(path, content, { durable: false });
}

/** The LaTeX `report` writes for a table (its `.tex`), from the same rows and cell labels as the Markdown. */
export function latexOf(name: string, table: Table<object>, intervals: IntervalLayout = "cell"): string {
  return toLatex(table, { intervals, label: cellLabel(name) });
}

/** The file stem of main_results in the paper's own layout of Table 4 (`tables/<stem>.tex`). */
export const PAPER_TABLE4 = "main_results_paper";

/**
 * Writes `<out>/tables/<name>.csv`, `.md` and `.tex` for the named tables (default all), and with
 * main_results the paper's layout of Table 4 (`main_results_paper.tex`); returns the paths.
 */
export async function writeTables(report: Report, outDir: string, names?: readonly TableName[], intervals: IntervalLayout = "cell"): Promise<string[]> {
  const tablesDir = join(outDir, "tables");
  await mkdir(tablesDir, { recursive: true });
  const files: string[] = [];
  const wanted = names ? new Set<string>(names) : null;
  // The report's tables are built on first read (buildReport): read only the wanted ones.
  for (const name of Object.keys(report.tables) as TableName[]) {
    if (wanted && !wanted.has(name)) continue;
    const table = report.tables[name] as Table<object>;
    const csv = join(tablesDir, `${name}.csv`);
    const md = join(tablesDir, `${name}.md`);
    writeOutputFile(csv, toCsv(table));
    const tex = join(tablesDir, `${name}.tex`);
    writeOutputFile(md, markdownOf(name, table));
    writeOutputFile(tex, latexOf(name, table, intervals));
    files.push(csv, md, tex);
    if (name === "main_results") {
      const paper = join(tablesDir, `${PAPER_TABLE4}.tex`);
      writeOutputFile(paper, paperTable4(table as unknown as Parameters<typeof paperTable4>[0], { intervals, label: cellLabel(name) }));
      files.push(paper);
    }
  }
  return files;
}

/** The renderer, loaded on first use (see the note at the top). */
function renderer(): Promise<typeof import("./figures/render.js")> {
  return import("./figures/render.js");
}

/** `curves_<game>` per game (see perGameFigureNames). */
export function curveFigureNames(games: readonly string[], fileSafe: (label: string) => string): Map<string, string> {
  return perGameFigureNames("curves", games, fileSafe);
}

/** A figure the report did not draw, and why (report.json `figures_not_drawn`, report's output). */
export interface FigureNotDrawn {
  name: string;
  why: string;
}

/** Whether a figure has rows to draw: a spec with no data values draws an empty frame. */
function hasData(spec: unknown): boolean {
  const values = (spec as { data?: { values?: unknown } }).data?.values;
  return !Array.isArray(values) || values.length > 0;
}

/**
 * The report's figures of the given groups (default: every figure entry the report was built with),
 * in the order `report` writes them, and the ones left out for want of data. Each group reads only
 * its own data (the report builds a part on first read).
 */
export async function drawFigures(report: Report, groups?: readonly FigureGroup[]): Promise<{ drawn: NamedFigure[]; notDrawn: FigureNotDrawn[] }> {
  const { fileSafe } = await renderer();
  const want = groups ? new Set<string>(groups) : null;
  const entries = reportEntries(report).filter((e): e is FigureEntry => e.kind === "figure" && (want === null || want.has(e.name)));
  const drawn: NamedFigure[] = [];
  const notDrawn: FigureNotDrawn[] = [];
  for (const e of entries) {
    const figures = e.draw(report, fileSafe);
    if (figures.length === 0 && e.group === "core") notDrawn.push({ name: e.name, why: `no data for it in this data set (${e.paper})` });
    for (const f of figures) {
      if (hasData(f.spec)) drawn.push(f.estimand === undefined && e.estimand !== undefined ? { ...f, estimand: e.estimand } : f);
      else notDrawn.push({ name: f.name, why: `no data for it in this data set (${e.paper})` });
    }
  }
  return { drawn, notDrawn };
}

/** The report's figures with data (drawFigures' `drawn`): what `report` writes, and a notebook shows. */
export async function reportFigures(report: Report, groups?: readonly FigureGroup[]): Promise<NamedFigure[]> {
  return (await drawFigures(report, groups)).drawn;
}

/** A figure as saved: its SVG text and PNG bytes (what a notebook displays), caption, and files. */
export interface SavedFigure {
  name: string;
  svg: string;
  png: Buffer;
  /** The figure's title and caption lines (n, interval method), the text a reader without images gets. */
  caption: string;
  files: string[];
  /** Set when the figure came out wider than its size (it prints at its own width). */
  overflow: string | null;
}

/**
 * Renders one figure for print (its size and theme: printLayout.ts, theme.ts) and writes
 * `<dir>/<name>.pdf`, `.svg`, `.png` (300 dpi at print size), `.vl.json` (the final vega-lite spec,
 * for `s3gym figure --spec`), `.caption.md` and `.caption.tex`: the same bytes as `report`'s figure
 * of that name with the same options. A notebook passes the result to `showFigure`.
 */
export async function saveFigure(figure: NamedFigure, dir: string, opts: FigureOptions = DEFAULT_FIGURE_OPTIONS): Promise<SavedFigure> {
  await mkdir(dir, { recursive: true });
  const { renderForPrint, printedPng, printedPdf } = await import("./figures/printRender.js");
  const printed = await renderForPrint(figure.spec, opts);
  const png = printedPng(printed);
  const caption = specCaption(figure.spec);
  const path = (ext: string): string => join(dir, `${figure.name}${ext}`);
  writeOutputFile(path(".pdf"), await printedPdf(printed, caption.split("\n")[0] ?? figure.name));
  writeOutputFile(path(".svg"), printed.svg);
  writeOutputFile(path(".png"), png);
  writeOutputFile(path(".vl.json"), JSON.stringify(printed.spec, null, 1) + "\n");
  writeOutputFile(path(".caption.md"), captionMarkdown(figure.spec, figure.estimand));
  writeOutputFile(path(".caption.tex"), captionTex(figure.spec, figure.name, figure.estimand));
  const files = [".pdf", ".svg", ".png", ".vl.json", ".caption.md", ".caption.tex"].map(path);
  return { name: figure.name, svg: printed.svg, png, caption, files, overflow: printed.overflow };
}

/** What report.json says the report owns (`files`); read leniently: only the list matters here. */
const OwnedFiles = z.object({ files: z.array(z.string()) });

/**
 * The files an earlier report in `outDir` wrote, from its report.json: the only files a new report
 * may remove. No report.json, or one that is not a report's, owns nothing (and `onWarning` says so
 * for the latter): a folder's other files are never touched.
 */
export function ownedReportFiles(outDir: string, onWarning: (w: string) => void = () => {}): string[] {
  const path = join(outDir, "report.json");
  if (!existsSync(path)) return [];
  try {
    const parsed = OwnedFiles.safeParse(JSON.parse(readFileSync(path, "utf8")));
    if (parsed.success) return parsed.data.files;
  } catch {
    // not JSON: said below
  }
  onWarning(`${path} is not a report's index (no 'files' list); no earlier report file is removed`);
  return [];
}

export interface WriteReportOptions {
  /** The figures' size, theme and caption placement (default: page, the default theme, captions apart). */
  figures?: FigureOptions;
  /** How the .tex tables print an interval: in the estimate's cell (default) or a column of its own. */
  texIntervals?: IntervalLayout;
  /** Problems that do not stop the report (an unreadable earlier report.json). */
  onWarning?: (w: string) => void;
  /** Each figure left out for want of data (report.json's `figures_not_drawn` lists the same). */
  onFigureNotDrawn?: (f: FigureNotDrawn) => void;
  /** Test hooks that stop the writer between two steps, as a kill would. */
  faults?: FileSetFaults;
}

/**
 * Writes a computed report under `outDir` as one set: tables/<name>.csv and .md, the figures as SVG
 * and PNG, and report.json (method, B, seed, inputs as given, counts, warnings, and `files`: what the
 * report owns, relative to `outDir`). Everything is written into a staging folder first and then
 * moved into place (src/util/fileSet.ts), so a killed report leaves the previous set, never a mix;
 * files the previous report owned and this one no longer writes are removed, other files are kept.
 * Returns the written paths.
 */
export async function writeReport(report: Report, outDir: string, dataDirs: readonly string[] = [], opts: WriteReportOptions = {}): Promise<string[]> {
  const previous = () => ownedReportFiles(outDir, opts.onWarning);
  const rel = await replaceFileSet(outDir, "report", (stage) => writeReportFiles(report, stage, dataDirs, opts), previous, opts);
  return rel.map((f) => join(outDir, f));
}

/** main_results' null check (gainTables.ts) as report.json carries it: the counts and the line the table's notes print. */
function nullCheckJson(report: Report): object {
  const c = nullCheck(report.tables.main_results.rows);
  return {
    intervals: c.intervals,
    excluding: c.excluding,
    share: c.share,
    p_binomial: c.p_binomial,
    // The two counts apart, each with its expected band (binomial at 5% per gain) and where it fell.
    interval_count: c.interval_count,
    p_values: c.p_values,
    counted_models: c.models,
    degenerate_intervals: c.degenerate,
    flat_reference_rows: c.flat_reference_rows,
    pass: c.pass,
    testable: c.testable,
    line: describeNullCheck(c),
  };
}

/** main_results' estimand (estimand.ts) as report.json carries it: the counts and the note the table prints. */
function estimandJson(report: Report): object {
  const e = estimandOf(report.tables.main_results.rows);
  return { ...e, note: estimandNote(e) };
}

/** Every table of the report as data: title, columns (key and kind), rows and notes, in the report's order. */
function resultsJson(report: Report): Record<string, object> {
  const out: Record<string, object> = {};
  for (const name of Object.keys(report.tables) as TableName[]) {
    const t = report.tables[name] as Table<object> | undefined;
    if (t) out[name] = { title: t.title, columns: t.columns, rows: t.rows, notes: t.notes };
  }
  return out;
}

/** Writes the report's files under `dir` (the staging folder); returns them relative to it, report.json last. */
async function writeReportFiles(report: Report, outDir: string, dataDirs: readonly string[], opts: WriteReportOptions): Promise<string[]> {
  const files = await writeTables(report, outDir, undefined, opts.texIntervals);
  const figureOpts = opts.figures ?? DEFAULT_FIGURE_OPTIONS;
  const { drawn, notDrawn } = await drawFigures(report);
  for (const f of notDrawn) opts.onFigureNotDrawn?.(f);
  const overflows: string[] = [];
  for (const figure of drawn) {
    const saved = await saveFigure(figure, outDir, figureOpts);
    files.push(...saved.files);
    if (saved.overflow) overflows.push(`${figure.name}: ${saved.overflow}`);
  }
  const meta = join(outDir, "report.json");
  files.push(meta);
  const owned = files.map((f) => relative(outDir, f).split(sep).join("/"));
  writeOutputFile(
    meta,
    JSON.stringify(
      {
        // The method each table's intervals actually used (its first note), not one blanket name.
        interval_methods: Object.fromEntries((Object.keys(report.tables) as TableName[]).map((name) => [name, (report.tables[name] as Table<object>).notes[0] ?? ""])),
        level: report.bootstrap.level,
        B: report.bootstrap.B,
        seed: report.bootstrap.seed,
        require_complete: report.requireComplete,
        include_flagged: report.includeFlagged,
        // Which runs run_quality flagged and what the tables did with them (left out, or in and marked).
        ...(report.qualityNote !== null ? { flagged_runs: report.qualityNote } : {}),
        // Leaving the flagged runs out left no run for the paper tables: said, with the fix.
        ...(report.emptiedByFlags ? { tables_empty_by_flags: report.emptiedByFlags } : {}),
        data: dataDirs,
        counts: report.counts,
        incomplete_models: Object.fromEntries(report.incompleteModels),
        warnings: [...report.warnings, ...overflows],
        figure_size: figureOpts.size,
        captions_in_figure: figureOpts.captionsInFigure,
        // Figures left out for want of data: no empty figure is written.
        figures_not_drawn: notDrawn,
        null_check: nullCheckJson(report),
        // What main_results' intervals cover, from its rows' runs: "this run" or the model over run seeds.
        estimand: estimandJson(report),
        // Who computed these numbers (the kit, its commit, Node) and what each run was played with.
        provenance: { ...kitProvenance(), runs: reportRunProvenance(report) },
        // The headline numbers, so a result can be cited from this one file: every table's rows as
        // the tables hold them (an estimate is {point, lo, hi, n}), with its columns and notes.
        results: resultsJson(report),
        files: owned,
      },
      null,
      2,
    ) + "\n",
  );
  return owned;
}
