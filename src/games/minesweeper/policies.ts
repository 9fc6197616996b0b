/**
 * Text-only minesweeper policies. `heuristic`: constraint propagation (single and subset rules plus
 * the global mine count), then the lowest-risk guess from an exact, bounded enumeration of the
 * frontier; self-score = the expected score change of its own action.
 */
import { splitObservation } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import type { PolicyContext, PolicyDecision, TextPolicy } from "../types.js";
import { BoundedCache } from "../../util/boundedCache.js";
import { parseObservation, type MinesweeperFacts } from "./render.js";
import { neighbours } from "./rules.js";

/** Legal-looking actions read off the observation (mirrors `legalActions`). */
export function actionsFromFacts(f: MinesweeperFacts): string[] {
  const out: string[] = [];
  const canFlag = f.flagsPlaced < f.mines;
  f.grid.forEach((row, r) =>
    [...row].forEach((ch, c) => {
      if (ch === "?") {
        out.push(`uncover (${r}, ${c})`);
        if (canFlag) out.push(`flag (${r}, ${c})`);
      } else if (ch === "F") {
        out.push(`uncover (${r}, ${c})`, `unflag (${r}, ${c})`);
      }
    }),
  );
  return out;
}

export const random: TextPolicy = (ctx: PolicyContext, rng: Rng): PolicyDecision => {
  const f = parseObservation(splitObservation(ctx.observation).body);
  const actions = actionsFromFacts(f);
  return { action: actions.length ? rng.pick(actions) : "uncover (0, 0)", selfScore: 0 };
};

type Known = "mine" | "safe" | null;

export interface Analysis {
  /** Deduced status of every cell (flags and `*` count as mines; uncovered cells as safe). */
  known: Known[][];
  /** Estimated mine probability of each still-undetermined hidden cell (null elsewhere). */
  risk: (number | null)[][];
}

const NODE_LIMIT = 200_000;

function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return -Infinity;
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log((n - k + i) / i);
  return s;
}

interface Constraint {
  cells: number[];
  need: number;
}

/** Per component: for each mine count t, the number of assignments and, per cell, how many have a mine there. */
type Tally = Array<{ n: number; perCell: number[] } | undefined>;

/** Exact enumeration of one independent group of frontier cells; null past the node budget. */
function enumerateComponent(cells: number[], cons: Constraint[], maxMines: number): Tally | null {
  const index = new Map(cells.map((x, i) => [x, i]));
  const consOf: number[][] = cells.map(() => []);
  cons.forEach((k, ci) => k.cells.forEach((x) => consOf[index.get(x)!]!.push(ci)));
  const assigned = cons.map(() => 0);
  const open = cons.map((k) => k.cells.length);
  const value = cells.map(() => 0);
  const tally: Tally = [];
  let nodes = 0;
  const dfs = (i: number, t: number): boolean => {
    if (++nodes > NODE_LIMIT) return false;
    if (t > maxMines) return true;
    if (i === cells.length) {
      const e = (tally[t] ??= { n: 0, perCell: cells.map(() => 0) });
      e.n++;
      value.forEach((v, j) => {
        if (v) e.perCell[j]!++;
      });
      return true;
    }
    for (const v of [0, 1]) {
      let ok = true;
      for (const ci of consOf[i]!) {
        const a = assigned[ci]! + v;
        if (a > cons[ci]!.need || a + open[ci]! - 1 < cons[ci]!.need) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      for (const ci of consOf[i]!) {
        assigned[ci]! += v;
        open[ci]!--;
      }
      value[i] = v;
      const fine = dfs(i + 1, t + v);
      value[i] = 0;
      for (const ci of consOf[i]!) {
        assigned[ci]! -= v;
        open[ci]!++;
      }
      if (!fine) return false;
    }
    return true;
  };
  return dfs(0, 0) ? tally : null;
}

function convolve(a: number[], b: number[]): number[] {
  const out: number[] = Array.from({ length: a.length + b.length - 1 }, () => 0);
  a.forEach((x, i) => {
    if (x)
      b.forEach((y, j) => {
        out[i + j]! += x * y;
      });
  });
  return out;
}

/**
 * Mine probabilities of the frontier cells (in `frontier` order) and of any cell off the frontier.
 * Independent groups of cells are enumerated apart and combined by convolution; every combination
 * is weighted by the ways to place the remaining mines off the frontier. Null when a group is too
 * large to enumerate or the constraints admit no assignment.
 */
function enumerateFrontier(frontier: number[], cons: Constraint[], left: number, offFrontier: number): { frontier: number[]; others: number } | null {
  // Group cells that share a constraint (union-find).
  const parent = new Map(frontier.map((x) => [x, x]));
  const find = (x: number): number => {
    while (parent.get(x) !== x) x = parent.get(x)!;
    return x;
  };
  for (const k of cons) for (const x of k.cells.slice(1)) parent.set(find(x), find(k.cells[0]!));
  const groups = new Map<number, number[]>();
  for (const x of frontier) {
    const root = find(x);
    if (!groups.has(root)) groups.set(root, []);
    groups.get(root)!.push(x);
  }
  const comps: Array<{ cells: number[]; tally: Tally; counts: number[] }> = [];
  for (const cells of groups.values()) {
    const set = new Set(cells);
    const tally = enumerateComponent(
      cells,
      cons.filter((k) => set.has(k.cells[0]!)),
      left,
    );
    if (!tally) return null;
    comps.push({ cells, tally, counts: Array.from({ length: tally.length }, (_, t) => tally[t]?.n ?? 0) });
  }
  const all = comps.reduce((acc, c) => convolve(acc, c.counts), [1]);
  const logW = all.map((_, T) => logChoose(offFrontier, left - T));
  const maxLog = Math.max(...logW.filter((x, T) => all[T]! > 0 && x > -Infinity));
  if (!Number.isFinite(maxLog)) return null;
  const w = logW.map((x) => (x === -Infinity ? 0 : Math.exp(x - maxLog)));
  let total = 0;
  let otherMines = 0;
  all.forEach((n, T) => {
    total += n * w[T]!;
    if (offFrontier > 0) otherMines += n * w[T]! * ((left - T) / offFrontier);
  });
  if (!(total > 0)) return null;
  const probs = new Map<number, number>();
  comps.forEach((comp, k) => {
    const rest = comps.reduce((acc, c, i) => (i === k ? acc : convolve(acc, c.counts)), [1]);
    comp.cells.forEach((x, j) => {
      let mass = 0;
      comp.tally.forEach((e, t) => {
        if (!e || e.perCell[j] === 0) return;
        rest.forEach((n, T) => {
          mass += e.perCell[j]! * n * (w[t + T] ?? 0);
        });
      });
      probs.set(x, mass / total);
    });
  });
  return { frontier: frontier.map((x) => probs.get(x)!), others: offFrontier > 0 ? otherMines / total : 0 };
}

/** Deductions and risk estimates for an observation (exported for tests). */
export function analyse(f: MinesweeperFacts): Analysis {
  const { rows, cols, mines } = f;
  const ch = (r: number, c: number): string => f.grid[r]![c]!;
  const known: Known[][] = f.grid.map((row) => [...row].map((x): Known => (x === "F" || x === "*" ? "mine" : x === "?" ? null : "safe")));
  const numberAt = (r: number, c: number): number | null => {
    const x = ch(r, c);
    return x === "." ? 0 : /[1-8]/.test(x) ? Number(x) : null;
  };

  const key = (r: number, c: number): number => r * cols + c;
  const buildConstraints = (): Constraint[] => {
    const out: Constraint[] = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const n = numberAt(r, c);
        if (n === null) continue;
        let need = n;
        const cells: number[] = [];
        for (const [nr, nc] of neighbours(r, c, rows, cols)) {
          const k = known[nr]![nc];
          if (k === "mine") need--;
          else if (k === null) cells.push(key(nr, nc));
        }
        if (cells.length > 0) out.push({ cells, need });
      }
    }
    return out;
  };
  const set = (k: number, v: Known): boolean => {
    const r = Math.floor(k / cols);
    const c = k % cols;
    if (known[r]![c] !== null) return false;
    known[r]![c] = v;
    return true;
  };
  const unknownCells = (): number[] => {
    const out: number[] = [];
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (known[r]![c] === null) out.push(key(r, c));
    return out;
  };
  const knownMines = (): number => known.flat().filter((k) => k === "mine").length;

  // Propagation to a fixed point.
  for (let changed = true; changed; ) {
    changed = false;
    const cons = buildConstraints();
    for (const k of cons) {
      if (k.need === 0) for (const x of k.cells) changed = set(x, "safe") || changed;
      else if (k.need === k.cells.length) for (const x of k.cells) changed = set(x, "mine") || changed;
    }
    if (changed) continue;
    for (const a of cons) {
      for (const b of cons) {
        if (a === b || a.cells.length >= b.cells.length) continue;
        if (!a.cells.every((x) => b.cells.includes(x))) continue;
        const rest = b.cells.filter((x) => !a.cells.includes(x));
        const need = b.need - a.need;
        if (need === 0) for (const x of rest) changed = set(x, "safe") || changed;
        else if (need === rest.length) for (const x of rest) changed = set(x, "mine") || changed;
      }
    }
    if (changed) continue;
    const unknown = unknownCells();
    const left = mines - knownMines();
    if (unknown.length > 0 && left === 0) for (const x of unknown) changed = set(x, "safe") || changed;
    else if (unknown.length > 0 && left === unknown.length) for (const x of unknown) changed = set(x, "mine") || changed;
  }

  // Risk of the undetermined cells: enumerate frontier assignments, weighting each by the number of
  // ways to place the remaining mines off the frontier.
  const risk: (number | null)[][] = f.grid.map((row) => [...row].map(() => null));
  const unknown = unknownCells();
  if (unknown.length === 0) return { known, risk };
  const cons = buildConstraints();
  const frontierSet = new Set(cons.flatMap((k) => k.cells));
  const frontier = unknown.filter((x) => frontierSet.has(x));
  const others = unknown.filter((x) => !frontierSet.has(x));
  const left = mines - knownMines();
  const density = Math.min(1, Math.max(0, left / unknown.length));
  const setRisk = (k: number, p: number): void => {
    risk[Math.floor(k / cols)]![k % cols] = p;
  };

  const enumerated = enumerateFrontier(frontier, cons, left, others.length);
  if (enumerated) {
    frontier.forEach((x, j) => {
      const p = enumerated.frontier[j]!;
      // Certainties found by the enumeration are deductions too.
      if (p <= 1e-12) set(x, "safe");
      else if (p >= 1 - 1e-12) set(x, "mine");
      else setRisk(x, p);
    });
    for (const x of others) {
      if (enumerated.others <= 1e-12) set(x, "safe");
      else if (enumerated.others >= 1 - 1e-12) set(x, "mine");
      else setRisk(x, enumerated.others);
    }
    return { known, risk };
  }

  // Too many frontier cells to enumerate (or contradictory flags): a local estimate.
  for (const x of frontier) {
    let p = 0;
    for (const k of cons) if (k.cells.includes(x)) p = Math.max(p, Math.min(1, Math.max(0, k.need / k.cells.length)));
    setRisk(x, p);
  }
  for (const x of others) setRisk(x, density);
  return { known, risk };
}

/**
 * Analyses by observation body: a function of the board text alone, and the same boards come back (the
 * heuristic, the perfect judge and the learner's tactics play the same evaluation seeds in every pathway of a
 * matrix). Shared: read only.
 */
const analysisCache = new BoundedCache<string, Analysis>(4096);

export const heuristic: TextPolicy = (ctx: PolicyContext): PolicyDecision => {
  const { step, maxSteps, body } = splitObservation(ctx.observation);
  const f = parseObservation(body);
  const { rows, cols, mines } = f;
  const cells = f.grid.join("");
  const count = (x: string): number => [...cells].filter((y) => y === x).length;
  const hidden = count("?");
  const flags = f.flagsPlaced;
  const exploded = count("*");
  // Flags are trusted as mines (this policy only flags certainties).
  const currentScore = flags / mines;
  const winJump = 1 - currentScore;

  if ([...cells].every((x) => x === "?" || x === "F")) {
    // Nothing uncovered yet: the first uncover is safe; a corner is most likely to open a region,
    // and the bottom-right one is farthest from where a moved mine would land.
    return { action: `uncover (${rows - 1}, ${cols - 1})`, selfScore: 0 };
  }

  const { known, risk } = analysisCache.getOrSet(body, () => analyse(f));
  const safes: Array<[number, number]> = [];
  const minesToFlag: Array<[number, number]> = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (f.grid[r]![c] !== "?") continue;
      if (known[r]![c] === "safe") safes.push([r, c]);
      else if (known[r]![c] === "mine") minesToFlag.push([r, c]);
    }
  }
  const safeHidden = hidden + flags - (mines - exploded);
  const stepsLeft = maxSteps - step;
  const canFlag = flags < mines && minesToFlag.length > 0;
  // A `*` mine cannot be flagged, so after a hit only uncovering every safe cell wins.
  const flagWins = exploded === 0 && flags + 1 === mines;

  if (canFlag && (safes.length === 0 || stepsLeft <= minesToFlag.length || flagWins)) {
    const [r, c] = minesToFlag[0]!;
    return { action: `flag (${r}, ${c})`, selfScore: flagWins ? winJump : 1 / mines };
  }
  if (safes.length > 0) {
    const [r, c] = safes[0]!;
    return { action: `uncover (${r}, ${c})`, selfScore: safeHidden === 1 ? winJump : 0 };
  }
  // Guess: the lowest risk; among equals, the cell with the fewest hidden neighbours (likelier to
  // open a region), then reading order.
  let best: { r: number; c: number; p: number; h: number } | null = null;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const p = risk[r]![c];
      if (f.grid[r]![c] !== "?" || p === null || p === undefined) continue;
      const h = neighbours(r, c, rows, cols).filter(([nr, nc]) => f.grid[nr]![nc] === "?").length;
      if (!best || p < best.p - 1e-9 || (Math.abs(p - best.p) <= 1e-9 && h < best.h)) best = { r, c, p, h };
    }
  }
  if (best) return { action: `uncover (${best.r}, ${best.c})`, selfScore: safeHidden === 1 ? (1 - best.p) * winJump : 0 };
  // Only flagged cells are left hidden (or nothing to do): fall back to something legal-looking.
  const fallback = actionsFromFacts(f)[0] ?? "uncover (0, 0)";
  return { action: fallback, selfScore: 0 };
};
