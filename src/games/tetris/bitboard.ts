/**
 * Tetris boards as row bitmasks, for the heuristic's placement search: bit c of a row is column c
 * (0-based, left to right). The same drop, lock, clear and board features as the string functions of
 * rules.ts and policies.ts, without building a string board per candidate (the two-ply search tries
 * ~34 x 34 placements per decision). A 32-bit row holds any board up to MAX_BITBOARD_WIDTH columns;
 * the configs allow at most 20.
 */
import { FILLED } from "./rules.js";

/** Widest board the bitmask rows represent (JS bitwise operations are 32-bit and signed). */
export const MAX_BITBOARD_WIDTH = 30;

/** A shape's rows as bitmasks (bit c = shape column c), top row first. */
export function shapeMasks(shape: string[]): Int32Array {
  const out = new Int32Array(shape.length);
  shape.forEach((line, r) => {
    let m = 0;
    for (let c = 0; c < line.length; c++) if (line[c] === FILLED) m |= 1 << c;
    out[r] = m;
  });
  return out;
}

/** A board's rows (top to bottom) as bitmasks. */
export function boardMasks(board: string[]): Int32Array {
  return shapeMasks(board);
}

/** A full row of `width` columns. */
export function fullRow(width: number): number {
  return (1 << width) - 1;
}

function fits(board: Int32Array, masks: Int32Array, left: number, top: number): boolean {
  const rows = board.length;
  for (let r = 0; r < masks.length; r++) {
    const m = masks[r]!;
    // A shape row without cells never collides (the string rule skips empty cells before the floor test).
    if (m === 0) continue;
    const br = top + r;
    if (br >= rows) return false;
    if ((board[br]! & (m << left)) !== 0) return false;
  }
  return true;
}

/**
 * Where the shape comes to rest when dropped at 0-based column `left` (rules.ts `dropShape`): the
 * board row of its top row, or -1 when it overlaps filled cells where it spawns (blocked). The caller
 * checks that it fits horizontally.
 */
export function dropTop(board: Int32Array, masks: Int32Array, left: number): number {
  if (!fits(board, masks, left, 0)) return -1;
  let top = 0;
  while (fits(board, masks, left, top + 1)) top += 1;
  return top;
}

/**
 * Locks the shape into `out` (a copy of `board`, same length) and clears full rows, keeping the
 * others in order with empty rows on top (rules.ts `lockAndClear`). Returns the number cleared.
 */
export function lockAndClearInto(board: Int32Array, masks: Int32Array, left: number, top: number, full: number, out: Int32Array): number {
  out.set(board);
  for (let r = 0; r < masks.length; r++) if (masks[r] !== 0) out[top + r]! |= masks[r]! << left;
  let k = out.length - 1;
  for (let r = out.length - 1; r >= 0; r--) {
    const row = out[r]!;
    if (row !== full) out[k--] = row;
  }
  const cleared = k + 1;
  for (let r = 0; r <= k; r++) out[r] = 0;
  return cleared;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * The classic placement features (policies.ts `boardFeatures`): aggregate column height, holes (empty
 * cells below a column's top filled cell) and bumpiness (sum of |height difference| of neighbours).
 * `heights` is scratch space of at least `width` entries.
 */
export function maskFeatures(board: Int32Array, width: number, heights: Int32Array): { height: number; holes: number; bumpiness: number } {
  const rows = board.length;
  heights.fill(0, 0, width);
  let covered = 0;
  let holes = 0;
  let height = 0;
  for (let r = 0; r < rows; r++) {
    const row = board[r]!;
    holes += popcount(covered & ~row);
    let fresh = row & ~covered;
    while (fresh !== 0) {
      const low = fresh & -fresh;
      heights[31 - Math.clz32(low)] = rows - r;
      height += rows - r;
      fresh ^= low;
    }
    covered |= row;
  }
  let bumpiness = 0;
  for (let c = 1; c < width; c++) bumpiness += Math.abs(heights[c]! - heights[c - 1]!);
  return { height, holes, bumpiness };
}
