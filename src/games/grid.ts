/**
 * The labelled grid that snake and minesweeper print under their header lines, and its parser:
 *
 *     0 1 2 3          column labels, right-aligned to the widest label
 *   0 # # # #          row label, then one symbol per cell, each padded to the column width
 *   1 # H . #
 *
 * One place, so both games print and read boards alike.
 */

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
