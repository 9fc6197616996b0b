/** Text-only tetris policies: they read the observation, never the hidden state. */
import { splitObservation } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import type { PolicyContext, PolicyDecision, TextPolicy } from "../types.js";
import { boardMasks, dropTop, fullRow, lockAndClearInto, maskFeatures, MAX_BITBOARD_WIDTH, shapeMasks } from "./bitboard.js";
import { BoundedCache } from "../../util/boundedCache.js";
import { parseObservation } from "./render.js";
import { FILLED, ROTATIONS, SHAPES, type Piece } from "./rules.js";

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

// Weights of the well-known hand-tuned linear evaluation (aggregate height, lines, holes, bumpiness).
const W_HEIGHT = -0.510066;
const W_LINES = 0.760666;
const W_HOLES = -0.35663;
const W_BUMP = -0.184483;
const DEAD = -1e6;

/** A placement of the search with its shape as row bitmasks (unshifted). */
interface MaskPlacement extends Placement {
  masks: Int32Array;
}

function maskPlacements(rotations: string[][], width: number): MaskPlacement[] {
  return placements(rotations, width).map((p) => ({ ...p, masks: shapeMasks(p.shape) }));
}

/** The next piece's placements per board width: the same standard tetromino every time. */
const nextPlacementCache = new Map<string, MaskPlacement[]>();
function nextPlacements(piece: Piece, width: number): MaskPlacement[] {
  const key = `${piece} ${width}`;
  let out = nextPlacementCache.get(key);
  if (!out) {
    out = maskPlacements(SHAPES[piece], width);
    nextPlacementCache.set(key, out);
  }
  return out;
}

function maskEvaluate(board: Int32Array, width: number, heights: Int32Array): number {
  const f = maskFeatures(board, width, heights);
  return W_HEIGHT * f.height + W_HOLES * f.holes + W_BUMP * f.bumpiness;
}

/**
 * Two-ply placement search: every placement of the current piece followed by the best placement of
 * the next one (its shape is the standard tetromino named in the observation). A placement that ends
 * the game, or after which the next piece has nowhere to go, is a last resort. The boards are row
 * bitmasks (bitboard.ts), so no string board is built per candidate.
 */
export const heuristic: TextPolicy = (ctx: PolicyContext): PolicyDecision => {
  const body = splitObservation(ctx.observation).body;
  // The decision is a function of the board text alone, and the same boards come back: the heuristic,
  // the perfect judge and the learner's tactics play the same evaluation seeds in every pathway of a matrix.
  const d = decisionCache.getOrSet(body, () => search(body));
  return { ...d };
};

/** Decisions by observation body (bounded; a hit returns a copy, so callers own what they get). */
const decisionCache = new BoundedCache<string, PolicyDecision>(8192);

function search(body: string): PolicyDecision {
  const f = parseObservation(body);
  if (f.width > MAX_BITBOARD_WIDTH) {
    throw new Error(`tetris heuristic: the board is ${f.width} columns wide; it searches boards up to ${MAX_BITBOARD_WIDTH} wide (tetris configs allow 4..20 columns)`);
  }
  const hollow = f.rotations.findIndex((shape) => !shape.some((row) => row.includes(FILLED)));
  if (hollow >= 0) {
    // Such a shape never comes to rest: the drop would fall forever. No tetris observation draws one.
    throw new Error(`tetris heuristic: the rotation ${ROTATIONS[hollow]} shape has no filled cell ('*'), so it has nowhere to land`);
  }
  const width = f.width;
  const full = fullRow(width);
  const board = boardMasks(f.board);
  const first = new Int32Array(board.length);
  const second = new Int32Array(board.length);
  const heights = new Int32Array(width);
  const next = nextPlacements(f.next, width);
  let best: { action: string; value: number; cleared: number } | null = null;
  for (const p of maskPlacements(f.rotations, width)) {
    const top = dropTop(board, p.masks, p.left);
    let value: number;
    let cleared = 0;
    if (top < 0) {
      value = 2 * DEAD;
    } else {
      cleared = lockAndClearInto(board, p.masks, p.left, top, full, first);
      // The sums keep the order of the original string search, so equal values tie identically.
      value = DEAD + W_LINES * cleared + maskEvaluate(first, width, heights);
      for (const q of next) {
        const t2 = dropTop(first, q.masks, q.left);
        if (t2 < 0) continue;
        const cleared2 = lockAndClearInto(first, q.masks, q.left, t2, full, second);
        value = Math.max(value, W_LINES * (cleared + cleared2) + maskEvaluate(second, width, heights));
      }
    }
    if (!best || value > best.value) best = { action: p.action, value, cleared };
  }
  return { action: best!.action, selfScore: best!.cleared };
}
