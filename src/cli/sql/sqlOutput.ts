/**
 * How `s3gym sql` shows a result: an aligned text table on the terminal (cells escaped: log text is
 * outside text), CSV into a file, or JSON on stdout. Rows arrive in chunks, so neither CSV nor JSON
 * holds a large result whole.
 */
import { AtomicFile } from "../../util/atomicWrite.js";
import { csvQuote, csvTextField } from "../../util/escape/csv.js";
import { cut, escapeControl } from "../../util/outsideText.js";

/** A chunk of a result: names, DuckDB types and rows of JSON values. */
export interface ResultChunk {
  columns: string[];
  types: string[];
  rows: unknown[][];
}

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;

/** A JSON value as DuckDB's JSON reader gives it, with integers that fit a double as numbers. */
export function jsonCell(value: unknown, type: string): unknown {
  if (typeof value === "string" && INTEGER.test(type)) {
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n;
  }
  return value;
}

const FLOAT = /^(DOUBLE|FLOAT|REAL)$/;

/**
 * `x` to `digits` significant digits, the integer part never rounded (12345.678 at 3 digits is
 * 12346, not 1.23e4): what a reader of a table expects instead of 0.30000000000000004.
 */
export function roundSignificant(x: number, digits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const intDigits = Math.floor(Math.log10(Math.abs(x))) + 1;
  return Number(x.toPrecision(Math.min(100, Math.max(digits, intDigits))));
}

/** The chunks with floating-point cells rounded to `digits` significant digits (null: unchanged). */
export async function* withPrecision(chunks: AsyncIterable<ResultChunk>, digits: number | null): AsyncGenerator<ResultChunk> {
  for await (const c of chunks) {
    if (digits === null || !c.types.some((t) => FLOAT.test(t))) {
      yield c;
      continue;
    }
    const float = c.types.map((t) => FLOAT.test(t));
    yield { ...c, rows: c.rows.map((r) => r.map((v, i) => (float[i] && typeof v === "number" ? roundSignificant(v, digits) : v))) };
  }
}

/** A cell as text: NULL for null, JSON for lists and structs. */
function textCell(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** At most this many characters of a cell on the terminal (the full text: --csv or --json). */
const CELL_WIDTH = 60;

/**
 * The rows as an aligned text table (numbers right-aligned), at most `maxRows` of them; a line says
 * how many more there were. Every cell is escaped and cut, so log text cannot act on the terminal.
 */
export function textTable(columns: string[], types: string[], rows: unknown[][], total: number): string {
  const shown = (s: string): string => cut(escapeControl(s), CELL_WIDTH);
  const head = columns.map(shown);
  const body = rows.map((r) => r.map((v) => shown(textCell(v))));
  const width = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] as string).length)));
  const numeric = types.map((t) => INTEGER.test(t) || /^(DOUBLE|FLOAT|DECIMAL)/.test(t));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(width[i] as number) : c.padEnd(width[i] as number)))
      .join("  ")
      .trimEnd();
  const out = [line(head), width.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
  const more = total - rows.length;
  out.push(more > 0 ? `(${total} rows; ${rows.length} shown: --max-rows N shows more, --csv FILE or --json gives all)` : `(${total} row${total === 1 ? "" : "s"})`);
  return out.join("\n") + "\n";
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; null is empty. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  // A text value is neutralised against spreadsheet formulas (util/escape/csv.ts); numbers never are.
  return typeof value === "string" ? csvTextField(value) : csvQuote(typeof value === "object" ? JSON.stringify(value) : String(value));
}

/**
 * Writes chunks to a file as CSV (header first), atomically: the file appears whole or not at all
 * (every byte written, synced, then renamed into place); a failure (a full disk) removes the partial
 * temporary and throws a WriteFailedError naming the file and the cause.
 */
export async function writeCsv(path: string, chunks: AsyncIterable<ResultChunk>): Promise<number> {
  const file = new AtomicFile(path);
  let rows = 0;
  try {
    let header = false;
    for await (const c of chunks) {
      if (!header) {
        file.write(c.columns.map(csvField).join(",") + "\n");
        header = true;
      }
      if (c.rows.length > 0) file.write(c.rows.map((r) => r.map(csvField).join(",")).join("\n") + "\n");
      rows += c.rows.length;
    }
    file.commit();
    return rows;
  } catch (e) {
    file.abort();
    throw e;
  }
}

/** Writes chunks to stdout as a JSON array of row objects. */
export async function writeJson(chunks: AsyncIterable<ResultChunk>, write: (s: string) => void): Promise<number> {
  let rows = 0;
  write("[");
  for await (const c of chunks) {
    for (const r of c.rows) {
      const obj: Record<string, unknown> = {};
      c.columns.forEach((name, i) => (obj[name] = jsonCell(r[i], c.types[i] as string)));
      write(`${rows === 0 ? "\n" : ",\n"}${JSON.stringify(obj)}`);
      rows++;
    }
  }
  write(rows === 0 ? "]\n" : "\n]\n");
  return rows;
}
