/**
 * Snake rules (games.md, "snake"): a walled board, several apples, the standard tail rule, and the
 * explore/eval split between no-op and game-ending collisions. Score = apples eaten.
 */
import { z } from "zod";
import { invalidFeedback } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import { normalizeAction } from "../text.js";
import type { Transition } from "../types.js";

export const configSchema = z
  .object({
    /** Board size INCLUDING the wall ring (the interior is rows-2 x cols-2). */
    rows: z.number().int().min(4).max(40),
    cols: z.number().int().min(4).max(40),
    /** Apples kept on the board. */
    apples: z.number().int().min(1),
    /** A move into a wall, the body or the neck: `block` (no-op, feedback `blocked`) or `end`. */
    onCollision: z.enum(["block", "end"]),
    /** An unparsable or unknown action: `noop` or `end`. */
    onInvalid: z.enum(["noop", "end"]),
    maxSteps: z.number().int().min(1),
  })
  .superRefine((c, ctx) => {
    const room = (c.rows - 2) * (c.cols - 2) - 1;
    if (c.apples > room) ctx.addIssue({ code: "custom", path: ["apples"], message: `at most ${room} apples fit beside the snake on a ${c.rows}x${c.cols} board` });
  });
export type SnakeConfig = z.infer<typeof configSchema>;

export const configs: Record<"explore" | "eval", SnakeConfig> = {
  explore: { rows: 8, cols: 8, apples: 3, onCollision: "block", onInvalid: "noop", maxSteps: 64 },
  eval: { rows: 10, cols: 10, apples: 3, onCollision: "end", onInvalid: "end", maxSteps: 64 },
};

/**
 * Named explore variants (verified.md): what a curriculum may choose for an exploration episode
 * besides `explore`. Evaluation never plays them; their rules text states them.
 */
export const exploreVariants: Record<string, SnakeConfig> = {
  "more-apples": { ...configs.explore, apples: 5 },
  "big-board": { ...configs.explore, rows: 10, cols: 10 },
};

export const DIRECTIONS = ["UP", "DOWN", "LEFT", "RIGHT"] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const DELTA: Record<Direction, [number, number]> = { UP: [-1, 0], DOWN: [1, 0], LEFT: [0, -1], RIGHT: [0, 1] };

const cell = z.tuple([z.number().int(), z.number().int()]);
export const innerSchema = z.object({
  /** Snake cells, head first. */
  snake: z.array(cell).min(1),
  apples: z.array(cell),
  /** The direction of the last move (UP at the start). */
  direction: z.enum(DIRECTIONS),
  eaten: z.number().int().nonnegative(),
  status: z.enum(["playing", "won", "dead"]),
});
export type SnakeInner = z.infer<typeof innerSchema>;
export type Cell = [number, number];

export const actionGrammar = "UP | DOWN | LEFT | RIGHT";

export function parseAction(raw: string): Direction | null {
  const s = normalizeAction(raw).toUpperCase();
  return (DIRECTIONS as readonly string[]).includes(s) ? (s as Direction) : null;
}

export const sameCell = (a: readonly number[], b: readonly number[]): boolean => a[0] === b[0] && a[1] === b[1];

export function isWall(r: number, c: number, config: { rows: number; cols: number }): boolean {
  return r <= 0 || c <= 0 || r >= config.rows - 1 || c >= config.cols - 1;
}

/** Interior cells holding neither snake nor apple, in row-major order (the respawn candidates). */
export function freeCells(inner: SnakeInner, config: SnakeConfig): Cell[] {
  const taken = new Set([...inner.snake, ...inner.apples].map(([r, c]) => r * config.cols + c));
  const out: Cell[] = [];
  for (let r = 1; r < config.rows - 1; r++) for (let c = 1; c < config.cols - 1; c++) if (!taken.has(r * config.cols + c)) out.push([r, c]);
  return out;
}

export function init(config: SnakeConfig, rng: Rng): SnakeInner {
  // The middle of the interior; on an even interior the lower-right of the four middle cells,
  // which leaves the larger half above the snake's starting direction.
  const inner: SnakeInner = { snake: [[Math.floor(config.rows / 2), Math.floor(config.cols / 2)]], apples: [], direction: "UP", eaten: 0, status: "playing" };
  for (let i = 0; i < config.apples; i++) inner.apples.push(rng.pick(freeCells(inner, config)));
  return inner;
}

export type Collision = "wall" | "neck" | "body" | null;

/** What a move into `head` would hit. The tail cell is free: it moves away before the head arrives. */
export function collision(snake: readonly Cell[], head: Cell, config: { rows: number; cols: number }): Collision {
  if (isWall(head[0], head[1], config)) return "wall";
  if (snake.length > 1 && sameCell(snake[1]!, head)) return "neck";
  for (let i = 1; i < snake.length - 1; i++) if (sameCell(snake[i]!, head)) return "body";
  return null;
}

const COLLISION_TEXT: Record<Exclude<Collision, null>, string> = {
  wall: "the wall",
  neck: "your own neck (reversing)",
  body: "your own body",
};

/**
 * The copy step() hands to apply (GameRules.copyInner): the two cell lists are copied (apply adds and
 * removes cells), the cells themselves shared (apply makes new cells, never changes one).
 */
export function copyInner(inner: SnakeInner): SnakeInner {
  return { snake: inner.snake.slice(), apples: inner.apples.slice(), direction: inner.direction, eaten: inner.eaten, status: inner.status };
}

export function apply(inner: SnakeInner, action: string | null, config: SnakeConfig, rng: Rng): Transition {
  if (inner.status !== "playing") return { reward: 0, feedback: "the game is over", valid: false, done: true };
  const dir = action === null ? null : parseAction(action);
  if (dir === null) {
    const why = action === null ? "no action found" : "invalid action";
    if (config.onInvalid === "end") {
      inner.status = "dead";
      return { reward: 0, feedback: `${invalidFeedback(actionGrammar, why)}; game over`, valid: false, done: true };
    }
    return { reward: 0, feedback: `${invalidFeedback(actionGrammar, why)}; the snake did not move`, valid: false, done: false };
  }
  const [dr, dc] = DELTA[dir];
  const head = inner.snake[0]!;
  const next: Cell = [head[0] + dr, head[1] + dc];
  const hit = collision(inner.snake as Cell[], next, config);
  if (hit) {
    if (config.onCollision === "block") return { reward: 0, feedback: `blocked: ${dir} runs into ${COLLISION_TEXT[hit]}; the snake did not move`, valid: true, done: false };
    inner.status = "dead";
    return { reward: 0, feedback: `crashed into ${COLLISION_TEXT[hit]}: game over`, valid: true, done: true };
  }
  inner.direction = dir;
  inner.snake.unshift(next);
  const appleIndex = inner.apples.findIndex((a) => sameCell(a, next));
  if (appleIndex < 0) {
    inner.snake.pop();
    return { reward: 0, feedback: `moved ${dir}`, valid: true, done: false };
  }
  inner.apples.splice(appleIndex, 1);
  inner.eaten += 1;
  const free = freeCells(inner, config);
  if (free.length === 0) {
    inner.status = "won";
    return { reward: 1, feedback: `moved ${dir} and ate an apple; no free cell is left: you win!`, valid: true, done: true };
  }
  inner.apples.push(rng.pick(free));
  return { reward: 1, feedback: `moved ${dir} and ate an apple`, valid: true, done: false };
}

export function score(inner: SnakeInner): number {
  return inner.eaten;
}

export function legalActions(inner: SnakeInner): string[] {
  return inner.status === "playing" ? [...DIRECTIONS] : [];
}

/** "a" or "an" before a number read aloud ("an 8x8", "an 11x11", "a 10x10"). */
function article(n: number): string {
  return /^(8|11|18)/.test(String(n)) ? "an" : "a";
}

export function rulesBody(config: SnakeConfig): string {
  const { rows, cols, apples, maxSteps } = config;
  const collide =
    config.onCollision === "block"
      ? "A move into a wall or into your own body (reversing into the cell right behind the head included) is blocked: the snake stays where it is and the feedback says `blocked`."
      : "A move into a wall or into your own body (reversing into the cell right behind the head included) ends the game.";
  const invalid = config.onInvalid === "noop" ? "An answer that is not one of the four directions changes nothing." : "An answer that is not one of the four directions ends the game.";
  return [
    "## Objective",
    `Steer a snake on ${article(rows)} ${rows}x${cols} board whose border is wall (${article(rows - 2)} ${rows - 2}x${cols - 2} playing area) and eat as many apples as you can.`,
    "",
    "## Board",
    `Rows are numbered 0..${rows - 1} from the top, columns 0..${cols - 1} from the left (row 0, column 0, row ${rows - 1} and column ${cols - 1} are wall); the labels are printed around the grid.`,
    "- `#` wall",
    "- `.` empty",
    "- `A` apple",
    "- `H` the snake's head",
    "- `o` the snake's body",
    "The observation also lists the snake's cells from head to tail, the apples, and the direction of the last move.",
    "",
    "## Moves",
    `The snake starts with length 1 in the middle of the board, facing UP, with ${apples} apples on the board.`,
    "Each step moves the head one cell in the direction you give; the body follows. The tail leaves its cell before the head arrives, so the head may move into the cell the tail is leaving.",
    `Eating an apple makes the snake one cell longer, and a new apple appears on a random free cell, so there are always ${apples} apples while free cells last. If no free cell is left, the game ends and you win.`,
    collide,
    invalid,
    "",
    "## Actions",
    "One of `UP`, `DOWN`, `LEFT`, `RIGHT` (case does not matter). Example: `LEFT`.",
    "",
    "## Rewards and the end",
    "Each apple eaten earns 1; every other move earns 0.",
    `The game ends after ${maxSteps} steps (every reply counts as a step, valid or not)${config.onCollision === "end" || config.onInvalid === "end" ? ", on a collision or an invalid answer as described above," : ""} or when the board is full.`,
  ].join("\n");
}
