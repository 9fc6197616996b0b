/**
 * Bounded exact search for a winning line, memoised on the multiset of units (the order of units on
 * the board changes only the indices of the moves, not what can be reached).
 *
 * Numbers carry an error bound `e`: the game certifies its own boards with e = 0 (the true doubles and
 * the game's exact semantics), the heuristic policy passes the printed numbers with e = half a unit of
 * the 6th decimal, and every operation propagates the bound, so a sum within its bound of 0 counts as
 * the cancellation the true values would make.
 *
 * Two phases share the budget. Boards are built backwards along one chain (a single running number
 * that absorbs every other unit in turn), so the first phase only extends the number made by the
 * previous move until it cancels; this finds the intended kind of line far sooner than a free search.
 * The second phase is the free search over all pairs, complete up to the rounding of the memo keys
 * (12 significant digits; 9 for rounded input): it alone may answer "unsolvable".
 */
import { applyOperator, CANCEL_TOLERANCE, MAX_MAGNITUDE, type Operator, WIN_TOLERANCE } from "./arith.js";

export interface SolverNum {
  kind: "num";
  v: number;
  /** The true value lies within v +- e. */
  e: number;
}
export type SolverUnit = SolverNum | Operator;

export interface SolveOptions {
  /** Search nodes, both phases together, before giving up (the answer is then "budget"). */
  maxNodes: number;
  /** Rounded input: memoise on 9 significant digits instead of 12. */
  tolerant: boolean;
}

export type SolveResult = { status: "solved"; moves: Array<[number, number]>; nodes: number } | { status: "unsolvable" | "budget"; nodes: number };

/** Share of the budget the chain phase may use. */
const CHAIN_SHARE = 0.75;

function propagate(x: SolverNum, op: Operator): number {
  const e = x.e;
  if (e === 0) return 0;
  switch (op.kind) {
    case "mul":
      return e * Math.abs(op.by);
    case "div":
      return e / Math.abs(op.by);
    case "square":
      return e * (2 * Math.abs(x.v) + e);
    case "sqrt":
      return Math.sqrt(Math.max(x.v + e, 0)) - Math.sqrt(Math.max(x.v - e, 0));
    case "reciprocal": {
      const a = Math.abs(x.v);
      return e / (a * (a - e));
    }
    case "floor":
    case "ceil":
      // applyOperator snaps a value within e of an integer to that integer; otherwise no integer lies
      // within the bound and the result is exact.
      return 0;
  }
}

export type Combined = { ok: false } | { ok: true; result: SolverNum | null };

/** The game's combination rule on bounded numbers (e = 0 gives exactly the game's rule). */
export function combineUnits(a: SolverUnit, b: SolverUnit): Combined {
  if (a.kind === "num" && b.kind === "num") {
    const s = a.v + b.v;
    const e = a.e + b.e;
    if (Math.abs(s) < CANCEL_TOLERANCE + e) return { ok: true, result: null };
    if (Math.abs(s) > MAX_MAGNITUDE) return { ok: false };
    return { ok: true, result: { kind: "num", v: s, e } };
  }
  if (a.kind !== "num" && b.kind !== "num") return { ok: false };
  const num = (a.kind === "num" ? a : b) as SolverNum;
  const op = (a.kind === "num" ? b : a) as Operator;
  const r = applyOperator(num.v, op, num.e);
  if (!r.ok) return { ok: false };
  return { ok: true, result: { kind: "num", v: r.value, e: propagate(num, op) } };
}

export function isWinning(units: SolverUnit[]): boolean {
  if (units.length === 0) return true;
  const u = units[0]!;
  return units.length === 1 && u.kind === "num" && Math.abs(u.v) <= WIN_TOLERANCE + u.e;
}

/** Whether the board keeps at least one legal move. */
export function hasMove(units: SolverUnit[]): boolean {
  for (let i = 0; i < units.length; i++) {
    for (let j = i + 1; j < units.length; j++) if (combineUnits(units[i]!, units[j]!).ok) return true;
  }
  return false;
}

function unitKey(u: SolverUnit, digits: number): string {
  switch (u.kind) {
    case "num":
      return `n${Number(u.v.toPrecision(digits))}`;
    case "mul":
      return `*${u.by}`;
    case "div":
      return `/${u.by}`;
    default:
      return u.kind;
  }
}

function nearInteger(n: SolverNum): boolean {
  return Math.abs(n.v - Math.round(n.v)) <= n.e + 1e-9;
}

/**
 * Numbers alone can only be added, in any order, so they clear exactly when their total is 0. Appends
 * the line that adds them pairwise from the front (replayed on the values, so what it records wins).
 */
function sumsOut(units: SolverNum[], path: Array<[number, number]>): boolean {
  let total = 0;
  let err = 0;
  for (const u of units) {
    total += u.v;
    err += u.e;
  }
  if (Math.abs(total) > WIN_TOLERANCE + err) return false;
  let board: SolverUnit[] = units.slice();
  const added: Array<[number, number]> = [];
  while (!isWinning(board)) {
    if (board.length < 2) return false;
    const c = combineUnits(board[0]!, board[1]!);
    if (!c.ok) return false;
    added.push([0, 1]);
    board = board.slice(2);
    if (c.result !== null) board.push(c.result);
  }
  path.push(...added);
  return true;
}

type Mode = 0 | 1 | 2;
const FREE: Mode = 0;
const OPEN: Mode = 1;
const CHAIN: Mode = 2;

/**
 * A sound cut for the chain phase when no unary operator is left. The running number a (the last
 * unit) then meets only sums and factors f (v for *v, 1/v for /v) and must end at 0, so
 * a + sum_j n_j / (product of the factors applied before n_j) = 0 over the units it absorbs; each such
 * coefficient is at most the product of the |v| of the /v units in magnitude, which bounds |a|.
 */
function canReachZero(units: SolverUnit[]): boolean {
  const acc = units[units.length - 1] as SolverNum;
  let sum = WIN_TOLERANCE + acc.e;
  let divs = 1;
  for (let k = 0; k < units.length - 1; k++) {
    const u = units[k]!;
    if (u.kind === "num") sum += Math.abs(u.v) + u.e;
    else if (u.kind === "div") divs *= Math.abs(u.by);
    else if (u.kind !== "mul") return true;
  }
  return Math.abs(acc.v) <= sum * divs * (1 + 1e-9);
}

interface Candidate {
  i: number;
  j: number;
  result: SolverNum | null;
  rank: number;
}

export function solve(start: SolverUnit[], opts: SolveOptions): SolveResult {
  const digits = opts.tolerant ? 9 : 12;
  const path: Array<[number, number]> = [];
  /**
   * A number's key by its value (the key is a function of the value and `digits` alone): the search
   * meets the same sums again and again, and formatting a value to `digits` digits costs more than
   * the lookup. One solve's values only, so the table does not outlive the search.
   */
  const numKeys = new Map<number, string>();
  const keyOf = (u: SolverNum): string => {
    let k = numKeys.get(u.v);
    if (k === undefined) {
      k = unitKey(u, digits);
      numKeys.set(u.v, k);
    }
    return k;
  };
  let nodes = 0;
  let limit = 0;
  let outOfBudget = false;

  /**
   * Legal moves, best first: a win, a cancellation, then (free phase) moves extending the last
   * result, then operators giving integers (the intended line mostly walks through integers), other
   * operators, sums. Pairs of equal units are tried once.
   */
  function candidates(units: SolverUnit[], keys: string[], chained: boolean): Candidate[] {
    const seen = new Set<string>();
    const out: Candidate[] = [];
    const last = units.length - 1;
    for (let i = 0; i < units.length; i++) {
      for (let j = i + 1; j < units.length; j++) {
        if (chained && j !== last) continue;
        const a = units[i]!;
        const b = units[j]!;
        if (a.kind !== "num" && b.kind !== "num") continue;
        const ki = keys[i]!;
        const kj = keys[j]!;
        const pair = chained ? ki : ki < kj ? `${ki}|${kj}` : `${kj}|${ki}`;
        if (seen.has(pair)) continue;
        seen.add(pair);
        const c = combineUnits(a, b);
        if (!c.ok) continue;
        const r = c.result;
        let rank: number;
        if (units.length === 2 && (r === null || Math.abs(r.v) <= WIN_TOLERANCE + r.e)) rank = 0;
        else if (r === null) rank = 1;
        else if (!chained && j === last) rank = 1.5;
        else if (a.kind !== "num" || b.kind !== "num") rank = nearInteger(r) ? 2 : 3;
        else rank = nearInteger(r) ? 3 : 4;
        out.push({ i, j, result: r, rank });
      }
    }
    return out.sort((x, y) => x.rank - y.rank);
  }

  /** mode: FREE (free phase), OPEN (chain phase, any pair), CHAIN (chain phase, extend the last unit). */
  function dfs(units: SolverUnit[], keys: string[], mode: Mode, failed: Set<string>): boolean {
    if (++nodes > limit) {
      outOfBudget = true;
      return false;
    }
    if (units.every((u) => u.kind === "num")) return sumsOut(units as SolverNum[], path);
    const key = keys.slice().sort().join(",") + (mode === CHAIN ? `|${keys[keys.length - 1]}` : "");
    if (failed.has(key)) return false;
    if (mode === CHAIN && !canReachZero(units)) {
      failed.add(key);
      return false;
    }
    for (const c of candidates(units, keys, mode === CHAIN)) {
      path.push([c.i, c.j]);
      if (c.rank === 0) return true;
      const next = units.filter((_, k) => k !== c.i && k !== c.j);
      const nextKeys = keys.filter((_, k) => k !== c.i && k !== c.j);
      if (c.result !== null) {
        next.push(c.result);
        nextKeys.push(keyOf(c.result));
      }
      // In the chain phase a new number must be extended next; a cancellation frees the next move.
      const nextMode = mode === FREE ? FREE : c.result !== null ? CHAIN : OPEN;
      if (dfs(next, nextKeys, nextMode, failed)) return true;
      path.pop();
      if (outOfBudget) return false;
    }
    failed.add(key);
    return false;
  }

  if (isWinning(start)) return { status: "solved", moves: [], nodes: 0 };

  const startKeys = start.map((u) => unitKey(u, digits));
  limit = Math.floor(opts.maxNodes * CHAIN_SHARE);
  if (dfs(start, startKeys, OPEN, new Set<string>())) return { status: "solved", moves: path.slice(), nodes };
  outOfBudget = false;

  // Free phase: complete search over all pairs with what is left of the budget.
  limit = opts.maxNodes;
  if (dfs(start, startKeys, FREE, new Set<string>())) return { status: "solved", moves: path.slice(), nodes };
  return { status: outOfBudget ? "budget" : "unsolvable", nodes };
}
