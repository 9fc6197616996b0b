/**
 * The table renderers: a table (data, `src/analysis/table.ts`) to CSV and Markdown text.
 *
 * Formatting rules (metrics.md, "Formatting"): numbers with 3 decimals; in Markdown an estimate prints
 * as `0.547 [0.412, 0.690]`; a missing value is an empty cell, never 0; the bootstrap method, B and
 * seed are printed under every Markdown table (they are the first note).
 */
import type { Estimate } from "../analysis/bootstrap.js";
import type { Column, ColumnKind, Table } from "../analysis/table.js";

/** The CSV header of a table: estimate columns expand to `<key>, <key>_lo, <key>_hi, <key>_n`. */
export function csvHeader(columns: readonly Column[]): string[] {
  const out: string[] = [];
  for (const c of columns) {
    out.push(c.key);
    if (c.kind === "estimate") out.push(`${c.key}_lo`, `${c.key}_hi`, `${c.key}_n`);
  }
  return out;
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
 * mark follows last (`12.000 [...] to x=27`).
 */
export function fmtEstimate(e: Estimate | null | undefined): string {
  if (e === null || e === undefined || e.point === null) return "";
  let text = e.lo === null || e.hi === null ? fmt3(e.point) : `${fmt3(e.point)} [${fmt3(e.lo)}, ${fmt3(e.hi)}]`;
  if (e.indicative === true && e.n !== undefined && e.lo !== null) text += ` n=${e.n}`;
  if (e.mark !== undefined) text += ` ${e.mark}`;
  return text;
}

function isEstimate(v: unknown): v is Estimate {
  return typeof v === "object" && v !== null && "point" in v;
}

function scalar(v: unknown, kind: ColumnKind): string {
  if (v === null || v === undefined) return "";
  if (isEstimate(v)) return fmt3(v.point);
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "";
    if (kind === "p") return v.toFixed(4);
    return kind === "int" ? String(Math.round(v)) : kind === "text" ? String(v) : fmt3(v);
  }
  return String(v);
}

/** A cell's text as the Markdown (and HTML) tables print it: estimates with their interval. */
export function displayCell(v: unknown, kind: ColumnKind): string {
  return kind === "estimate" || kind === "estimate_point" ? fmtEstimate(isEstimate(v) ? v : null) : scalar(v, kind);
}

/** One CSV field: quoted (inner quotes doubled) when it holds a comma, a quote or a line break. */
export function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Renders a table as CSV (header + rows, `\n` line ends, trailing newline). */
export function toCsv<R extends object>(table: Table<R>): string {
  const lines = [csvHeader(table.columns).map(csvField).join(",")];
  for (const row of table.rows) {
    const rec = row as Record<string, unknown>;
    const cells: string[] = [];
    for (const c of table.columns) {
      const v = rec[c.key];
      if (c.kind === "estimate") {
        const e = isEstimate(v) ? v : null;
        const has = e !== null && e.point !== null;
        cells.push(fmt3(e?.point), fmt3(has ? e?.lo : null), fmt3(has ? e?.hi : null), has && e?.n !== undefined && e.lo !== null ? String(e.n) : "");
      } else {
        cells.push(scalar(v, c.kind));
      }
    }
    lines.push(cells.map(csvField).join(","));
  }
  return lines.join("\n") + "\n";
}

function mdCell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/**
 * Renders a table as Markdown: a heading, the table (estimates with intervals, numbers right-aligned),
 * then the notes (bootstrap description first). `label` may decorate a row's cells (e.g. mark an
 * incomplete model) without changing the data.
 */
export function toMarkdown<R extends object>(
  table: Table<R>,
  label?: (row: R, key: string, text: string) => string,
): string {
  const head = table.columns.map((c) => c.key);
  const align = table.columns.map((c) => (c.kind === "text" ? ":--" : "--:"));
  const lines = [`## ${table.title}`, "", `| ${head.map(mdCell).join(" | ")} |`, `| ${align.join(" | ")} |`];
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
  for (const n of table.notes) lines.push(n, "");
  return lines.join("\n");
}
