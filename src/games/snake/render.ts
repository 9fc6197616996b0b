/** The snake observation text, the facts it shows, and its parser (the inverse). */
import { formatLabelledGrid, labelledGridText, parseLabelledGrid } from "../grid.js";
import { DIRECTIONS, isWall, type Cell, type Direction, type SnakeConfig, type SnakeInner } from "./rules.js";

export interface SnakeFacts {
  rows: number;
  cols: number;
  direction: Direction;
  /** Snake cells, head first. */
  snake: Cell[];
  apples: Cell[];
  /** One string per row: `#` wall, `.` empty, `A` apple, `H` head, `o` body. */
  grid: string[];
}

function gridOf(rows: number, cols: number, snake: readonly Cell[], apples: readonly Cell[]): string[] {
  const g = Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c): string => (isWall(r, c, { rows, cols }) ? "#" : ".")));
  for (const [r, c] of apples) g[r]![c] = "A";
  snake.forEach(([r, c], i) => {
    g[r]![c] = i === 0 ? "H" : "o";
  });
  return g.map((row) => row.join(""));
}

export function facts(inner: SnakeInner, config: SnakeConfig): SnakeFacts {
  const snake = inner.snake.map(([r, c]): Cell => [r, c]);
  const apples = inner.apples.map(([r, c]): Cell => [r, c]);
  return { rows: config.rows, cols: config.cols, direction: inner.direction, snake, apples, grid: gridOf(config.rows, config.cols, snake, apples) };
}

function cellList(cells: readonly Cell[]): string {
  if (cells.length === 0) return "none";
  let out = `(${cells[0]![0]}, ${cells[0]![1]})`;
  for (let i = 1; i < cells.length; i++) out += ` (${cells[i]![0]}, ${cells[i]![1]})`;
  return out;
}

export function renderFacts(f: SnakeFacts): string {
  return [
    `Snake board: ${f.rows} rows x ${f.cols} columns (the border is wall)`,
    `Direction: ${f.direction}`,
    `Snake (head to tail): ${cellList(f.snake)}`,
    `Apples: ${cellList(f.apples)}`,
    ...formatLabelledGrid(f.grid, f.cols),
  ].join("\n");
}

/** renderFacts(facts(...)) from one flat cell array (the same bytes; tests compare the two). */
export function render(inner: SnakeInner, config: SnakeConfig): string {
  const { rows, cols } = config;
  const g: string[] = new Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) g[r * cols + c] = isWall(r, c, config) ? "#" : ".";
  for (const [r, c] of inner.apples) g[r * cols + c] = "A";
  for (let i = 0; i < inner.snake.length; i++) {
    const [r, c] = inner.snake[i]!;
    g[r * cols + c] = i === 0 ? "H" : "o";
  }
  return (
    `Snake board: ${rows} rows x ${cols} columns (the border is wall)\nDirection: ${inner.direction}\nSnake (head to tail): ${cellList(inner.snake)}\nApples: ${cellList(inner.apples)}\n` +
    labelledGridText(rows, cols, g)
  );
}

function parseCells(text: string, what: string): Cell[] {
  if (text === "none") return [];
  const out: Cell[] = [];
  const re = /\((\d+), (\d+)\)/g;
  let rest = text;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push([Number(m[1]), Number(m[2])]);
    rest = rest.replace(m[0], "");
  }
  if (rest.trim() !== "" || out.length === 0) throw new Error(`not a snake observation: bad ${what} list`);
  return out;
}

/** Parses a snake observation body back into its facts; throws on any other text. */
export function parseObservation(body: string): SnakeFacts {
  const lines = body.replace(/\r\n/g, "\n").trimEnd().split("\n");
  const fail = (why: string): never => {
    throw new Error(`not a snake observation: ${why}`);
  };
  const head = /^Snake board: (\d+) rows x (\d+) columns \(the border is wall\)$/.exec(lines[0] ?? "") ?? fail("missing the 'Snake board:' line");
  const rows = Number(head[1]);
  const cols = Number(head[2]);
  const dir = /^Direction: (\w+)$/.exec(lines[1] ?? "") ?? fail("missing the 'Direction:' line");
  if (!(DIRECTIONS as readonly string[]).includes(dir[1]!)) fail(`unknown direction '${dir[1]}'`);
  const snakeLine = /^Snake \(head to tail\): (.*)$/.exec(lines[2] ?? "") ?? fail("missing the 'Snake (head to tail):' line");
  const applesLine = /^Apples: (.*)$/.exec(lines[3] ?? "") ?? fail("missing the 'Apples:' line");
  const snake = parseCells(snakeLine[1]!, "snake");
  if (snake.length === 0) fail("empty snake");
  const apples = parseCells(applesLine[1]!, "apple");
  const grid = parseLabelledGrid(lines.slice(4), rows, cols, /^[#.AHo]$/, fail);
  for (const [r, c] of [...snake, ...apples]) if (r >= rows || c >= cols) fail(`cell (${r}, ${c}) is off the board`);
  if (gridOf(rows, cols, snake, apples).join("\n") !== grid.join("\n")) fail("the grid does not match the snake and apple lists");
  return { rows, cols, direction: dir[1] as Direction, snake, apples, grid };
}
