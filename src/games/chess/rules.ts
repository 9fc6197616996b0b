/**
 * Chess (rule induction): white pieces capture static black targets. Every piece on the board has
 * hidden rules (A and B) that must be discovered from "illegal move" feedback (games.md, chess): a
 * piece whose rules the text tells (the rook) could score without any induction, so the default
 * configs place none. The rook stays defined as data for custom configs and rule tests.
 */
import { z } from "zod";
import { invalidFeedback } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import { formatNumber, normalizeAction } from "../text.js";
import type { BaseConfig, Transition } from "../types.js";

/** Files a..o: the largest board the action grammar can name is 15x15. */
export const FILES = "abcdefghijklmno";
export const MAX_SIZE = FILES.length;

/** A displacement (dFile, dRank): +file is towards 'o', +rank towards higher rank numbers. */
export type Vec = readonly [number, number];

/**
 * How one piece type moves. A slider repeats a direction until it meets a piece or the edge (it may
 * stop on a target to capture it and never passes through anything); a leaper jumps straight to
 * `from + vector`, whatever stands in between.
 */
export interface PieceRule {
  kind: "slider" | "leaper";
  vectors: readonly Vec[];
  /** Whether the rules text hides this type's movement (the player must discover it). */
  hidden: boolean;
  /** How the rules text names the piece. */
  label: string;
}

function allSigns(a: number, b: number): Vec[] {
  const out: Vec[] = [];
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const) {
    for (const sx of x === 0 ? [1] : [1, -1]) {
      for (const sy of y === 0 ? [1] : [1, -1]) {
        const v: Vec = [sx * x, sy * y];
        if (!out.some((w) => w[0] === v[0] && w[1] === v[1])) out.push(v);
      }
    }
  }
  return out;
}

/**
 * The game version's movement rules, as data: the same in every episode and both configs, so what
 * an agent learns about A and B in exploration carries over to evaluation. A new piece type is one
 * more entry here plus a count in the config.
 */
export const PIECE_RULES = {
  R: { kind: "slider", vectors: allSigns(1, 0), hidden: false, label: "rook" },
  /** A (1,3)-leaper: 8 jump targets. */
  A: { kind: "leaper", vectors: allSigns(1, 3), hidden: true, label: "type A" },
  /** Moves like a king but exactly two squares, jumping: (+-2,0), (0,+-2), (+-2,+-2). */
  B: { kind: "leaper", vectors: [...allSigns(2, 0), ...allSigns(2, 2)], hidden: true, label: "type B" },
} as const satisfies Record<string, PieceRule>;

export const PIECE_TYPES = ["R", "A", "B"] as const satisfies readonly (keyof typeof PIECE_RULES)[];
export type PieceType = (typeof PIECE_TYPES)[number];

const count = z.number().int().nonnegative();

export const configSchema = z
  .object({
    /** Board side: size x size squares, files a.. and ranks 1..size. */
    size: z.number().int().min(3).max(MAX_SIZE),
    /** How many white pieces of each type start on the board. */
    pieces: z.object({ R: count, A: count, B: count }),
    /** Static black targets to capture. */
    targets: z.number().int().min(1),
    /**
     * The generator's closeness bound: every target is at most this many moves from some piece's
     * start by that piece's own rule (explore keeps targets near; eval allows up to the step cap).
     */
    reach: z.number().int().min(1),
    maxSteps: z.number().int().min(1),
  })
  .refine((c) => c.pieces.R + c.pieces.A + c.pieces.B >= 1, { message: "at least one white piece is needed" })
  .refine((c) => c.pieces.R + c.pieces.A + c.pieces.B + c.targets <= c.size * c.size, {
    message: "pieces and targets do not fit on the board",
  });

export type ChessConfig = z.infer<typeof configSchema> & BaseConfig;

/**
 * Only hidden-rule pieces (games.md): explore is lenient by geometry (a small board, one piece of each
 * type, targets at most 3 moves from a piece); eval is the 15x15 variant with targets anywhere the
 * pieces can reach within the step cap.
 */
export const configs: Record<"explore" | "eval", ChessConfig> = {
  explore: { size: 8, pieces: { R: 0, A: 1, B: 1 }, targets: 3, reach: 3, maxSteps: 64 },
  eval: { size: 15, pieces: { R: 0, A: 2, B: 2 }, targets: 5, reach: 64, maxSteps: 64 },
};

/**
 * Named explore variants (verified.md): what a curriculum may choose for an exploration episode
 * besides `explore`. Evaluation never plays them; their rules text states them (more targets; a
 * bigger board with a longer reach).
 */
export const exploreVariants: Record<string, ChessConfig> = {
  "more-targets": { ...configs.explore, pieces: { ...configs.explore.pieces }, targets: 5 },
  "wide-board": { ...configs.explore, pieces: { ...configs.explore.pieces }, size: 10, reach: 5 },
};

const coord = z
  .number()
  .int()
  .min(0)
  .max(MAX_SIZE - 1);

export const innerSchema = z.object({
  /** White pieces; x = file index (a = 0), y = rank - 1. Never removed: nothing captures white. */
  pieces: z.array(z.object({ type: z.enum(PIECE_TYPES), x: coord, y: coord })),
  /** Black targets still on the board. */
  targets: z.array(z.object({ x: coord, y: coord })),
  /** Targets captured so far. */
  captured: z.number().int().nonnegative(),
});

export type ChessInner = z.infer<typeof innerSchema>;
export type Piece = ChessInner["pieces"][number];

export const actionGrammar = "<from> <to> (e.g. a1 a5), or END";

// ---------------------------------------------------------------------------------------------
// Geometry shared with the renderer and the policies (which must derive the same facts from text).

/** The algebraic name of a square; off-board squares keep the name the player typed (e.g. p1, a0). */
export function squareName(x: number, y: number): string {
  return `${String.fromCharCode(97 + x)}${y + 1}`;
}

/** Any letter plus a number parses; whether it is on the board is a separate (rule) question. */
export function parseSquare(s: string): { x: number; y: number } | null {
  const m = /^([a-z])(\d{1,2})$/.exec(s);
  if (!m) return null;
  return { x: (m[1] as string).charCodeAt(0) - 97, y: Number(m[2]) - 1 };
}

export function onBoard(size: number, x: number, y: number): boolean {
  return x >= 0 && y >= 0 && x < size && y < size;
}

export type ParsedAction = { kind: "end" } | { kind: "move"; from: { x: number; y: number }; to: { x: number; y: number }; fromText: string; toText: string };

/**
 * Parses a normalised action. A dash may separate the squares (`a1-a5`, `a1 - a5`), as in long
 * algebraic notation; nothing else is guessed (no `a1a5`, no piece letters, no `x` for captures).
 */
export function parseAction(raw: string): ParsedAction | null {
  const s = normalizeAction(raw);
  if (s === "end") return { kind: "end" };
  const m = /^([a-z]\d{1,2})(?: ?- ?| )([a-z]\d{1,2})$/.exec(s);
  if (!m) return null;
  const from = parseSquare(m[1] as string);
  const to = parseSquare(m[2] as string);
  if (!from || !to) return null;
  return { kind: "move", from, to, fromText: m[1] as string, toText: m[2] as string };
}

/** What stands on each square: a piece letter, 't' for a target, '.' for empty. Row-major by y. */
export function occupancy(size: number, pieces: readonly { type: string; x: number; y: number }[], targets: readonly { x: number; y: number }[]): string[] {
  const grid = new Array<string>(size * size).fill(".");
  for (const t of targets) grid[t.y * size + t.x] = "t";
  for (const p of pieces) grid[p.y * size + p.x] = p.type;
  return grid;
}

/**
 * Destinations of a piece moving by `rule` from (x, y) on `grid`: empty squares and targets, never
 * own pieces. Sliders stop at the first occupied square (capturing it if it is a target).
 */
export function destinations(rule: Pick<PieceRule, "kind" | "vectors">, size: number, grid: readonly string[], x: number, y: number): Array<{ x: number; y: number }> {
  const out: Array<{ x: number; y: number }> = [];
  for (const [dx, dy] of rule.vectors) {
    let nx = x + dx;
    let ny = y + dy;
    while (onBoard(size, nx, ny)) {
      const c = grid[ny * size + nx];
      if (c === ".") out.push({ x: nx, y: ny });
      else {
        if (c === "t") out.push({ x: nx, y: ny });
        break;
      }
      if (rule.kind === "leaper") break;
      nx += dx;
      ny += dy;
    }
  }
  return out;
}

/**
 * Moves a piece on `start` needs to reach each square moving alone by `rule` (-1: never), with the
 * occupied squares of `grid` as obstacles it can neither land on nor (sliding) pass.
 */
export function moveDistances(rule: Pick<PieceRule, "kind" | "vectors">, size: number, grid: readonly string[], start: { x: number; y: number }): Int16Array {
  const g = grid.slice();
  g[start.y * size + start.x] = ".";
  const dist = new Int16Array(size * size).fill(-1);
  dist[start.y * size + start.x] = 0;
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const cur = queue[head] as { x: number; y: number };
    const d = dist[cur.y * size + cur.x] as number;
    for (const n of destinations(rule, size, g, cur.x, cur.y)) {
      const k = n.y * size + n.x;
      if (dist[k] === -1) {
        dist[k] = d + 1;
        queue.push(n);
      }
    }
  }
  return dist;
}

// ---------------------------------------------------------------------------------------------

function pieceOrder(config: ChessConfig): PieceType[] {
  const out: PieceType[] = [];
  for (const t of PIECE_TYPES) for (let i = 0; i < config.pieces[t]; i++) out.push(t);
  return out;
}

/**
 * Places the pieces (R, then A, then B) on distinct squares from one shuffle of the board, then draws
 * the targets uniformly among the free squares that some piece reaches within `reach` moves by its
 * own rule (the other pieces standing still as obstacles, targets ignored as games.md says). So every
 * target is reachable by construction: A keeps its square colour and B both coordinate parities, and
 * targets land only where they can go. Piece placements that leave too few such squares are redrawn
 * from the same generator.
 */
export function init(config: ChessConfig, rng: Rng): ChessInner {
  const n = config.size;
  const types = pieceOrder(config);
  const all: Array<{ x: number; y: number }> = [];
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) all.push({ x, y });
  for (let attempt = 0; attempt < 1000; attempt++) {
    const squares = rng.shuffled(all);
    const pieces = types.map((type, i) => ({ type, ...(squares[i] as { x: number; y: number }) }));
    const grid = occupancy(n, pieces, []);
    const near = new Uint8Array(n * n);
    for (const p of pieces) {
      const dist = moveDistances(PIECE_RULES[p.type], n, grid, p);
      for (let k = 0; k < dist.length; k++) if ((dist[k] as number) >= 1 && (dist[k] as number) <= config.reach) near[k] = 1;
    }
    // The rest of the shuffle is already a uniform order of the free squares: take the first fits.
    const candidates = squares.slice(types.length).filter((q) => near[q.y * n + q.x] === 1);
    if (candidates.length < config.targets) continue;
    const targets = candidates.slice(0, config.targets);
    return { pieces, targets, captured: 0 };
  }
  throw new Error(`chess: no placement leaves ${config.targets} target squares within ${config.reach} moves after 1000 draws (config too crowded?)`);
}

export function score(inner: ChessInner, config: ChessConfig): number {
  return inner.captured / config.targets;
}

/** Why a parsed move is illegal (the feedback text), or null when it is legal. */
export function moveProblem(inner: ChessInner, config: ChessConfig, from: { x: number; y: number }, to: { x: number; y: number }): string | null {
  const n = config.size;
  for (const sq of [from, to]) {
    if (!onBoard(n, sq.x, sq.y)) return `illegal move: ${squareName(sq.x, sq.y)} is off the ${n}x${n} board`;
  }
  const piece = inner.pieces.find((p) => p.x === from.x && p.y === from.y);
  if (!piece) return `illegal move: no piece of yours on ${squareName(from.x, from.y)}`;
  if (from.x === to.x && from.y === to.y) return "illegal move: the piece must leave its square";
  if (inner.pieces.some((p) => p.x === to.x && p.y === to.y)) return `illegal move: your own piece stands on ${squareName(to.x, to.y)}`;
  const rule: PieceRule = PIECE_RULES[piece.type];
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  if (rule.kind === "leaper") {
    // A hidden rule's violation gets the bare words: the reason is what the player must discover.
    return rule.vectors.some(([vx, vy]) => vx === dx && vy === dy) ? null : "illegal move";
  }
  // A slider moves k >= 1 times along one of its vectors and may not pass through anything.
  const step = rule.vectors.find(([vx, vy]) => {
    const k = vx !== 0 ? dx / vx : dy / vy;
    return Number.isInteger(k) && k >= 1 && vx * k === dx && vy * k === dy;
  });
  if (!step) return `illegal move: a ${rule.label} cannot move from ${squareName(from.x, from.y)} to ${squareName(to.x, to.y)}`;
  const grid = occupancy(n, inner.pieces, inner.targets);
  for (let x = from.x + step[0], y = from.y + step[1]; x !== to.x || y !== to.y; x += step[0], y += step[1]) {
    if (grid[y * n + x] !== ".") return `illegal move: the path is blocked at ${squareName(x, y)}`;
  }
  return null;
}

export function apply(inner: ChessInner, action: string | null, config: ChessConfig): Transition {
  if (action === null) return { reward: 0, feedback: invalidFeedback(actionGrammar, "illegal move (no action given)"), valid: false, done: false };
  const parsed = parseAction(action);
  if (!parsed) return { reward: 0, feedback: invalidFeedback(actionGrammar, "illegal move (unreadable action)"), valid: false, done: false };
  if (parsed.kind === "end") {
    return { reward: 0, feedback: `game ended by END with ${inner.targets.length} target(s) left`, valid: true, done: true };
  }
  const problem = moveProblem(inner, config, parsed.from, parsed.to);
  if (problem) return { reward: 0, feedback: problem, valid: false, done: false };
  const piece = inner.pieces.find((p) => p.x === parsed.from.x && p.y === parsed.from.y) as Piece;
  piece.x = parsed.to.x;
  piece.y = parsed.to.y;
  const move = `moved ${piece.type} ${squareName(parsed.from.x, parsed.from.y)} to ${squareName(parsed.to.x, parsed.to.y)}`;
  const hit = inner.targets.findIndex((t) => t.x === parsed.to.x && t.y === parsed.to.y);
  if (hit < 0) return { reward: 0, feedback: move, valid: true, done: false };
  const before = score(inner, config);
  inner.targets.splice(hit, 1);
  inner.captured += 1;
  const done = inner.targets.length === 0;
  const left = done ? "all targets captured" : `${inner.targets.length} target(s) left`;
  return { reward: score(inner, config) - before, feedback: `${move} and captured the target there; ${left}`, valid: true, done };
}

export function legalActions(inner: ChessInner, config: ChessConfig): string[] {
  const grid = occupancy(config.size, inner.pieces, inner.targets);
  const out: string[] = [];
  for (const p of inner.pieces) {
    for (const d of destinations(PIECE_RULES[p.type], config.size, grid, p.x, p.y)) out.push(`${squareName(p.x, p.y)} ${squareName(d.x, d.y)}`);
  }
  out.push("END");
  return out;
}

/** "A", "A and B", "A, B and C". */
export function listTypes(types: string[]): string {
  return types.length <= 1 ? (types[0] ?? "") : `${types.slice(0, -1).join(", ")} and ${types.at(-1)}`;
}

export function hiddenTypes(config: ChessConfig): PieceType[] {
  return PIECE_TYPES.filter((t) => PIECE_RULES[t].hidden && config.pieces[t] > 0);
}

export function rulesBody(config: ChessConfig): string {
  const n = config.size;
  const last = FILES[n - 1] as string;
  const hidden = hiddenTypes(config);
  const army = listTypes(
    PIECE_TYPES.filter((t) => config.pieces[t] > 0).map(
      (t) => `${config.pieces[t]} ${t === "R" ? (config.pieces[t] === 1 ? "rook (R)" : "rooks (R)") : `piece${config.pieces[t] === 1 ? "" : "s"} of type ${t}`}`,
    ),
  );
  const per = formatNumber(1 / config.targets);
  const lines = [
    "## Objective",
    `You play White on ${n === 8 || n === 11 ? "an" : "a"} ${n}x${n} board. Black has ${config.targets} static targets (t) that never move and never attack.`,
    "Capture targets by moving one of your pieces onto a target's square. Capture as many as you can.",
    "",
    "## Your pieces",
    `You have ${army}.`,
  ];
  if (config.pieces.R > 0) {
    lines.push(
      "- R is a rook: it moves any number of squares along a rank or a file. It cannot pass through any piece (yours or a target); it may stop on an empty square, or on a target to capture it.",
    );
  }
  if (hidden.length) {
    lines.push(
      `- ${listTypes(hidden)} ${hidden.length === 1 ? "moves" : "move"} by fixed rules you must discover. The rules are the same in every game. A move that breaks them is rejected with the feedback "illegal move" and changes nothing.`,
    );
    // The example is a piece that is not on the board: it explains the notion without a hint.
    if (config.pieces.R === 0) {
      lines.push(
        "- A movement rule says which squares a piece may move to from where it stands. For example (a piece that is not in this game), a rook would slide any distance along a rank or a file.",
      );
    }
  }
  lines.push(
    "- No piece may leave the board or land on a square occupied by one of your own pieces. Only one piece moves per step.",
    "",
    "## Board",
    `Files a..${last} run left to right (labels above and below the board), ranks 1..${n} bottom to top (labels on the left).`,
    `Legend: ${PIECE_TYPES.filter((t) => config.pieces[t] > 0).join(", ")} your pieces; t a target; . an empty square.`,
    "",
    "## Actions",
    "`<from> <to>` with algebraic squares (file letter then rank number): move your piece on <from> to <to>, e.g. `a1 a5`. A dash also works (`a1-a5`).",
    "`END` stops the game at once.",
    "An illegal or unreadable action changes nothing, earns nothing and still uses a step.",
    "",
    "## Rewards and the end",
    `Each captured target is worth 1/${config.targets} = ${per} (all ${config.targets} together are worth 1); every other action is worth 0.`,
    `The game ends when you answer END, when the last target is captured, or after ${config.maxSteps} steps.`,
  );
  return lines.join("\n");
}
