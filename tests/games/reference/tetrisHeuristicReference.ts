/**
 * Frozen reference: the tetris heuristic as it was before the bitmask search (string rows, a
 * split/join per candidate), with the string drop and lock it used. tests/games/tetrisHeuristic.test.ts
 * checks the fast policy decides exactly like it. Do not "fix" this file: it is the spec of the decisions.
 */
import { splitObservation } from "../../../src/games/envelope.js";
import type { PolicyContext, PolicyDecision, TextPolicy } from "../../../src/games/types.js";
import { parseObservation } from "../../../src/games/tetris/render.js";
import { EMPTY, FILLED, ROTATIONS, SHAPES } from "../../../src/games/tetris/rules.js";

interface Drop {
  top: number;
  blocked: boolean;
}

/**
 * Drops `shape` with its leftmost cell in 0-based column `left`, as KORGym does: the piece spawns
 * with its top row on board row 0 and falls straight down while the next row is free, so it can slide
 * under an overhang in the top rows. Returns null when the shape does not fit horizontally.
 */
function dropShape(board: string[], shape: string[], left: number): Drop | null {
  const width = board[0]!.length;
  const h = shape.length;
  const w = shape[0]!.length;
  if (left < 0 || left + w > width) return null;
  const fits = (top: number): boolean => {
    for (let r = 0; r < h; r++) {
      const br = top + r;
      for (let c = 0; c < w; c++) {
        if (shape[r]![c] !== FILLED) continue;
        if (br >= board.length) return false;
        if (board[br]![left + c] === FILLED) return false;
      }
    }
    return true;
  };
  if (!fits(0)) return { top: 0, blocked: true };
  let top = 0;
  while (fits(top + 1)) top += 1;
  return { top, blocked: false };
}

/** Locks `shape` into a copy of the board and clears full rows. The drop must not overflow. */
function lockAndClear(board: string[], shape: string[], left: number, top: number): { board: string[]; cleared: number } {
  const rows = board.map((r) => r.split(""));
  shape.forEach((line, r) => {
    for (let c = 0; c < line.length; c++) if (line[c] === FILLED) rows[top + r]![left + c] = FILLED;
  });
  const width = board[0]!.length;
  const kept = rows.map((r) => r.join("")).filter((r) => r !== FILLED.repeat(width));
  const cleared = board.length - kept.length;
  return { board: [...Array.from({ length: cleared }, () => EMPTY.repeat(width)), ...kept], cleared };
}

interface Placement {
  action: string;
  shape: string[];
  left: number;
}

function placements(rotations: string[][], width: number): Placement[] {
  const out: Placement[] = [];
  const seen = new Set<string>();
  rotations.forEach((shape, i) => {
    // Symmetric pieces repeat shapes; the first rotation that draws a shape stands for it.
    const key = shape.join("/");
    if (seen.has(key)) return;
    seen.add(key);
    for (let left = 0; left + shape[0]!.length <= width; left++) out.push({ action: `${left + 1} ${ROTATIONS[i]}`, shape, left });
  });
  return out;
}

/** Board features of the classic placement evaluation: aggregate height, holes, bumpiness. */
export function boardFeatures(board: string[]): { height: number; holes: number; bumpiness: number } {
  const rows = board.length;
  const width = board[0]!.length;
  const heights: number[] = [];
  let holes = 0;
  for (let c = 0; c < width; c++) {
    let top = rows;
    for (let r = 0; r < rows; r++) {
      if (board[r]![c] === FILLED) {
        if (top === rows) top = r;
      } else if (top < rows) holes++;
    }
    heights.push(rows - top);
  }
  let bumpiness = 0;
  for (let c = 1; c < width; c++) bumpiness += Math.abs(heights[c]! - heights[c - 1]!);
  return { height: heights.reduce((a, b) => a + b, 0), holes, bumpiness };
}

// Weights of the well-known hand-tuned linear evaluation (aggregate height, lines, holes, bumpiness).
const W_HEIGHT = -0.510066;
const W_LINES = 0.760666;
const W_HOLES = -0.35663;
const W_BUMP = -0.184483;
const DEAD = -1e6;

function evaluate(board: string[]): number {
  const f = boardFeatures(board);
  return W_HEIGHT * f.height + W_HOLES * f.holes + W_BUMP * f.bumpiness;
}

/**
 * Two-ply placement search: every placement of the current piece followed by the best placement of
 * the next one (its shape is the standard tetromino named in the observation). A placement that ends
 * the game, or after which the next piece has nowhere to go, is a last resort.
 */
export const heuristicReference: TextPolicy = (ctx: PolicyContext): PolicyDecision => {
  const f = parseObservation(splitObservation(ctx.observation).body);
  const nextPlacements = placements(SHAPES[f.next], f.width);
  let best: { action: string; value: number; cleared: number } | null = null;
  for (const p of placements(f.rotations, f.width)) {
    const drop = dropShape(f.board, p.shape, p.left)!;
    let value: number;
    let cleared = 0;
    if (drop.blocked) {
      value = 2 * DEAD;
    } else {
      const first = lockAndClear(f.board, p.shape, p.left, drop.top);
      cleared = first.cleared;
      value = DEAD + W_LINES * cleared + evaluate(first.board);
      for (const q of nextPlacements) {
        const d2 = dropShape(first.board, q.shape, q.left)!;
        if (d2.blocked) continue;
        const second = lockAndClear(first.board, q.shape, q.left, d2.top);
        value = Math.max(value, W_LINES * (cleared + second.cleared) + evaluate(second.board));
      }
    }
    if (!best || value > best.value) best = { action: p.action, value, cleared };
  }
  return { action: best!.action, selfScore: best!.cleared };
};
