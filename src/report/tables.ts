/**
 * The table renderers: a table (data, `src/analysis/tables/table.ts`) to CSV and Markdown text.
 *
 * Formatting rules (metrics.md, "Formatting"): Markdown numbers with 3 decimals, an estimate as
 * `0.547 [0.412, 0.690]`; CSV numbers at full precision (a CSV is for analysis: rounding there loses
 * data a reader cannot get back); a missing value is an empty cell, never 0; the bootstrap method, B
 * and seed are printed under every Markdown table (they are the first note).
 */
import type { Estimate } from "../analysis/stats/bootstrap.js";
import type { Column, ColumnKind, Table } from "../analysis/tables/table.js";
import { csvQuote, csvTextField } from "../util/escape/csv.js";
import { markdownCell, markdownText } from "../util/escape/markdown.js";

/**
 * The CSV header of a table: estimate columns expand to `<key>, <key>_lo, <key>_hi, <key>_n,
 * <key>_indicative` (indicative: `true` when the interval rests on fewer units than bench/coverage
 * showed it needs, `false` when not, empty without an interval).
 */
export function csvHeader(columns: readonly Column[]): string[] {
  const out: string[] = [];
  for (const c of columns) {
    out.push(c.key);
    if (c.kind === "estimate") out.push(`${c.key}_lo`, `${c.key}_hi`, `${c.key}_n`, `${c.key}_indicative`);
  }
  return out;
}

/** A number at full precision for CSV (shortest round-trip text); missing -> ""; -0 -> 0. */
export function csvNumber(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "";
  return Object.is(x, -0) ? "0" : String(x);
}

/**
 * The interval an estimate prints: none from a single unit, where every resample is the data and the
 * interval would be the point twice (`1.500 [1.500, 1.500]` looks certain and says nothing). A row
 * whose smallest run has one episode but whose other runs vary keeps its interval, marked n=1.
 */
export function shownInterval(e: Estimate): { lo: number; hi: number } | null {
  if (e.lo === null || e.hi === null || (e.n === 1 && e.lo === e.hi)) return null;
  return { lo: e.lo, hi: e.hi };
}

/** A number with 3 decimals; missing (null, NaN, undefined) -> ""; -0.000 prints as 0.000. */
export function fmt3(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "";
  const s = x.toFixed(3);
  return /^-0\.0+$/.test(s) ? s.slice(1) : s;
}

/**
 * `0.547 [0.412, 0.690]`; the point alone when there is no interval; "" when missing. An indicative
 * estimate (fewer units than its interval needs, coverage.ts) reads `0.547 [0.412, 0.690] n=3`; a
 * mark follows last (`12.000 [...] to x=27`). A missing point with a reason prints the reason
 * (`not estimable`).
 */
export function fmtEstimate(e: Estimate | null | undefined): string {
  if (e === null || e === undefined) return "";
  if (e.point === null) return e.missing ?? "";
  const iv = shownInterval(e);
  let text = iv === null ? fmt3(e.point) : `${fmt3(e.point)} [${fmt3(iv.lo)}, ${fmt3(iv.hi)}]`;
  if ((e.indicative === true && e.n !== undefined && iv !== null) || e.n === 1) text += ` n=${e.n}`;
  if (e.mark !== undefined) text += ` ${e.mark}`;
  return text;
}

function isEstimate(v: unknown): v is Estimate {
  return typeof v === "object" && v !== null && "point" in v;
}

function scalar(v: unknown, kind: ColumnKind, csv = false): string {
  if (v === null || v === undefined) return "";
  if (isEstimate(v)) return csv ? csvNumber(v.point) : fmt3(v.point);
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "";
    if (kind === "int") return String(Math.round(v));
    if (kind === "text") return String(v);
    if (csv) return csvNumber(v);
    return kind === "p" ? v.toFixed(4) : fmt3(v);
  }
  return String(v);
}

/** A cell's text as the Markdown (and HTML) tables print it: estimates with their interval. */
export function displayCell(v: unknown, kind: ColumnKind): string {
  return kind === "estimate" || kind === "estimate_point" ? fmtEstimate(isEstimate(v) ? v : null) : scalar(v, kind);
}

/** One CSV field: quoted (inner quotes doubled) when it holds a comma, a quote or a line break. */
export const csvField = csvQuote;

/** Renders a table as CSV (header + rows, `\n` line ends, trailing newline). */
export function toCsv<R extends object>(table: Table<R>): string {
  const lines = [csvHeader(table.columns).map(csvTextField).join(",")];
  for (const row of table.rows) {
    const rec = row as Record<string, unknown>;
    const cells: string[] = [];
    for (const c of table.columns) {
      const v = rec[c.key];
      if (c.kind === "estimate") {
        const e = isEstimate(v) ? v : null;
        const iv = e !== null && e.point !== null ? shownInterval(e) : null;
        const n = e !== null && e.point !== null && e.n !== undefined && (iv !== null || e.n === 1) ? String(e.n) : "";
        cells.push(csvNumber(e?.point), csvNumber(iv?.lo), csvNumber(iv?.hi), n, iv === null ? "" : String(e?.indicative === true));
      } else {
        // A label (text from the logs or a flag) is neutralised against spreadsheet formulas; numbers never are.
        cells.push(typeof v === "string" ? csvTextField(v) : csvQuote(scalar(v, c.kind, true)));
      }
    }
    lines.push(cells.join(","));
  }
  return lines.join("\n") + "\n";
}

const mdCell = markdownCell;

/**
 * Renders a table as Markdown: a heading, the table (estimates with intervals, numbers right-aligned),
 * then the notes (bootstrap description first). `label` may decorate a row's cells (e.g. mark an
 * incomplete model) without changing the data.
 */
export function toMarkdown<R extends object>(table: Table<R>, label?: (row: R, key: string, text: string) => string): string {
  const head = table.columns.map((c) => c.key);
  const align = table.columns.map((c) => (c.kind === "text" ? ":--" : "--:"));
  const lines = [`## ${markdownText(table.title)}`, "", `| ${head.map(mdCell).join(" | ")} |`, `| ${align.join(" | ")} |`];
  for (const row of table.rows) {
    const rec = row as Record<string, unknown>;
    const cells = table.columns.map((c) => {
      const v = rec[c.key];
      let text = displayCell(v, c.kind);
      if (label) text = label(row, c.key, text);
      return mdCell(text);
    });
    lines.push(`| ${cells.join(" | ")} |`);
  }
  if (table.rows.length === 0) lines.push("", "_(no rows: the data set has nothing for this table)_");
  lines.push("");
  for (const n of table.notes) lines.push(markdownText(n), "");
  return lines.join("\n");
}
