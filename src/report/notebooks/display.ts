/**
 * Rich notebook output that survives export: every display carries several MIME types, so a
 * notebook converted to HTML, LaTeX/PDF, Markdown or plain text keeps its tables and figures.
 *
 * | what | MIME types |
 * | --- | --- |
 * | a report table (`showTable`) | text/html, text/markdown (the report's .md bytes), text/plain (aligned columns) |
 * | a figure (`showFigure`, `showSpec`) | image/svg+xml, image/png, text/plain (title and caption) |
 * | a frame or plain columns (`showFrame`, `showColumns`) | text/html, text/plain |
 *
 * tslab's public `display.*` sends one MIME type per output; a bundle goes through the same
 * process-wide hook those functions use (`lastWriteDisplayData` of `tslab/dist/jupyter`), which the
 * Jupyter kernel and the kit's Node engine both set while a cell runs. Loaded lazily, so the kit
 * needs tslab only inside a notebook.
 */
import { createRequire } from "node:module";
import type { TopLevelSpec } from "vega-lite";
import type { Columns } from "../../analysis/load/frames.js";
import type { Table } from "../../analysis/tables/table.js";
import { displayCell } from "../tables.js";
import { specCaption } from "../figures/specs.js";
import { cellLabel, markdownOf } from "../writeReport.js";
import { columnsHtml, frameHtml, tableHtml } from "./html.js";

/** MIME type -> content (strings; binary content as base64). */
export type MimeBundle = Record<string, string>;

type DisplayHook = (d: { data: MimeBundle; metadata: Record<string, unknown>; transient: Record<string, unknown> }, update?: boolean) => void;

/** Sends one multi-MIME display to the running notebook cell. */
export function displayBundle(data: MimeBundle): void {
  const req = createRequire(import.meta.url);
  let hook: DisplayHook | null = null;
  try {
    hook = (req("tslab/dist/jupyter") as { lastWriteDisplayData: DisplayHook | null }).lastWriteDisplayData;
  } catch {
    hook = null;
  }
  if (!hook) throw new Error("display: not running inside a notebook cell (tslab's display hook is not set); use the table or figure writers outside notebooks");
  hook({ data, metadata: {}, transient: {} }, false);
}

/** Pads cells into aligned columns (text left, numbers right), a dashed rule under the header. */
function aligned(head: readonly string[], rows: readonly string[][], right: readonly boolean[]): string {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (right[i] ? c.padStart(width[i]!) : c.padEnd(width[i]!)))
      .join("  ")
      .trimEnd();
  return [line(head), width.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** A report table as plain text: title, aligned columns with the Markdown's cell text, notes. */
export function tablePlainText<R extends object>(table: Table<R>): string {
  const label = cellLabel(table.name);
  const rows = table.rows.map((row) =>
    table.columns.map((c) => {
      const text = displayCell((row as Record<string, unknown>)[c.key], c.kind);
      return label ? label(row, c.key, text) : text;
    }),
  );
  const body =
    table.rows.length === 0
      ? "(no rows: the data set has nothing for this table)"
      : aligned(
          table.columns.map((c) => c.key),
          rows,
          table.columns.map((c) => c.kind !== "text"),
        );
  return [table.title, "", body, "", ...table.notes].join("\n").trimEnd() + "\n";
}

/** Displays a report table (`report.tables.<name>`): HTML, the report's Markdown, aligned text. */
export function showTable<R extends object>(table: Table<R>): void {
  displayBundle({
    "text/html": tableHtml(table),
    "text/markdown": markdownOf(table.name, table as Table<object>),
    "text/plain": tablePlainText(table),
  });
}

/** A rendered figure as `saveFigure` returns it (or any SVG + PNG with a caption). */
export interface ShownFigure {
  svg: string;
  png: Uint8Array;
  /** Title and caption lines: the text/plain fallback. */
  caption: string;
}

/** Displays a figure: SVG, PNG (for exporters that cannot embed SVG) and its caption as text. */
export function showFigure(figure: ShownFigure): void {
  displayBundle({
    "image/svg+xml": figure.svg,
    "image/png": Buffer.from(figure.png).toString("base64"),
    "text/plain": figure.caption,
  });
}

/** Renders any vega-lite spec headless and displays it (SVG + PNG + its title as text). */
export async function showSpec(spec: TopLevelSpec): Promise<void> {
  const { renderSvg, svgToPng } = await import("../figures/render.js");
  const svg = await renderSvg(spec);
  showFigure({ svg, png: svgToPng(svg), caption: specCaption(spec) });
}

/** Plain text of a grid of values (first `limit` rows). */
function gridText(names: readonly string[], rows: unknown[][], total: number): string {
  const cell = (v: unknown): string => (v === null || v === undefined || (typeof v === "number" && Number.isNaN(v)) ? "" : typeof v === "number" && !Number.isInteger(v) ? v.toFixed(3) : String(v));
  const text = rows.map((r) => r.map(cell));
  const right = names.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === "number"));
  return aligned(names, text, right) + (total > rows.length ? `\n${rows.length} of ${total} rows` : "") + "\n";
}

/** Displays a danfojs DataFrame (anything with `columns` and `values`): HTML and aligned text. */
export function showFrame(frame: { columns: string[]; values: unknown[] | unknown[][] }, limit = 20): void {
  const all = frame.values as unknown[];
  const rows = all.slice(0, limit).map((r) => (Array.isArray(r) ? r : [r]));
  displayBundle({ "text/html": frameHtml(frame, limit), "text/plain": gridText(frame.columns, rows, all.length) });
}

/** Displays plain columns (`loadColumns(...).runs`, any `{col: values[]}`): HTML and aligned text. */
export function showColumns(cols: Columns, limit = 20): void {
  const names = Object.keys(cols);
  const n = (cols[names[0] ?? ""] ?? []).length;
  const rows = Array.from({ length: Math.min(n, limit) }, (_, i) => names.map((k) => (cols[k] as unknown[])[i]));
  displayBundle({ "text/html": columnsHtml(cols, limit), "text/plain": gridText(names, rows, n) });
}
