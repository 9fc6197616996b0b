/**
 * Text for CSV files (report tables, `sql --csv`, `export --format csv`, notebook exports). Two
 * rules besides RFC 4180 quoting:
 *   - formula injection: a spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (and tab or
 *     CR before them) as a formula (`=HYPERLINK(...)`, `-2+3+cmd|...`). A TEXT cell starting so is
 *     written with a leading `'` (OWASP's neutralisation; spreadsheets hide it). Numbers are never
 *     touched: a number column writes `-0.25` as is, and a text cell that is exactly a number
 *     (`-3`, `+1.5e-3`) is a number to a spreadsheet too, not a formula, so it is kept;
 *   - control characters other than newlines and tabs are shown as visible escapes (`\x1b`).
 */
import { escapeControl } from "../outsideText.js";

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A text cell's content made safe to open in a spreadsheet (see the module comment); not yet quoted. */
export function csvText(text: string): string {
  const printable = escapeControl(text, { keepNewlines: true });
  return FORMULA_START.test(printable) && !PLAIN_NUMBER.test(printable) ? `'${printable}` : printable;
}

/** One RFC 4180 field: quoted (inner quotes doubled) when it holds a comma, a quote or a line break. */
export function csvQuote(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A text cell as one CSV field: csvText, then quoted when needed. */
export function csvTextField(text: string): string {
  return csvQuote(csvText(text));
}
