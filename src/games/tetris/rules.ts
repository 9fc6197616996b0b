/**
 * Tetris rules (games.md, "tetris"): a hard-drop placement game. One step places the current piece
 * at a chosen (column, rotation); full rows clear; the verifier score is the number of lines cleared.
 */
import { z } from "zod";
import { invalidFeedback } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import { normalizeAction } from "../text.js";
import type { Transition } from "../types.js";

export const PIECES = ["I", "O", "S", "Z", "L", "J", "T"] as const;
export type Piece = (typeof PIECES)[number];
export const ROTATIONS = [0, 90, 180, 270] as const;
export type Rotation = (typeof ROTATIONS)[number];

export const FILLED = "*";
export const EMPTY = ".";

/** Rotation-0 shapes (top row first). Every other rotation is derived by turning clockwise. */
const BASE_SHAPES: Record<Piece, string[]> = {
  I: ["****"],
  O: ["**", "**"],
  S: [".**", "**."],
  Z: ["**.", ".**"],
  L: ["..*", "***"],
  J: ["*..", "***"],
  T: [".*.", "***"],
};

/** Turns a shape grid 90 degrees clockwise: new[r][c] = old[h-1-c][r]. */
export function rotateClockwise(shape: string[]): string[] {
  const h = shape.length;
  const w = shape[0]!.length;
  const out: string[] = [];
  for (let r = 0; r < w; r++) {
    let row = "";
    for (let c = 0; c < h; c++) row += shape[h - 1 - c]![r]!;
    out.push(row);
  }
  return out;
}

/** The four clockwise rotations (0, 90, 180, 270) of every piece, each a tight grid. */
export const SHAPES: Record<Piece, string[][]> = Object.fromEntries(
  PIECES.map((p) => {
    const rots = [BASE_SHAPES[p]];
    for (let i = 1; i < 4; i++) rots.push(rotateClockwise(rots[i - 1]!));
    return [p, rots];
  }),
) as Record<Piece, string[][]>;

export function rotationIndex(rotation: Rotation): number {
  return ROTATIONS.indexOf(rotation);
}

export const configSchema = z.object({
  /** Board width in columns. */
  width: z.number().int().min(4).max(20),
  /** Board height in rows. */
  height: z.number().int().min(4).max(30),
  maxSteps: z.number().int().positive(),
});
export type TetrisConfig = z.infer<typeof configSchema>;

export const configs: Record<"explore" | "eval", TetrisConfig> = {
  explore: { width: 10, height: 10, maxSteps: 64 },
  eval: { width: 8, height: 8, maxSteps: 64 },
};

/**
 * Named explore variants (verified.md): what a curriculum may choose for an exploration episode
 * besides `explore`. Evaluation never plays them; their rules text states them.
 */
export const exploreVariants: Record<string, TetrisConfig> = {
  narrow: { ...configs.explore, width: 8 },
  low: { ...configs.explore, height: 8 },
};

const pieceSchema = z.enum(PIECES);

export const innerSchema = z.object({
  /** Rows top to bottom, each `width` characters of `*` (filled) or `.` (empty). */
  board: z.array(z.string().regex(/^[*.]+$/)).min(1),
  current: pieceSchema,
  next: pieceSchema,
  /** Pieces locked into the board so far. */
  placed: z.number().int().nonnegative(),
  /** Lines cleared so far: the verifier score. */
  lines: z.number().int().nonnegative(),
  /** The game ended because a piece overlapped filled cells where it spawned. */
  over: z.boolean(),
});
export type TetrisInner = z.infer<typeof innerSchema>;

export const actionGrammar = "<column> <rotation>";

export function emptyBoard(config: TetrisConfig): string[] {
  return Array.from({ length: config.height }, () => EMPTY.repeat(config.width));
}

export function init(config: TetrisConfig, rng: Rng): TetrisInner {
  const current = rng.pick(PIECES);
  const next = rng.pick(PIECES);
  return { board: emptyBoard(config), current, next, placed: 0, lines: 0, over: false };
}

/** Where a dropped piece comes to rest, or that it cannot spawn. */
export interface Drop {
  /** Board row of the shape's top row when resting (0 when blocked). */
  top: number;
  /** The piece overlaps filled cells where it spawns (top row on board row 0): the game is over. */
  blocked: boolean;
}

/**
 * Drops `shape` with its leftmost cell in 0-based column `left`, as KORGym does: the piece spawns
 * with its top row on board row 0 and falls straight down while the next row is free, so it can slide
 * under an overhang in the top rows. Returns null when the shape does not fit horizontally.
 */
export function dropShape(board: string[], shape: string[], left: number): Drop | null {
  const width = board[0]!.length;
  const w = shape[0]!.length;
  if (left < 0 || left + w > width) return null;
  if (!fits(board, shape, left, 0)) return { top: 0, blocked: true };
  let top = 0;
  while (fits(board, shape, left, top + 1)) top += 1;
  return { top, blocked: false };
}

/** Whether `shape` with its top row on board row `top` overlaps no filled cell and the floor. */
function fits(board: string[], shape: string[], left: number, top: number): boolean {
  for (let r = 0; r < shape.length; r++) {
    const br = top + r;
    const line = shape[r]!;
    for (let c = 0; c < line.length; c++) {
      if (line[c] !== FILLED) continue;
      if (br >= board.length) return false;
      if (board[br]![left + c] === FILLED) return false;
    }
  }
  return true;
}

/**
 * Locks `shape` into a copy of the board and clears full rows. The drop must not overflow. Only the
 * rows the shape covers are rebuilt (only they can become full); the others are the same strings.
 */
export function lockAndClear(board: string[], shape: string[], left: number, top: number): { board: string[]; cleared: number } {
  const width = board[0]!.length;
  const full = FILLED.repeat(width);
  const kept: string[] = [];
  for (let r = 0; r < board.length; r++) {
    let row = board[r]!;
    const line = shape[r - top];
    if (line !== undefined) {
      let next = row.slice(0, left);
      for (let c = 0; c < line.length; c++) next += line[c] === FILLED ? FILLED : row[left + c]!;
      row = next + row.slice(left + line.length);
      if (row === full) continue;
    } else if (row === full) {
      continue;
    }
    kept.push(row);
  }
  const cleared = board.length - kept.length;
  if (cleared === 0) return { board: kept, cleared };
  const empty = EMPTY.repeat(width);
  const out: string[] = [];
  for (let i = 0; i < cleared; i++) out.push(empty);
  for (const row of kept) out.push(row);
  return { board: out, cleared };
}

/**
 * The copy step() hands to apply (GameRules.copyInner): the board is shared, since apply replaces
 * it with lockAndClear's new array and never writes into it (its rows are strings anyway).
 */
export function copyInner(inner: TetrisInner): TetrisInner {
  return { board: inner.board, current: inner.current, next: inner.next, placed: inner.placed, lines: inner.lines, over: inner.over };
}

/**
 * Parses a normalised action into a 1-based column and a rotation; null if it does not match. A degree
 * sign after the rotation (`3 90°`) is accepted: real models write it, and KORGym's grammar took it.
 */
export function parseAction(raw: string): { column: number; rotation: Rotation } | null {
  const m = /^(\d{1,3})(?:\s*,\s*|\s+)(\d{1,3}) ?°?$/.exec(normalizeAction(raw));
  if (!m) return null;
  const rotation = Number(m[2]);
  if (!(ROTATIONS as readonly number[]).includes(rotation)) return null;
  return { column: Number(m[1]), rotation: rotation as Rotation };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function apply(inner: TetrisInner, action: string | null, config: TetrisConfig, rng: Rng): Transition {
  const noop = (why: string): Transition => ({ reward: 0, feedback: invalidFeedback(actionGrammar, why), valid: false, done: false });
  if (inner.over) return { reward: 0, feedback: "the game is over", valid: false, done: true };
  if (action === null) return noop("no action");
  const parsed = parseAction(action);
  if (!parsed) return noop("invalid action");
  const shape = SHAPES[inner.current][rotationIndex(parsed.rotation)]!;
  const w = shape[0]!.length;
  if (parsed.column < 1 || parsed.column + w - 1 > config.width) {
    return noop(`illegal placement: ${inner.current} at rotation ${parsed.rotation} is ${w} wide, so its column must be 1..${config.width - w + 1}`);
  }
  const drop = dropShape(inner.board, shape, parsed.column - 1)!;
  if (drop.blocked) {
    // KORGym's end rule: the spawned piece overlaps filled cells at the top; it is not locked.
    inner.over = true;
    return { reward: 0, feedback: `the ${inner.current} has no room to enter at column ${parsed.column} (filled cells at the top): game over`, valid: true, done: true };
  }
  const { board, cleared } = lockAndClear(inner.board, shape, parsed.column - 1, drop.top);
  inner.board = board;
  inner.placed += 1;
  inner.lines += cleared;
  const placedMsg = `placed ${inner.current} at column ${parsed.column}, rotation ${parsed.rotation}`;
  const clearedMsg = cleared > 0 ? `; cleared ${plural(cleared, "line")}` : "";
  // No look-ahead end rule (KORGym has none): the game goes on whatever the next piece is.
  inner.current = inner.next;
  inner.next = rng.pick(PIECES);
  return { reward: cleared, feedback: `${placedMsg}${clearedMsg}`, valid: true, done: false };
}

export function score(inner: TetrisInner): number {
  return inner.lines;
}

export function legalActions(inner: TetrisInner, config: TetrisConfig): string[] {
  if (inner.over) return [];
  const out: string[] = [];
  for (const rotation of ROTATIONS) {
    const w = SHAPES[inner.current][rotationIndex(rotation)]![0]!.length;
    for (let column = 1; column + w - 1 <= config.width; column++) out.push(`${column} ${rotation}`);
  }
  return out;
}

export function rulesBody(config: TetrisConfig): string {
  const { width, height, maxSteps } = config;
  return [
    "## Objective",
    `Place falling pieces on a board ${width} columns wide and ${height} rows high and clear as many full rows (lines) as you can.`,
    "",
    "## Board",
    `The board is drawn row by row, top row first, with the column numbers 1..${width} above it: \`*\` is a filled cell, \`.\` an empty one.`,
    `Pieces are the seven tetrominoes I, O, S, Z, L, J and T, each drawn uniformly at random. The observation shows the current piece in its four clockwise rotations (0, 90, 180, 270), each as a small grid of \`*\` cells, and the NEXT piece.`,
    "",
    "## Action",
    `\`${actionGrammar}\`: the column (1..${width}) where the piece's leftmost cell goes, and a rotation, one of 0, 90, 180 or 270 (as drawn in the observation). A comma between the two numbers (\`3, 90\`) and a degree sign after the rotation (\`3 90°\`) are read the same as \`3 90\`.`,
    "The piece appears with its top row in the top row of the board at that column and rotation, then falls straight down until it rests on the floor or on a filled cell (so it can slide under an overhang near the top).",
    `Example: \`Answer: 3 90\` drops the current piece, rotated 90 degrees clockwise, with its leftmost cell in column 3.`,
    `A placement that does not fit horizontally (the piece would reach past column ${width}) is illegal: nothing happens and the same piece stays. So is an unparsable answer.`,
    "",
    "## Lines",
    "Every full row is cleared and the rows above it move down. Each cleared line counts one point; nothing else counts.",
    "",
    "## End",
    "The game ends when the piece, where it appears (its top row in the top row of the board, at the column and rotation you chose), overlaps a filled cell: that piece is not placed.",
    `It also ends after ${maxSteps} steps (every answer is one step, legal or not).`,
  ].join("\n");
}
