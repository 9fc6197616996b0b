/** Text-only trust policies: they read the observation, never the hidden type. */
import { lastObservationReader } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import type { PolicyContext, PolicyDecision, TextPolicy } from "../types.js";
import { parseObservation, type TrustFacts } from "./render.js";
import { MOVES, OPPONENT_TYPES, opponentMove, payoff, type Move, type OpponentType } from "./rules.js";

export const random: TextPolicy = (_ctx: PolicyContext, rng: Rng): PolicyDecision => ({ action: rng.pick(MOVES), selfScore: 0 });

/**
 * The heuristic's prior: the eight characters of The Evolution of Trust (the game the rules text
 * names), uniformly. The rules text lists no types and no drawing rule, so this is outside knowledge
 * of the game, like a model's; it is the same in both configs (explore's pool is smaller).
 */
export const PRIOR_TYPES: readonly OpponentType[] = OPPONENT_TYPES;

/**
 * The belief after the observed history: a uniform prior over the pool; a deterministic type keeps
 * weight 1 while it explains every observed opponent move and drops out otherwise; the random type's
 * weight halves with every observed move.
 */
export function beliefFrom(pool: readonly OpponentType[], history: TrustFacts["history"]): { dets: OpponentType[]; wr: number } {
  const moves = history.reduce((n, r) => n + r.you.length, 0);
  const dets = pool.filter((t) => {
    if (t === "random") return false;
    return history.every((r) => r.them.every((m, k) => opponentMove(t, r.you.slice(0, k), r.them.slice(0, k)) === m));
  });
  return { dets, wr: pool.includes("random") ? 0.5 ** moves : 0 };
}

const RANDOM_BEST = 1.5; // cheating against a fair coin: (3 + 0) / 2 per move.

/**
 * Everything the eight strategies' future moves depend on within a round: the move index up to the
 * detective's four-move opening, your last two moves, whether you have cheated this round, and the
 * opponent's last move. Histories with the same signature are interchangeable, which collapses the
 * search tree into a small graph (memoised on this key).
 */
function signature(you: readonly Move[], them: readonly Move[]): string {
  const k = you.length;
  return `${Math.min(k, 4)}|${you[k - 1] ?? "-"}|${you[k - 2] ?? "-"}|${you.includes("cheat")}|${them[k - 1] ?? "-"}`;
}

/**
 * Bayes-optimal planning against the belief. Deterministic types predict the opponent's move exactly,
 * so the tree only branches where the types still in play disagree (plus one branch where only the
 * random type remains, whose value is closed-form). Values are unnormalised: the sum over types of
 * weight x coins, which makes them linear in the weights and the recursion simple. The start of a
 * later round depends only on (rounds left, types still possible, random weight), which is memoised,
 * so what a probe teaches for later rounds is counted too.
 */
class Planner {
  private memo = new Map<string, number>();
  /** `prior`: each type's prior weight (absent: 1, the heuristic's uniform prior). */
  constructor(
    private readonly movesPerRound: number,
    private readonly prior: Readonly<Partial<Record<OpponentType, number>>> = {},
  ) {}

  private w(t: OpponentType): number {
    return this.prior[t] ?? 1;
  }

  /** Memoised values so far (the planner is shared across decisions; see plannerFor). */
  get size(): number {
    return this.memo.size + this.rootMemo.size;
  }

  /** q of a decision's own node, memoised like `value` (the same nodes come back across episodes and tactics); callers get copies. */
  private readonly rootMemo = new Map<string, ReadonlyArray<{ a: Move; value: number; now: number; mass: number }>>();

  rootQ(you: Move[], them: Move[], dets: OpponentType[], wr: number, left: number, roundsAfter: number): Array<{ a: Move; value: number; now: number; mass: number }> {
    const key = `${signature(you, them)}|${dets.join(",")}|${wr}|${left}|${roundsAfter}`;
    let q = this.rootMemo.get(key);
    if (q === undefined) {
      q = this.q(you, them, dets, wr, left, roundsAfter);
      this.rootMemo.set(key, q);
    }
    return q.map((x) => ({ ...x }));
  }

  /** Expected coins (unnormalised) of each move at this node, with the immediate part separated. */
  q(you: Move[], them: Move[], dets: OpponentType[], wr: number, left: number, roundsAfter: number): Array<{ a: Move; value: number; now: number; mass: number }> {
    const groups: Record<Move, OpponentType[]> = { collaborate: [], cheat: [] };
    for (const t of dets) groups[opponentMove(t, you, them) as Move].push(t);
    return MOVES.map((a) => {
      let value = 0;
      let now = 0;
      let mass = 0;
      for (const o of MOVES) {
        const g = groups[o];
        let m = wr / 2;
        for (const t of g) m += this.w(t);
        if (m === 0) continue;
        now += m * payoff(a, o);
        mass += m;
        value += m * payoff(a, o) + this.value([...you, a], [...them, o], g, wr / 2, left - 1, roundsAfter);
      }
      return { a, value, now, mass };
    });
  }

  value(you: Move[], them: Move[], dets: OpponentType[], wr: number, left: number, roundsAfter: number): number {
    if (dets.length === 0) return wr * RANDOM_BEST * (left + roundsAfter * this.movesPerRound);
    if (left === 0) return roundsAfter > 0 ? this.roundStart(roundsAfter, dets, wr) : 0;
    const key = `${signature(you, them)}|${dets.join(",")}|${wr}|${left}|${roundsAfter}`;
    let v = this.memo.get(key);
    if (v === undefined) {
      v = Math.max(...this.q(you, them, dets, wr, left, roundsAfter).map((x) => x.value));
      this.memo.set(key, v);
    }
    return v;
  }

  roundStart(roundsLeft: number, dets: OpponentType[], wr: number): number {
    return this.value([], [], dets, wr, this.movesPerRound, roundsLeft - 1);
  }
}

/** Memo entries kept before a shared planner starts afresh (bounds memory in a long process). */
const PLANNER_MEMO_LIMIT = 500_000;
/** Planners with a non-uniform prior kept at once (each is one learner's knowledge at one time). */
const PRIOR_PLANNERS_MAX = 64;
const planners = new Map<string, Planner>();

/**
 * One planner per round length, shared by every decision: its values are a pure function of their
 * key, so reuse changes no answer, and it keeps the early-round decisions (tens of ms cold, with all
 * eight types still possible) from being recomputed on every call of a long run.
 */
function plannerFor(movesPerRound: number, prior: Readonly<Partial<Record<OpponentType, number>>> | undefined): Planner {
  const pk = prior ? OPPONENT_TYPES.map((t) => prior[t] ?? 1).join(",") : "";
  const key = `${movesPerRound}|${pk}`;
  let p = planners.get(key);
  if (!p || p.size > PLANNER_MEMO_LIMIT) {
    if (pk && planners.size >= PRIOR_PLANNERS_MAX) for (const k of [...planners.keys()]) if (!k.endsWith("|")) planners.delete(k);
    p = new Planner(movesPerRound, prior);
    planners.set(key, p);
  }
  return p;
}

/**
 * Probe then exploit, done by planning: infer the opponent type from every round seen so far and play
 * the move with the best expected coins over the rest of the game (probing moves win when what they
 * reveal pays off later). Self-score: the expected payoff of the chosen move under the belief.
 */
export const heuristic: TextPolicy = (ctx: PolicyContext): PolicyDecision => heuristicWithPrior(ctx);

/**
 * The heuristic's planning under another prior over the types (each type's weight; absent: 1). The
 * learner's probe-exploit passes the opponents its transcripts showed (learner.md: opponent knowledge).
 */
export function heuristicWithPrior(ctx: PolicyContext, prior?: Readonly<Partial<Record<OpponentType, number>>>): PolicyDecision {
  const qs = beliefValues(ctx, prior);
  if (qs === null) return { action: "collaborate", selfScore: 0 };
  if (qs.length === 0) return { action: "cheat", selfScore: 0 };
  let best = qs[0]!;
  for (const x of qs.slice(1)) if (x.value > best.value + 1e-9 * Math.abs(best.value)) best = x;
  return { action: best.a, selfScore: best.mass > 0 ? best.now / best.mass : 0 };
}

/**
 * Each move's planned value and immediate expected payoff under the belief from the observed history
 * (the types weighted by `prior`, default uniform); null when the game is over, [] when no type
 * explains the history.
 */
/**
 * An observation's facts, the last one's kept (lastObservationReader): a step asks for the same
 * observation's belief twice or more (the tactic's move, then the fair estimate of it). The facts are only read here.
 */
const factsOf = lastObservationReader(parseObservation);

export function beliefValues(ctx: PolicyContext, prior?: Readonly<Partial<Record<OpponentType, number>>>): Array<{ a: Move; value: number; now: number; mass: number }> | null {
  const f = factsOf(ctx.observation);
  if (f.over || f.round === null || f.move === null) return null;
  const pool = PRIOR_TYPES;
  const current = f.history[f.round - 1] ?? { you: [], them: [] };
  const past = f.history.slice(0, f.round - 1);
  const belief = beliefFrom(pool, past);
  // Condition on this round's moves as well: types that already contradict it drop out.
  const inRound = beliefFrom(belief.dets, [current]);
  const dets = inRound.dets;
  const wr = belief.wr * 0.5 ** current.you.length * (prior?.random ?? 1);
  if (dets.length === 0 && wr === 0) return [];
  const planner = plannerFor(f.movesPerRound, prior);
  const left = f.movesPerRound - current.you.length;
  return planner.rootQ(current.you.slice(), current.them.slice(), dets, wr, left, f.rounds - f.round);
}

/** The expected payoff of `move` now under the belief (the heuristic's estimator, for any move). */
export function beliefPayoff(ctx: PolicyContext, move: Move): number {
  const q = beliefValues(ctx)?.find((x) => x.a === move);
  return q && q.mass > 0 ? q.now / q.mass : 0;
}
