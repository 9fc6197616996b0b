/**
 * Text-only snake policies. `heuristic`: among the moves that do not collide, prefer those that keep
 * the snake out of a trap (the tail stays reachable, or the open area still fits the body), then the
 * shortest path (BFS aware of the body clearing over time) to an apple. Self-score 1 if its move eats.
 */
import { lastObservationReader } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import type { PolicyContext, PolicyDecision, TextPolicy } from "../types.js";
import { parseObservation, type SnakeFacts } from "./render.js";
import { collision, DELTA, DIRECTIONS, isWall, sameCell, type Cell, type Direction } from "./rules.js";

/** An observation's facts (the last one's kept: lastObservationReader; nothing may mutate them). */
export const factsOf: (observation: string) => SnakeFacts = lastObservationReader(parseObservation);

export const random: TextPolicy = (ctx: PolicyContext, rng: Rng): PolicyDecision => {
  // Parsing first keeps the policy honest: it only answers observations of this game.
  factsOf(ctx.observation);
  return { action: rng.pick(DIRECTIONS), selfScore: 0 };
};

interface Board {
  rows: number;
  cols: number;
}

/** The snake after moving its head to `head` (growing when it eats). */
function moved(snake: readonly Cell[], head: Cell, eats: boolean): Cell[] {
  const next = [head, ...snake];
  if (!eats) next.pop();
  return next;
}

/**
 * BFS from the head where a body cell counts as free once the tail has passed it: the segment at
 * index i (head = 0) of a length-L snake leaves its cell after L - i moves (ignoring growth).
 * Returns the distance to the nearest target, the number of reachable cells, and whether the tail
 * cell is reachable.
 */
function explore(snake: readonly Cell[], targets: readonly Cell[], board: Board): { dist: number; area: number; tail: boolean } {
  const L = snake.length;
  const freeAt = new Map<number, number>();
  snake.forEach(([r, c], i) => {
    if (i > 0) freeAt.set(r * board.cols + c, L - i);
  });
  const targetSet = new Set(targets.map(([r, c]) => r * board.cols + c));
  const [hr, hc] = snake[0]!;
  const tail = snake[L - 1]!;
  const seen = new Set([hr * board.cols + hc]);
  let frontier: Cell[] = [[hr, hc]];
  let dist = Infinity;
  let tailReached = L === 1;
  for (let d = 1; frontier.length > 0; d++) {
    const next: Cell[] = [];
    for (const [r, c] of frontier) {
      for (const dir of DIRECTIONS) {
        const [dr, dc] = DELTA[dir];
        const nr = r + dr;
        const nc = c + dc;
        const k = nr * board.cols + nc;
        if (isWall(nr, nc, board) || seen.has(k)) continue;
        if (nr === tail[0] && nc === tail[1] && L > 1) tailReached = true;
        if ((freeAt.get(k) ?? 0) > d) continue;
        seen.add(k);
        if (targetSet.has(k) && dist === Infinity) dist = d;
        next.push([nr, nc]);
      }
    }
    frontier = next;
  }
  return { dist, area: seen.size, tail: tailReached };
}

interface Option {
  dir: Direction;
  eats: boolean;
  safe: boolean;
  dist: number;
  area: number;
}

export function evaluateMoves(f: SnakeFacts): Option[] {
  const board = { rows: f.rows, cols: f.cols };
  const options: Option[] = [];
  for (const dir of DIRECTIONS) {
    const [dr, dc] = DELTA[dir];
    const head: Cell = [f.snake[0]![0] + dr, f.snake[0]![1] + dc];
    if (collision(f.snake, head, board)) continue;
    const eats = f.apples.some((a) => sameCell(a, head));
    const after = moved(f.snake, head, eats);
    const rest = eats ? f.apples.filter((a) => !sameCell(a, head)) : f.apples;
    const e = explore(after, rest, board);
    options.push({ dir, eats, safe: e.tail || e.area >= after.length, dist: eats ? 0 : e.dist, area: e.area });
  }
  return options;
}

export const heuristic: TextPolicy = (ctx: PolicyContext): PolicyDecision => {
  const f = factsOf(ctx.observation);
  const options = evaluateMoves(f);
  if (options.length === 0) return { action: f.direction, selfScore: 0 };
  options.sort((a, b) => Number(b.safe) - Number(a.safe) || a.dist - b.dist || b.area - a.area);
  const best = options[0]!;
  return { action: best.dir, selfScore: best.eats ? 1 : 0 };
};
