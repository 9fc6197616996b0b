/** Tetris observation text, its visible facts, and the parser that reads the text back. */
import { EMPTY, FILLED, PIECES, ROTATIONS, SHAPES, type Piece, type TetrisConfig, type TetrisInner } from "./rules.js";

/** What a player sees, as data. `rotations[i]` is the current piece at ROTATIONS[i]. */
export interface TetrisFacts {
  width: number;
  height: number;
  /** Rows top to bottom, `*` filled, `.` empty. */
  board: string[];
  placed: number;
  current: Piece;
  rotations: string[][];
  next: Piece;
  over: boolean;
}

export function facts(inner: TetrisInner, config: TetrisConfig): TetrisFacts {
  return {
    width: config.width,
    height: config.height,
    board: inner.board.slice(),
    placed: inner.placed,
    current: inner.current,
    rotations: SHAPES[inner.current].map((s) => s.slice()),
    next: inner.next,
    over: inner.over,
  };
}

const CELL = 3;
const GAME_OVER_LINE = "Game over: the current piece could not enter the board.";

export function renderFacts(f: TetrisFacts): string {
  const lines: string[] = [];
  lines.push(`Board: ${f.width} columns x ${f.height} rows (* filled, . empty; rows numbered from the top)`);
  let header = " ".repeat(CELL);
  for (let c = 1; c <= f.width; c++) header += String(c).padStart(CELL);
  lines.push(header);
  f.board.forEach((row, r) => {
    lines.push(
      String(r + 1).padStart(CELL) +
        row
          .split("")
          .map((ch) => ch.padStart(CELL))
          .join(""),
    );
  });
  lines.push("");
  lines.push(`Pieces placed: ${f.placed}`);
  lines.push(`Current piece: ${f.current} (its four clockwise rotations below; the column you give is where its leftmost cell goes)`);
  f.rotations.forEach((shape, i) => {
    const w = shape[0]!.length;
    lines.push(`rotation ${ROTATIONS[i]} (${w} wide: columns 1-${f.width - w + 1})`);
    for (const row of shape) lines.push(row);
  });
  lines.push(`Next piece: ${f.next}`);
  if (f.over) lines.push(GAME_OVER_LINE);
  return lines.join("\n");
}

/**
 * renderFacts(facts(...)) without the facts: the lines that depend only on the board width and the
 * current piece (the column header, the four rotations) are made once and kept (the same bytes; tests
 * compare the two).
 */
export function render(inner: TetrisInner, config: TetrisConfig): string {
  const { width, height } = config;
  const memo = sizeMemo(width, height);
  let out = memo.head;
  const board = inner.board;
  for (let r = 0; r < board.length; r++) out += rowLabel(r) + rowCells(board[r]!);
  out += `\n\nPieces placed: ${inner.placed}\n${memo.blocks[inner.current] ?? pieceBlock(memo, inner.current, width)}\nNext piece: ${inner.next}`;
  if (inner.over) out += `\n${GAME_OVER_LINE}`;
  return out;
}

const FILLED_CELL = FILLED.padStart(CELL);
const EMPTY_CELL = EMPTY.padStart(CELL);

/** The board's title line and column header, and the piece blocks made so far, for one board size. */
interface SizeMemo {
  key: number;
  head: string;
  blocks: Partial<Record<Piece, string>>;
}

// Board sizes come from configs (a handful): the last one is checked first (a run renders one size
// over and over), and the bound only guards odd callers. Strings and plain lookups, no LRU
// bookkeeping: that bookkeeping cost more than the rest of the render.
const sizes = new Map<number, SizeMemo>();
let lastSize: SizeMemo | undefined;

function sizeMemo(width: number, height: number): SizeMemo {
  const key = width * 65_536 + height;
  if (lastSize?.key === key) return lastSize;
  let m = sizes.get(key);
  if (!m) {
    if (sizes.size >= 64) sizes.clear();
    let header = " ".repeat(CELL);
    for (let c = 1; c <= width; c++) header += String(c).padStart(CELL);
    m = { key, head: `Board: ${width} columns x ${height} rows (* filled, . empty; rows numbered from the top)\n${header}`, blocks: {} };
    sizes.set(key, m);
  }
  lastSize = m;
  return m;
}

/** The "Current piece" line and the piece's four rotations (no trailing newline), kept per size. */
function pieceBlock(memo: SizeMemo, piece: Piece, width: number): string {
  const lines = [`Current piece: ${piece} (its four clockwise rotations below; the column you give is where its leftmost cell goes)`];
  SHAPES[piece].forEach((shape, i) => {
    const w = shape[0]!.length;
    lines.push(`rotation ${ROTATIONS[i]} (${w} wide: columns 1-${width - w + 1})`);
    for (const row of shape) lines.push(row);
  });
  const block = lines.join("\n");
  memo.blocks[piece] = block;
  return block;
}

// "\n" and the 1-based row number, per row index.
const labels: string[] = [];
function rowLabel(r: number): string {
  return labels[r] ?? (labels[r] = `\n${String(r + 1).padStart(CELL)}`);
}

// A board row's cells as printed, keyed by the row's text: boards repeat rows all the time (empty
// rows above the stack, unchanged rows below it). Strings are values, so a hit cannot be stale;
// the bound keeps memory flat whatever boards a caller renders.
const rowTexts = new Map<string, string>();
function rowCells(row: string): string {
  let text = rowTexts.get(row);
  if (text === undefined) {
    text = "";
    for (let c = 0; c < row.length; c++) text += row[c] === FILLED ? FILLED_CELL : row[c] === EMPTY ? EMPTY_CELL : row[c]!.padStart(CELL);
    if (rowTexts.size >= 16_384) rowTexts.clear();
    rowTexts.set(row, text);
  }
  return text;
}

function fail(why: string): never {
  throw new Error(`not a tetris observation: ${why}`);
}

function isPiece(s: string): s is Piece {
  return (PIECES as readonly string[]).includes(s);
}

/** Reads an observation body (without the step header) back into its facts. */
export function parseObservation(body: string): TetrisFacts {
  const lines = body.split("\n");
  let i = 0;
  const next = (): string => {
    if (i >= lines.length) fail("text ends early");
    return lines[i++]!;
  };
  const head = /^Board: (\d+) columns x (\d+) rows \(/.exec(next());
  if (!head) fail("missing 'Board: W columns x H rows' line");
  const width = Number(head[1]);
  const height = Number(head[2]);
  const header = next().trim().split(/\s+/).map(Number);
  if (header.length !== width || header.some((n, k) => n !== k + 1)) fail("bad column-number line");
  const board: string[] = [];
  for (let r = 1; r <= height; r++) {
    const parts = next().trim().split(/\s+/);
    if (Number(parts[0]) !== r || parts.length !== width + 1) fail(`bad board row ${r}`);
    const cells = parts.slice(1);
    if (cells.some((c) => c !== FILLED && c !== EMPTY)) fail(`bad cell in board row ${r}`);
    board.push(cells.join(""));
  }
  if (next() !== "") fail("missing blank line after the board");
  const placedM = /^Pieces placed: (\d+)$/.exec(next());
  if (!placedM) fail("missing 'Pieces placed' line");
  const curM = /^Current piece: ([A-Z])\b/.exec(next());
  if (!curM || !isPiece(curM[1]!)) fail("missing 'Current piece' line");
  const rotations: string[][] = [];
  for (const rot of ROTATIONS) {
    const rm = new RegExp(`^rotation ${rot} \\((\\d+) wide`).exec(next());
    if (!rm) fail(`missing 'rotation ${rot}' line`);
    const shape: string[] = [];
    while (i < lines.length && /^[*.]+$/.test(lines[i]!)) shape.push(lines[i++]!);
    if (shape.length === 0 || shape.some((s) => s.length !== Number(rm[1]))) fail(`bad shape for rotation ${rot}`);
    rotations.push(shape);
  }
  const nextM = /^Next piece: ([A-Z])$/.exec(next());
  if (!nextM || !isPiece(nextM[1]!)) fail("missing 'Next piece' line");
  let over = false;
  if (i < lines.length) {
    if (lines[i] !== GAME_OVER_LINE) fail(`unexpected line '${lines[i]}'`);
    over = true;
    i++;
  }
  if (i < lines.length) fail("unexpected text after the observation");
  return { width, height, board, placed: Number(placedM[1]), current: curM[1] as Piece, rotations, next: nextM[1] as Piece, over };
}
