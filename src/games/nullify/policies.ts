import { lastObservationReader, splitObservation } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import type { PolicyContext, PolicyDecision, TextPolicy } from "../types.js";
import type { Unit } from "./arith.js";
import { parseObservation } from "./render.js";
import { BoundedCache } from "../../util/boundedCache.js";
import { combineUnits, isWinning, solve, type SolveResult, type SolverUnit } from "./solver.js";

/** A printed number is the true value rounded to 6 decimals: it is off by at most half a unit of the 6th. */
export const PRINT_ERROR = 5e-7 + 1e-12;
/**
 * Search budgets of one heuristic decision, tried in turn while the previous one ran out (iterative
 * deepening on the node count, not the clock, so a decision is the same on any machine). The first
 * answers a typical board in a few ms; with the first alone the heuristic gave up on 5 of the 50
 * solvable eval boards (seeds 2, 25, 34, 38, 40) and played at random; the last bounds a step's work
 * (about a second on a loaded 2-core machine) and solves every eval board of seeds 0..49.
 */
export const HEURISTIC_SEARCH_BUDGETS = [20_000, 200_000, 2_000_000] as const;

/** The search with growing budgets: the first answer that is not "budget", or the last. */
export function searchDeepening(units: SolverUnit[], budgets: readonly number[] = HEURISTIC_SEARCH_BUDGETS): SolveResult {
  let res: SolveResult = { status: "budget", nodes: 0 };
  for (const maxNodes of budgets) {
    res = solve(units, { maxNodes, tolerant: true });
    if (res.status !== "budget") return res;
  }
  return res;
}

/** The units of an observation (the last one's kept: lastObservationReader; toSolverUnits and the searches copy what they change). */
const unitsOf = lastObservationReader((body) => parseObservation(body).units);

export function visibleUnits(ctx: PolicyContext): Unit[] {
  return unitsOf(ctx.observation);
}

/**
 * Search results by observation body: the search is a function of the printed board alone, and the
 * same boards come back (the heuristic, the perfect judge and the learner's tactics play the same evaluation
 * seeds in every pathway of a matrix). Shared: read only.
 */
const searchCache = new BoundedCache<string, SolveResult>(4096);

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
 * Exact search over the printed numbers (with their rounding as an error bound), with growing budgets;
 * plays the first move of a winning line. Without one (every budget spent, or no line exists), a
 * legal-looking move that leaves some move afterwards, chosen at random.
 */
export const heuristic: TextPolicy = (ctx: PolicyContext, rng: Rng): PolicyDecision => {
  const units = toSolverUnits(visibleUnits(ctx));
  const body = splitObservation(ctx.observation).body;
  const res = searchCache.getOrSet(body, () => searchDeepening(units));
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
