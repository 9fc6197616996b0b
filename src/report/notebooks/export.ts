/**
 * Exports from a notebook, written with Node's `fs` (danfojs' own `toCSV({ filePath })` is its
 * browser build under Node and silently writes nothing). The format follows the file extension:
 *
 * - `.csv`: a header of column names, then one line per row; numbers at full precision, NaN and
 *   null as an empty field, fields quoted like the report's tables;
 * - `.json`: an array of row objects (NaN as null), indent 2.
 *
 * The file is replaced atomically and its folder created; the call returns the path and row count.
 */
import { mkdirSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import type { Columns } from "../../analysis/load/frames.js";
import { writeFileAtomic } from "../../util/atomicWrite.js";
import { csvField } from "../tables.js";
import { csvTextField } from "../../util/escape/csv.js";

/** What can be exported: plain columns, or a danfojs DataFrame (anything with `columns` and row `values`). */
export type ExportSource = Columns | { columns: string[]; values: unknown[] | unknown[][] };

function asRows(src: ExportSource): { names: string[]; rows: unknown[][] } {
  const maybeFrame = src as { columns?: unknown; values?: unknown };
  if (Array.isArray(maybeFrame.columns) && Array.isArray(maybeFrame.values)) {
    const names = maybeFrame.columns as string[];
    const rows = (maybeFrame.values as unknown[]).map((r) => (Array.isArray(r) ? r : [r]));
    return { names, rows };
  }
  const cols = src as Columns;
  const names = Object.keys(cols);
  const n = Math.max(0, ...names.map((k) => cols[k]!.length));
  const short = names.find((k) => cols[k]!.length !== n);
  if (short) throw new Error(`export: column '${short}' has ${cols[short]!.length} values, the others ${n}: columns must have one length`);
  return { names, rows: Array.from({ length: n }, (_, i) => names.map((k) => cols[k]![i])) };
}

function csvValue(v: unknown): string {
  if (v === null || v === undefined || (typeof v === "number" && Number.isNaN(v))) return "";
  if (typeof v === "object") return csvField(JSON.stringify(v));
  return typeof v === "string" ? csvTextField(v) : csvField(String(v));
}

function jsonValue(v: unknown): unknown {
  return typeof v === "number" && !Number.isFinite(v) ? null : v === undefined ? null : v;
}

/** The CSV text of a frame or columns. */
export function frameCsv(src: ExportSource): string {
  const { names, rows } = asRows(src);
  return [names.map(csvField).join(","), ...rows.map((r) => names.map((_, i) => csvValue(r[i])).join(","))].join("\n") + "\n";
}

/** The JSON text (array of row objects) of a frame or columns. */
export function frameJson(src: ExportSource): string {
  const { names, rows } = asRows(src);
  return (
    JSON.stringify(
      rows.map((r) => Object.fromEntries(names.map((k, i) => [k, jsonValue(r[i])]))),
      null,
      2,
    ) + "\n"
  );
}

/**
 * Writes a danfojs frame or plain columns to `path` as CSV or JSON (by its extension). Returns the
 * absolute path and the number of rows written.
 */
export function exportFrame(src: ExportSource, path: string): { path: string; rows: number } {
  const abs = resolve(path);
  const ext = extname(abs).toLowerCase();
  if (ext !== ".csv" && ext !== ".json") throw new Error(`export: ${path} must end in .csv or .json (the format follows the extension)`);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileAtomic(abs, ext === ".csv" ? frameCsv(src) : frameJson(src), { durable: false });
  return { path: abs, rows: asRows(src).rows.length };
}
