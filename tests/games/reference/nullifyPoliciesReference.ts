/**
 * Frozen reference: the nullify policies as they were before the search cache (a search per call).
 * tests/games/nullifyHeuristic.test.ts checks the fast policies decide exactly like them. Do not "fix" this file:
 * it is the spec of the decisions. The rules and solver functions it calls are the game's own.
 *
 * Updated once on purpose (issue 28): the single 20,000-node search gave up on 5 of the 50 solvable
 * eval boards (seeds 2, 25, 34, 38, 40) and then played at random; the decision now searches with
 * budgets 20,000, then 200,000, then 2,000,000 nodes, each tried only when the one before ran out.
 */
import { splitObservation } from "../../../src/games/envelope.js";
import type { Rng } from "../../../src/util/rng.js";
import type { PolicyContext, PolicyDecision, TextPolicy } from "../../../src/games/types.js";
import type { Unit } from "../../../src/games/nullify/arith.js";
import { parseObservation } from "../../../src/games/nullify/render.js";
import { combineUnits, isWinning, solve, type SolverUnit } from "../../../src/games/nullify/solver.js";

/** A printed number is the true value rounded to 6 decimals: it is off by at most half a unit of the 6th. */
export const PRINT_ERROR = 5e-7 + 1e-12;
/** Search budgets of one heuristic decision, tried in turn while the previous one ran out. */
export const HEURISTIC_SEARCH_BUDGETS = [20000, 200000, 2000000];

function visibleUnits(ctx: PolicyContext): Unit[] {
  return parseObservation(splitObservation(ctx.observation).body).units;
}

export const random: TextPolicy = (ctx: PolicyContext, rng: Rng): PolicyDecision => {
  const n = visibleUnits(ctx).length;
  if (n < 2) return { action: "0 1", selfScore: 0 };
  const i = rng.int(n);
  let j = rng.int(n - 1);
  if (j >= i) j++;
  return { action: `${i} ${j}`, selfScore: 0 };
};

export function toSolverUnits(units: Unit[]): SolverUnit[] {
  return units.map((u) => (u.kind === "num" ? { kind: "num", v: u.value, e: PRINT_ERROR } : u));
}

/**
 * Exact search over the printed numbers (with their rounding as an error bound); plays the first move
 * of a winning line. Without one (budget spent or no line exists), a legal-looking move that leaves
 * some move afterwards, chosen at random.
 */
export const heuristic: TextPolicy = (ctx: PolicyContext, rng: Rng): PolicyDecision => {
  const units = toSolverUnits(visibleUnits(ctx));
  let res = solve(units, { maxNodes: HEURISTIC_SEARCH_BUDGETS[0]!, tolerant: true });
  for (let k = 1; k < HEURISTIC_SEARCH_BUDGETS.length && res.status === "budget"; k++) {
    res = solve(units, { maxNodes: HEURISTIC_SEARCH_BUDGETS[k]!, tolerant: true });
  }
  if (res.status === "solved" && res.moves.length > 0) {
    const [i, j] = res.moves[0]!;
    return { action: `${i} ${j}`, selfScore: res.moves.length === 1 ? 1 : 0 };
  }
  const legal: Array<[number, number]> = [];
  const lively: Array<[number, number]> = [];
  for (let i = 0; i < units.length; i++) {
    for (let j = i + 1; j < units.length; j++) {
      const c = combineUnits(units[i]!, units[j]!);
      if (!c.ok) continue;
      legal.push([i, j]);
      const next = units.filter((_, k) => k !== i && k !== j);
      if (c.result !== null) next.push(c.result);
      if (isWinning(next)) return { action: `${i} ${j}`, selfScore: 1 };
      if (next.some((a, x) => next.some((b, y) => x < y && combineUnits(a, b).ok))) lively.push([i, j]);
    }
  }
  const pool = lively.length > 0 ? lively : legal;
  if (pool.length === 0) return random(ctx, rng);
  const [i, j] = rng.pick(pool);
  return { action: `${i} ${j}`, selfScore: 0 };
};
