/**
 * The labelled grid that snake and minesweeper print under their header lines, and its parser:
 *
 *     0 1 2 3          column labels, right-aligned to the widest label
 *   0 # # # #          row label, then one symbol per cell, each padded to the column width
 *   1 # H . #
 *
 * One place, so both games print and read boards alike.
 */
import { BoundedCache } from "../util/boundedCache.js";

/** The column-label line and one line per row; `grid` holds one string per row, one character per cell. */
export function formatLabelledGrid(grid: readonly string[], cols: number): string[] {
  const rw = String(grid.length - 1).length;
  const cw = String(cols - 1).length;
  const pad = (s: string | number, w: number): string => String(s).padStart(w, " ");
  const header = `${" ".repeat(rw)} ${Array.from({ length: cols }, (_, c) => pad(c, cw)).join(" ")}`;
  const lines = grid.map((row, r) => `${pad(r, rw)} ${[...row].map((ch) => pad(ch, cw)).join(" ")}`);
  return [header, ...lines];
}

/**
 * The same text as `formatLabelledGrid(grid, cols).join("\n")`, built with string appends from the
 * cells in row-major order (`cells[r * cols + c]`): the observation is rendered every step, and the
 * arrays the plain version builds per row and cell cost more than the game's own step.
 */
export function labelledGridText(rows: number, cols: number, cells: ArrayLike<string>): string {
  const layout = gridLayout(rows, cols);
  const pad = layout.cellPad;
  let out = layout.header;
  let i = 0;
  for (let r = 0; r < rows; r++) {
    out += layout.rowPrefix[r]!;
    for (let c = 0; c < cols; c++) {
      const ch = cells[i++]!;
      const cell = ch.length >= pad.length ? ch : pad.slice(ch.length) + ch;
      out += c === 0 ? cell : " " + cell;
    }
  }
  return out;
}

interface GridLayout {
  header: string;
  /** "\n" and the row label with its separating space, per row. */
  rowPrefix: string[];
  /** Spaces as wide as a column (cells are right-aligned in it). */
  cellPad: string;
}

// Board sizes come from configs (a handful); the bound only guards a caller that makes many.
const layouts = new BoundedCache<number, GridLayout>(64);

// The layout of the last call: a game renders one board size over and over, and the cache's
// least-recently-used bookkeeping cost more than the render's own work per row.
let lastKey = -1;
let lastLayout: GridLayout | undefined;

function gridLayout(rows: number, cols: number): GridLayout {
  const key = rows * 65_536 + cols;
  if (key === lastKey) return lastLayout!;
  let l = layouts.get(key);
  if (!l) {
    const rw = String(rows - 1).length;
    l = {
      header: formatLabelledGrid(
        Array.from({ length: rows }, () => ""),
        cols,
      )[0]!,
      rowPrefix: Array.from({ length: rows }, (_, r) => `\n${String(r).padStart(rw, " ")} `),
      cellPad: " ".repeat(String(cols - 1).length),
    };
    layouts.set(key, l);
  }
  lastKey = key;
  lastLayout = l;
  return l;
}

/**
 * Reads the lines formatLabelledGrid wrote (the label line first) back into one string per row.
 * `symbol` accepts one cell's text; `fail` throws the caller's "not a <game> observation" error.
 */
export function parseLabelledGrid(lines: readonly string[], rows: number, cols: number, symbol: RegExp, fail: (why: string) => never): string[] {
  const labels = (lines[0] ?? "").trim().split(/\s+/).map(Number);
  if (labels.length !== cols || labels.some((v, i) => v !== i)) fail("bad column labels");
  const gridLines = lines.slice(1);
  if (gridLines.length !== rows) fail(`expected ${rows} grid rows, found ${gridLines.length}`);
  return gridLines.map((line, r) => {
    const parts = line.trim().split(/\s+/);
    if (Number(parts[0]) !== r || parts.length !== cols + 1) fail(`bad grid row ${r}`);
    const cells = parts.slice(1);
    if (cells.some((ch) => !symbol.test(ch))) fail(`unknown cell symbol in row ${r}`);
    return cells.join("");
  });
}
