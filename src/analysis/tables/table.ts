/**
 * The table model shared by the CLI and the notebooks: a table is DATA (typed rows whose headline
 * cells are Estimates: point + interval). Rendering it as CSV, Markdown or HTML is the report
 * layer's job (`src/report/tables.ts`); this module holds only the shape.
 */
import type { Estimate } from "../stats/bootstrap.js";

/** A cell: text, a count, a number, an estimate, or null (missing). */
export type Cell = string | number | null | Estimate;

/**
 * How a column renders.
 * - text: as is; int: an integer; num: 3 decimals; p: a p-value, 4 decimals (0.0001 is the smallest
 *   10,000 random flips can give, and 3 decimals would print it as 0);
 * - estimate: CSV gets four columns `<key>, <key>_lo, <key>_hi, <key>_n` (n: the resampling units the
 *   interval rests on); Markdown one cell with the interval, `n=K` beside it when K is fewer than the
 *   coverage table supports (the estimate is `indicative`), and the estimate's mark if any;
 * - estimate_point: CSV gets only `<key>` (a table whose CSV columns are fixed for its readers); Markdown still shows the
 *   interval when the row has one.
 */
export type ColumnKind = "text" | "int" | "num" | "p" | "estimate" | "estimate_point";

export interface Column {
  key: string;
  kind: ColumnKind;
}

/** A rendered-ready table. Rows are plain objects keyed by column key. */
export interface Table<R extends object = Record<string, Cell>> {
  /** File stem: `<out>/tables/<name>.csv|.md`. */
  name: string;
  /** Markdown heading. */
  title: string;
  columns: Column[];
  rows: R[];
  /** Lines printed under the Markdown table; the first is the bootstrap description. */
  notes: string[];
}
