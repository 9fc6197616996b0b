/** The minesweeper observation text, the facts it shows, and its parser (the inverse). */
import { formatLabelledGrid, labelledGridText, parseLabelledGrid } from "../grid.js";
import { adjacentMines, countCells, type MinesweeperConfig, type MinesweeperInner } from "./rules.js";

export interface MinesweeperFacts {
  rows: number;
  cols: number;
  mines: number;
  livesLeft: number;
  flagsPlaced: number;
  /** One string per row, one character per cell: `?`, `F`, `.`, `1`..`8`, `*`. */
  grid: string[];
}

const DIGITS = [".", "1", "2", "3", "4", "5", "6", "7", "8"];

export function cellChar(inner: MinesweeperInner, r: number, c: number): string {
  if (inner.exploded[r]![c]) return "*";
  if (inner.flagged[r]![c]) return "F";
  if (!inner.revealed[r]![c]) return "?";
  return DIGITS[adjacentMines(inner, r, c)]!;
}

export function facts(inner: MinesweeperInner, config: MinesweeperConfig): MinesweeperFacts {
  const grid = inner.mine.map((row, r) => row.map((_, c) => cellChar(inner, r, c)).join(""));
  const flagsPlaced = countCells(inner.flagged);
  return { rows: config.rows, cols: config.cols, mines: config.mines, livesLeft: inner.livesLeft, flagsPlaced, grid };
}

export function renderFacts(f: MinesweeperFacts): string {
  return [
    `Minesweeper board: ${f.rows} rows x ${f.cols} columns, ${f.mines} mines`,
    `Lives left: ${f.livesLeft}`,
    `Flags placed: ${f.flagsPlaced} of ${f.mines}`,
    ...formatLabelledGrid(f.grid, f.cols),
  ].join("\n");
}

// The cells of the board being rendered, reused from call to call (render is synchronous).
let scratch: string[] = [];

/** renderFacts(facts(...)) in one pass over the grids (the same bytes; a test compares the two). */
export function render(inner: MinesweeperInner, config: MinesweeperConfig): string {
  const { rows, cols, mines } = config;
  const { revealed, flagged, exploded } = inner;
  if (scratch.length < rows * cols) scratch = new Array<string>(rows * cols);
  const cells = scratch;
  let flags = 0;
  let i = 0;
  for (let r = 0; r < rows; r++) {
    const ex = exploded[r]!;
    const fl = flagged[r]!;
    const rev = revealed[r]!;
    for (let c = 0; c < cols; c++) {
      if (fl[c]) flags++;
      cells[i++] = ex[c] ? "*" : fl[c] ? "F" : rev[c] ? DIGITS[adjacentMines(inner, r, c)]! : "?";
    }
  }
  // The flags are counted over the config's rows x cols, the grid's own size in every state reset()
  // and step() make (renderFacts counts the whole grid: the renderFast test compares the two).
  return `Minesweeper board: ${rows} rows x ${cols} columns, ${mines} mines\nLives left: ${inner.livesLeft}\nFlags placed: ${flags} of ${mines}\n` + labelledGridText(rows, cols, cells);
}

/** Parses a minesweeper observation body back into its facts; throws on any other text. */
export function parseObservation(body: string): MinesweeperFacts {
  const lines = body.replace(/\r\n/g, "\n").trimEnd().split("\n");
  const fail = (why: string): never => {
    throw new Error(`not a minesweeper observation: ${why}`);
  };
  const head = /^Minesweeper board: (\d+) rows x (\d+) columns, (\d+) mines$/.exec(lines[0] ?? "") ?? fail("missing the 'Minesweeper board:' line");
  const rows = Number(head[1]);
  const cols = Number(head[2]);
  const mines = Number(head[3]);
  const lives = /^Lives left: (\d+)$/.exec(lines[1] ?? "") ?? fail("missing the 'Lives left:' line");
  const flags = /^Flags placed: (\d+) of (\d+)$/.exec(lines[2] ?? "") ?? fail("missing the 'Flags placed:' line");
  if (Number(flags[2]) !== mines) fail("flag limit differs from the mine count");
  const grid = parseLabelledGrid(lines.slice(3), rows, cols, /^[?F.*1-8]$/, fail);
  return { rows, cols, mines, livesLeft: Number(lives[1]), flagsPlaced: Number(flags[1]), grid };
}
