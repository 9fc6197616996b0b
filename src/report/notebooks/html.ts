/**
 * HTML for the notebooks' rich output (tslab's `display.html`). A report table renders with the same
 * cell text as its Markdown (`fmtEstimate`: `0.547 [0.412, 0.690]`, 3 decimals, missing = empty) and
 * the same notes; plain columns and danfojs frames render as a simple, bounded table.
 */
import { cellLabel } from "../writeReport.js";
import { htmlText } from "../../util/escape/html.js";
import type { Table } from "../../analysis/tables/table.js";
import { displayCell, fmt3 } from "../tables.js";
import type { Columns } from "../../analysis/load/frames.js";

/** Escapes text for HTML element content and attribute values (the shared HTML escaping, util/escape/html.ts). */
export const escapeHtml = htmlText;

const STYLE = "border-collapse:collapse;font-size:12px;font-family:DejaVu Sans,Arial,sans-serif";
const CELL = "padding:2px 8px;border-bottom:1px solid #ddd";
/**
 * The box every table sits in: a table wider than the page (main_results_wide: an estimate with its
 * interval in each of 14 columns) scrolls inside it instead of running off nbconvert's HTML page.
 */
const SCROLL = "overflow-x:auto;max-width:100%";

/**
 * A report table (`report.tables.<name>`) as an HTML table: a heading, estimates with their 95%
 * intervals, numbers right-aligned, the main table's incomplete models marked `†`, then the notes
 * (interval method, B, seed, what was resampled).
 */
export function tableHtml<R extends object>(table: Table<R>): string {
  const label = cellLabel(table.name);
  const head = table.columns.map((c) => `<th style="${CELL};text-align:${c.kind === "text" ? "left" : "right"}">${escapeHtml(c.key)}</th>`).join("");
  const body = table.rows.map((row) => {
    const rec = row as Record<string, unknown>;
    const cells = table.columns.map((c) => {
      let text = displayCell(rec[c.key], c.kind);
      if (label) text = label(row, c.key, text);
      return `<td style="${CELL};text-align:${c.kind === "text" ? "left" : "right"};white-space:nowrap">${escapeHtml(text)}</td>`;
    });
    return `<tr>${cells.join("")}</tr>`;
  });
  const empty = table.rows.length === 0 ? `<p><em>(no rows: the data set has nothing for this table)</em></p>` : "";
  const notes = table.notes.map((n) => `<p style="font-size:11px;color:#555;margin:2px 0">${escapeHtml(n)}</p>`).join("");
  return `<h4>${escapeHtml(table.title)}</h4><div style="${SCROLL}"><table style="${STYLE}"><thead><tr>${head}</tr></thead><tbody>${body.join("")}</tbody></table></div>${empty}${notes}`;
}

function plainCell(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return Number.isNaN(v) ? "" : Number.isInteger(v) ? String(v) : fmt3(v);
  return String(v);
}

/** Plain columns (`loadColumns(...).runs`, or any `{col: values[]}`) as HTML, first `limit` rows. */
export function columnsHtml(cols: Columns, limit = 20): string {
  const names = Object.keys(cols);
  const n = (cols[names[0] ?? ""] ?? []).length;
  const rows = Array.from({ length: Math.min(n, limit) }, (_, i) => names.map((k) => (cols[k] as unknown[])[i]));
  return gridHtml(names, rows, n);
}

/**
 * A danfojs DataFrame (anything with `columns` and `values`) as HTML, first `limit` rows. Typed
 * structurally so a notebook need not resolve danfojs' own types.
 */
export function frameHtml(frame: { columns: string[]; values: unknown[] | unknown[][] }, limit = 20): string {
  const rows = (frame.values as unknown[]).slice(0, limit).map((r) => (Array.isArray(r) ? r : [r]));
  return gridHtml(frame.columns, rows, (frame.values as unknown[]).length);
}

function gridHtml(names: readonly string[], rows: unknown[][], total: number): string {
  const head = names.map((k) => `<th style="${CELL};text-align:left">${escapeHtml(k)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((v) => `<td style="${CELL}">${escapeHtml(plainCell(v))}</td>`).join("")}</tr>`).join("");
  const more = total > rows.length ? `<p style="font-size:11px;color:#555">${rows.length} of ${total} rows</p>` : "";
  return `<div style="${SCROLL}"><table style="${STYLE}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${more}`;
}
