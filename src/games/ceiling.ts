/**
 * `ceiling`: an INSTRUMENT, not a player. It reads the hidden state the protocol keeps from every
 * model (the live episode state, in-process only), so its score is the top of what a game's scale can
 * show, beside the floor (random) and the reference (heuristic):
 * - chess: knows the hidden piece rules (A, B) and captures greedily (`rulesKnowing`);
 * - trust: knows the opponent's type and plays the best reply to it, round by round (every type
 *   restarts each round, so the best round is the best game); against `random`, cheat (it never reacts);
 * - minesweeper: knows the mines and flags them, which wins in `mines` steps;
 * - nullify: the exact search on the true values (not the printed ones), with a larger budget;
 * - tetris, snake, pvz: the best known play, which is the heuristic.
 * Each decision is deterministic given the state and the call's generator.
 */
import { rulesKnowing } from "./chess/policies.js";
import type { MinesweeperInner } from "./minesweeper/rules.js";
import type { NullifyInner } from "./nullify/rules.js";
import { solve, type SolverUnit } from "./nullify/solver.js";
import type { Rng } from "../util/rng.js";
import { MOVES, opponentMove, payoff, position, type Move, type TrustConfig, type TrustInner } from "./trust/rules.js";
import type { EpisodeState, Game, GameName, PolicyContext } from "./types.js";

/** A ceiling decision: the action alone (the caller scores it by simulating the step). */
type CeilingPolicy = (game: Game, state: EpisodeState, ctx: PolicyContext, rng: Rng) => string;

const heuristicPlay: CeilingPolicy = (game, _state, ctx, rng) => game.policies.heuristic(ctx, rng).action;

/** Node budgets of the exact nullify search, tried in turn while the previous one ran out. */
export const CEILING_NULLIFY_BUDGETS = [20_000, 200_000, 2_000_000, 20_000_000] as const;

const nullifyCeiling: CeilingPolicy = (game, state, ctx, rng) => {
  const inner = state.inner as NullifyInner;
  const units: SolverUnit[] = inner.units.map((u) => (u.kind === "num" ? { kind: "num", v: u.value, e: 0 } : u));
  for (const maxNodes of CEILING_NULLIFY_BUDGETS) {
    const res = solve(units, { maxNodes, tolerant: false });
    if (res.status === "solved" && res.moves.length > 0) return `${res.moves[0]![0]} ${res.moves[0]![1]}`;
    if (res.status !== "budget") break;
  }
  return heuristicPlay(game, state, ctx, rng);
};

/** The first mine not yet flagged, in reading order; unflags a wrong flag first if the budget is full. */
const minesweeperCeiling: CeilingPolicy = (game, state, ctx, rng) => {
  const inner = state.inner as MinesweeperInner;
  for (let r = 0; r < inner.mine.length; r++) {
    for (let c = 0; c < inner.mine[r]!.length; c++) {
      if (inner.flagged[r]![c] && !inner.mine[r]![c]) return `unflag (${r}, ${c})`;
    }
  }
  for (let r = 0; r < inner.mine.length; r++) {
    for (let c = 0; c < inner.mine[r]!.length; c++) {
      if (inner.mine[r]![c] && !inner.flagged[r]![c] && !inner.exploded[r]![c]) return `flag (${r}, ${c})`;
    }
  }
  return heuristicPlay(game, state, ctx, rng);
};

/** The best total payoff of the rest of a round against a reactive type, and the move that starts it. */
function bestRest(type: TrustInner["opponent"], you: Move[], them: Move[], left: number): { total: number; move: Move } {
  let best = { total: -Infinity, move: "cheat" as Move };
  for (const m of MOVES) {
    const planned = opponentMove(type, you, them);
    const reply: Move = planned === "random" ? "collaborate" : planned;
    let total = payoff(m, reply);
    if (left > 1) total += bestRest(type, [...you, m], [...them, reply], left - 1).total;
    if (total > best.total) best = { total, move: m };
  }
  return best;
}

const trustCeiling: CeilingPolicy = (_game, state) => {
  const inner = state.inner as TrustInner;
  const config = state.config as TrustConfig;
  // A random opponent does not react, and cheating earns more than collaborating against either move.
  if (inner.opponent === "random") return "cheat";
  const { round, move } = position(inner, config);
  const current = inner.history[round] ?? { you: [], them: [] };
  const you = move === 0 ? [] : current.you;
  const them = move === 0 ? [] : current.them;
  return bestRest(inner.opponent, you, them, config.movesPerRound - move).move;
};

/** One ceiling per game (the registry of privileged reference players). */
export const CEILINGS: Record<GameName, CeilingPolicy> = {
  chess: (_game, _state, ctx, rng) => rulesKnowing(ctx, rng).action,
  trust: trustCeiling,
  minesweeper: minesweeperCeiling,
  nullify: nullifyCeiling,
  tetris: heuristicPlay,
  snake: heuristicPlay,
  pvz: heuristicPlay,
};
