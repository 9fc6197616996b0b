/**
 * Minesweeper rules (games.md, "minesweeper"): flood-fill uncovering, lives, a flag budget, and the
 * classic first-click rule in eval. Score = correct flags / mines, or 1 on a win.
 */
import { z } from "zod";
import { invalidFeedback } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import { normalizeAction } from "../text.js";
import type { Transition } from "../types.js";

export const configSchema = z
  .object({
    rows: z.number().int().min(2).max(30),
    cols: z.number().int().min(2).max(30),
    mines: z.number().int().min(1),
    /** Mine hits allowed before the game ends (1 = the first mine ends it). */
    lives: z.number().int().min(1),
    /** `opening`: a safe zero cell and its flood region start revealed; `first-click`: nothing
     * revealed, and the first uncover never hits a mine. */
    start: z.enum(["opening", "first-click"]),
    maxSteps: z.number().int().min(1),
  })
  .superRefine((c, ctx) => {
    // The opening start keeps a whole 3x3 block mine-free; first-click needs one spare cell.
    const room = c.start === "opening" ? c.rows * c.cols - 9 : c.rows * c.cols - 1;
    if (c.mines > room) ctx.addIssue({ code: "custom", path: ["mines"], message: `at most ${room} mines fit a ${c.rows}x${c.cols} board with start '${c.start}'` });
  });
export type MinesweeperConfig = z.infer<typeof configSchema>;

export const configs: Record<"explore" | "eval", MinesweeperConfig> = {
  explore: { rows: 8, cols: 8, mines: 10, lives: 3, start: "opening", maxSteps: 64 },
  eval: { rows: 10, cols: 10, mines: 16, lives: 1, start: "first-click", maxSteps: 64 },
};

/**
 * Named explore variants (verified.md): what a curriculum may choose for an exploration episode
 * besides `explore`. Evaluation never plays them; their rules text states them.
 */
export const exploreVariants: Record<string, MinesweeperConfig> = {
  "more-mines": { ...configs.explore, mines: 14 },
  "one-life": { ...configs.explore, lives: 1 },
};

const boolGrid = z.array(z.array(z.boolean()));
export const innerSchema = z
  .object({
    /** Where the mines are (hidden from the player). */
    mine: boolGrid,
    /** Safe cells the player has uncovered. */
    revealed: boolGrid,
    flagged: boolGrid,
    /** Mines the player uncovered while lives were left; shown as `*`. */
    exploded: boolGrid,
    livesLeft: z.number().int().nonnegative(),
    /** True until the first uncover under the first-click rule. */
    firstUncoverPending: z.boolean(),
    status: z.enum(["playing", "won", "lost"]),
  })
  .superRefine((inner, ctx) => {
    const rows = inner.mine.length;
    const cols = inner.mine[0]?.length ?? 0;
    for (const key of ["mine", "revealed", "flagged", "exploded"] as const) {
      const g = inner[key];
      if (rows === 0 || cols === 0 || g.length !== rows || g.some((row) => row.length !== cols)) {
        ctx.addIssue({ code: "custom", path: [key], message: `must be a non-empty ${rows}x${cols} grid like 'mine'` });
      }
    }
  });
export type MinesweeperInner = z.infer<typeof innerSchema>;

export const actionGrammar = "uncover (row, col) | flag (row, col) | unflag (row, col)";

export type Verb = "uncover" | "flag" | "unflag";
export interface ParsedAction {
  verb: Verb;
  r: number;
  c: number;
}

/** Parses `verb (r, c)`; parentheses are optional, but if one is written both must be. */
export function parseAction(raw: string): ParsedAction | null {
  const s = normalizeAction(raw);
  // Signed coordinates parse, so `(-1, 0)` gets "off the board" like `(10, 0)`.
  const m = /^(uncover|flag|unflag) ?(\()? ?(-?\d+) ?(?:, ?| )(-?\d+) ?(\))?$/.exec(s);
  if (!m) return null;
  if (Boolean(m[2]) !== Boolean(m[5])) return null;
  return { verb: m[1] as Verb, r: Number(m[3]), c: Number(m[4]) };
}

export function neighbours(r: number, c: number, rows: number, cols: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let dr = -1; dr <= 1; dr++) {
    for (let dc = -1; dc <= 1; dc++) {
      if (dr === 0 && dc === 0) continue;
      const nr = r + dr;
      const nc = c + dc;
      if (nr >= 0 && nr < rows && nc >= 0 && nc < cols) out.push([nr, nc]);
    }
  }
  return out;
}

export function adjacentMines(inner: MinesweeperInner, r: number, c: number): number {
  // Loops, not neighbours(): every render counts this for each uncovered cell, and the pair arrays
  // neighbours() allocates cost more than the count.
  const mine = inner.mine;
  const r0 = r > 0 ? r - 1 : 0;
  const r1 = r + 1 < mine.length ? r + 1 : r;
  let n = 0;
  for (let nr = r0; nr <= r1; nr++) {
    const row = mine[nr]!;
    const c0 = c > 0 ? c - 1 : 0;
    const c1 = c + 1 < row.length ? c + 1 : c;
    for (let nc = c0; nc <= c1; nc++) if (row[nc] && (nr !== r || nc !== c)) n++;
  }
  return n;
}

/**
 * The copy step() hands to apply (GameRules.copyInner): the four grids are shared with the previous
 * state, and apply replaces a grid (or the row) it changes through `withCell` / `ownGrid` instead of
 * writing into it. Copying the four grids every step was most of a step's cost, and the
 * mine layout changes at most once an episode.
 */
export function copyInner(inner: MinesweeperInner): MinesweeperInner {
  return {
    mine: inner.mine,
    revealed: inner.revealed,
    flagged: inner.flagged,
    exploded: inner.exploded,
    livesLeft: inner.livesLeft,
    firstUncoverPending: inner.firstUncoverPending,
    status: inner.status,
  };
}

/** `g` with cell (r, c) set to `v`: a new outer array and a new row r, the other rows shared. */
function withCell(g: boolean[][], r: number, c: number, v: boolean): boolean[][] {
  const out = g.slice();
  const row = g[r]!.slice();
  row[c] = v;
  out[r] = row;
  return out;
}

/** A copy of `g` that shares nothing, for the changes of many cells at once (the flood fill). */
function ownGrid(g: boolean[][]): boolean[][] {
  const out = new Array<boolean[]>(g.length);
  for (let r = 0; r < g.length; r++) out[r] = g[r]!.slice();
  return out;
}

function grid(rows: number, cols: number): boolean[][] {
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => false));
}

/** True cells of `g`, or only those where `also` is true too. */
export function countCells(g: boolean[][], also?: boolean[][]): number {
  let n = 0;
  for (let r = 0; r < g.length; r++) {
    const row = g[r]!;
    const other = also?.[r];
    for (let c = 0; c < row.length; c++) if (row[c] && (other === undefined || other[c])) n++;
  }
  return n;
}

/** Reveals (r, c) and, from every zero reached, its neighbours; flagged cells are left alone. */
export function floodReveal(inner: MinesweeperInner, r: number, c: number): number {
  const rows = inner.mine.length;
  const cols = inner.mine[0]!.length;
  const { revealed, flagged, mine, exploded } = inner;
  // Cells as r * cols + c in a number queue, neighbours by loops: the pair arrays per cell and per
  // neighbour were most of an opening uncover's cost. The set of cells revealed is the same in any
  // visiting order (every zero reached opens all its neighbours).
  const queue: number[] = [r * cols + c];
  let opened = 1;
  revealed[r]![c] = true;
  for (let head = 0; head < queue.length; head++) {
    const cr = Math.floor(queue[head]! / cols);
    const cc = queue[head]! - cr * cols;
    if (adjacentMines(inner, cr, cc) !== 0) continue;
    const r0 = cr > 0 ? cr - 1 : 0;
    const r1 = cr + 1 < rows ? cr + 1 : cr;
    const c0 = cc > 0 ? cc - 1 : 0;
    const c1 = cc + 1 < cols ? cc + 1 : cc;
    for (let nr = r0; nr <= r1; nr++) {
      const rev = revealed[nr]!;
      for (let nc = c0; nc <= c1; nc++) {
        if (rev[nc] || flagged[nr]![nc] || mine[nr]![nc] || exploded[nr]![nc]) continue;
        rev[nc] = true;
        opened++;
        queue.push(nr * cols + nc);
      }
    }
  }
  return opened;
}

export function init(config: MinesweeperConfig, rng: Rng): MinesweeperInner {
  const { rows, cols, mines } = config;
  const inner: MinesweeperInner = {
    mine: grid(rows, cols),
    revealed: grid(rows, cols),
    flagged: grid(rows, cols),
    exploded: grid(rows, cols),
    livesLeft: config.lives,
    firstUncoverPending: config.start === "first-click",
    status: "playing",
  };
  const cells: Array<[number, number]> = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) cells.push([r, c]);
  if (config.start === "opening") {
    // Drawing the start cell first and keeping its 3x3 block mine-free guarantees a zero there
    // without redrawing boards.
    const [sr, sc] = rng.pick(cells);
    const candidates = cells.filter(([r, c]) => Math.abs(r - sr) > 1 || Math.abs(c - sc) > 1);
    for (const [r, c] of rng.shuffled(candidates).slice(0, mines)) inner.mine[r]![c] = true;
    floodReveal(inner, sr, sc);
  } else {
    for (const [r, c] of rng.shuffled(cells).slice(0, mines)) inner.mine[r]![c] = true;
  }
  return inner;
}

export function correctFlags(inner: MinesweeperInner): number {
  return countCells(inner.flagged, inner.mine);
}

export function score(inner: MinesweeperInner, config: MinesweeperConfig): number {
  if (inner.status === "won") return 1;
  return correctFlags(inner) / config.mines;
}

/**
 * The two ways to win (games.md): every safe cell uncovered; or every mine flagged and no flag on a
 * safe cell. A mine uncovered with lives left (`*`) cannot carry a flag, so after such a hit only the
 * first way remains; in particular uncovering a mine is never a winning move.
 */
export function isWin(inner: MinesweeperInner): boolean {
  let safeHidden = 0;
  let mineUnflagged = 0;
  let wrongFlags = 0;
  for (let r = 0; r < inner.mine.length; r++) {
    const mine = inner.mine[r]!;
    const flagged = inner.flagged[r]!;
    const revealed = inner.revealed[r]!;
    for (let c = 0; c < mine.length; c++) {
      if (mine[c]) {
        if (!flagged[c]) mineUnflagged++;
      } else {
        if (!revealed[c]) safeHidden++;
        if (flagged[c]) wrongFlags++;
      }
    }
  }
  return safeHidden === 0 || (mineUnflagged === 0 && wrongFlags === 0);
}

/**
 * Moves the mine under the first uncover to a mine-free cell drawn from the episode's generator
 * (games.md). Not "the first mine-free cell in reading order": stated in the rules text, that made
 * the top-left cells likelier mines.
 */
function moveFirstClickMine(inner: MinesweeperInner, r: number, c: number, rng: Rng): void {
  const free: Array<[number, number]> = [];
  for (let rr = 0; rr < inner.mine.length; rr++) {
    for (let cc = 0; cc < inner.mine[0]!.length; cc++) if (!inner.mine[rr]![cc]) free.push([rr, cc]);
  }
  if (free.length === 0) return;
  const [tr, tc] = rng.pick(free);
  inner.mine = ownGrid(inner.mine);
  inner.mine[tr]![tc] = true;
  inner.mine[r]![c] = false;
}

function invalid(why: string): Transition {
  return { reward: 0, feedback: invalidFeedback(actionGrammar, why), valid: false, done: false };
}

export function apply(inner: MinesweeperInner, action: string | null, config: MinesweeperConfig, rng: Rng): Transition {
  if (inner.status !== "playing") return { reward: 0, feedback: "the game is over", valid: false, done: true };
  if (action === null) return invalid("no action found");
  const a = parseAction(action);
  if (!a) return invalid("invalid action");
  const { verb, r, c } = a;
  if (r < 0 || c < 0 || r >= config.rows || c >= config.cols) return invalid(`(${r}, ${c}) is off the ${config.rows}x${config.cols} board`);
  const before = score(inner, config);
  const isOpen = inner.revealed[r]![c] || inner.exploded[r]![c];
  let feedback: string;

  if (verb === "flag") {
    if (isOpen) return invalid(`(${r}, ${c}) is already uncovered`);
    if (inner.flagged[r]![c]) return invalid(`(${r}, ${c}) is already flagged`);
    const placed = countCells(inner.flagged);
    if (placed >= config.mines) return invalid(`all ${config.mines} flags are placed; unflag one first`);
    inner.flagged = withCell(inner.flagged, r, c, true);
    feedback = `flagged (${r}, ${c})`;
  } else if (verb === "unflag") {
    if (!inner.flagged[r]![c]) return invalid(`(${r}, ${c}) has no flag`);
    inner.flagged = withCell(inner.flagged, r, c, false);
    feedback = `unflagged (${r}, ${c})`;
  } else {
    if (isOpen) return invalid(`(${r}, ${c}) is already uncovered`);
    // Uncovering a flagged cell is an explicit request: the flag comes off and the cell opens.
    if (inner.flagged[r]![c]) inner.flagged = withCell(inner.flagged, r, c, false);
    if (inner.firstUncoverPending) {
      inner.firstUncoverPending = false;
      if (inner.mine[r]![c]) moveFirstClickMine(inner, r, c, rng);
    }
    if (inner.mine[r]![c]) {
      inner.livesLeft -= 1;
      inner.exploded = withCell(inner.exploded, r, c, true);
      if (inner.livesLeft > 0) {
        feedback = `mine! lives left: ${inner.livesLeft}`;
      } else {
        inner.status = "lost";
        const after = score(inner, config);
        return { reward: after - before, feedback: "mine! no lives left: game over", valid: true, done: true };
      }
    } else {
      inner.revealed = ownGrid(inner.revealed);
      const opened = floodReveal(inner, r, c);
      feedback = opened === 1 ? `uncovered (${r}, ${c})` : `uncovered (${r}, ${c}): ${opened} cells opened`;
    }
  }

  if (isWin(inner)) {
    inner.status = "won";
    return { reward: 1 - before, feedback: `${feedback}. You win!`, valid: true, done: true };
  }
  return { reward: score(inner, config) - before, feedback, valid: true, done: false };
}

export function legalActions(inner: MinesweeperInner, config: MinesweeperConfig): string[] {
  if (inner.status !== "playing") return [];
  const out: string[] = [];
  const canFlag = countCells(inner.flagged) < config.mines;
  for (let r = 0; r < config.rows; r++) {
    for (let c = 0; c < config.cols; c++) {
      if (inner.revealed[r]![c] || inner.exploded[r]![c]) continue;
      out.push(`uncover (${r}, ${c})`);
      if (inner.flagged[r]![c]) out.push(`unflag (${r}, ${c})`);
      else if (canFlag) out.push(`flag (${r}, ${c})`);
    }
  }
  return out;
}

/** "a" or "an" before a number read aloud ("an 8x8", "an 11x11", "a 10x10"). */
function article(n: number): string {
  return /^(8|11|18)/.test(String(n)) ? "an" : "a";
}

export function rulesBody(config: MinesweeperConfig): string {
  const { rows, cols, mines, lives, maxSteps } = config;
  const start =
    config.start === "opening"
      ? "The game starts with one safe empty cell and the region it opens already uncovered."
      : "The game starts with nothing uncovered. Your first uncover never hits a mine: if a mine is there, it moves to another cell without a mine, chosen at random, and the numbers change accordingly.";
  const livesText =
    lives === 1
      ? "You have 1 life: uncovering a mine ends the game."
      : `You have ${lives} lives. Uncovering a mine costs one life; while lives are left the mine is shown as \`*\`, the game goes on and the feedback says \`mine! lives left: k\`. Losing the last life ends the game.`;
  return [
    "## Objective",
    `Find the ${mines} mines hidden on ${article(rows)} ${rows}x${cols} board (${rows} rows, ${cols} columns): uncover every safe cell, or flag exactly the mines.`,
    "",
    "## Board",
    `Rows are numbered 0..${rows - 1} from the top, columns 0..${cols - 1} from the left; the labels are printed around the grid.`,
    "- `?` hidden cell",
    "- `F` your flag",
    "- `.` uncovered cell with no mine among its 8 neighbours",
    "- `1`..`8` uncovered cell: how many of its 8 neighbours are mines",
    "- `*` a mine you uncovered",
    "The observation also shows your lives left, the number of mines and the flags placed.",
    "",
    "## Actions",
    "- `uncover (row, col)`: open a cell. An empty cell (no neighbouring mine) opens its neighbours too, spreading through empty cells; a numbered cell opens alone. Uncovering a flagged cell removes the flag first.",
    `- \`flag (row, col)\`: put a flag on a hidden cell (at most ${mines} flags at a time).`,
    "- `unflag (row, col)`: remove a flag.",
    "Coordinates are 0-based; parentheses are optional. Example: `uncover (3, 4)`.",
    "An invalid action (unparsable, off the board, on an uncovered cell, beyond the flag limit) changes nothing.",
    "",
    "## Start and lives",
    start,
    livesText,
    "",
    "## Rewards and the end",
    `Each flag placed on a mine earns 1/${mines}; removing a flag from a mine (unflag, or uncovering it) takes that 1/${mines} back; flags on safe cells earn and cost nothing. Other moves earn 0.`,
    `You win when every safe cell is uncovered, or when every mine is flagged and no safe cell is flagged: the win brings your episode total to 1. A mine you uncovered (\`*\`) cannot be flagged, so after such a hit only the first way is left.`,
    `The game ends on a win, when the last life is lost, or after ${maxSteps} steps (every reply counts as a step, valid or not).`,
  ].join("\n");
}
