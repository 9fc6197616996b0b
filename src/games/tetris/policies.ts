/** Text-only tetris policies: they read the observation, never the hidden state. */
import { splitObservation } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import type { PolicyContext, PolicyDecision, TextPolicy } from "../types.js";
import { parseObservation } from "./render.js";
import { dropShape, FILLED, lockAndClear, ROTATIONS, SHAPES } from "./rules.js";

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

export const random: TextPolicy = (ctx: PolicyContext, rng: Rng): PolicyDecision => {
  const f = parseObservation(splitObservation(ctx.observation).body);
  const actions: string[] = [];
  f.rotations.forEach((shape, i) => {
    for (let col = 1; col + shape[0]!.length - 1 <= f.width; col++) actions.push(`${col} ${ROTATIONS[i]}`);
  });
  return { action: rng.pick(actions), selfScore: 0 };
};

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
export const heuristic: TextPolicy = (ctx: PolicyContext): PolicyDecision => {
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
