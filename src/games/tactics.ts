/**
 * Tactics: per game a small named set of complete text-only policies (variants of the game's
 * heuristic, some deliberately poor) that `builtin:learner` chooses among (learner.md). The sets are
 * data in each game's folder (`src/games/<game>/tactics.ts`); this file holds their shape, the
 * helpers the sets are built from, and the one registry of them.
 */
import type { Rng } from "../util/rng.js";
import type { GameName, PolicyContext, PolicyDecision, TextPolicy } from "./types.js";

/** An opponent met in earlier trust episodes, as their transcripts show it. */
export interface OpponentRecord {
  /** Episodes whose transcripts left exactly these candidates. */
  n: number;
  /** The strategies (of the eight the heuristic plans against) consistent with every move the opponent was seen to make, sorted. */
  types: string[];
}

/**
 * What a tactic may know beyond the prompt's own episode: chess, the displacement vectors learned so
 * far; trust, the opponents met before.
 */
export interface TacticKnowledge {
  /** Per hidden piece type, displacements known legal and known illegal, as "dx,dy". */
  vectors?: Record<string, { legal: string[]; bad: string[] }>;
  /** Trust: the opponents earlier episodes showed (games/trust/opponentModel.ts). */
  opponents?: OpponentRecord[];
}

/** One step of an earlier episode as its text shows it (History blocks, the current episode). */
export interface SeenStep {
  observation: string;
  action: string | null;
  feedback: string;
}

/**
 * A tactic's decision: the action and the policy's own text-only estimate of the step's reward
 * (what a fair judge would say; the learner's judge dial may replace it with noise).
 */
export type TacticPolicy = (ctx: PolicyContext, rng: Rng, knowledge: TacticKnowledge) => PolicyDecision;

export interface Tactic {
  /** Lower-case, hyphenated: it appears on the reply's `Tactic:` line and in summaries. */
  name: string;
  /** One line: what it does and why it is good or poor. */
  summary: string;
  policy: TacticPolicy;
}

export interface TacticSet {
  game: GameName;
  tactics: readonly Tactic[];
  /** The range of one step's reward estimate: an uninformed judge draws its self-score uniformly from it. */
  scoreRange: readonly [number, number];
  /**
   * Knowledge learned from ONE earlier episode's visible steps (chess: rule knowledge; trust: the
   * opponent it met); absent: the game has none to learn.
   */
  learn?: (steps: readonly SeenStep[]) => TacticKnowledge;
}

/** A TextPolicy as a tactic that needs no knowledge. */
export const plain =
  (p: TextPolicy): TacticPolicy =>
  (ctx, rng) =>
    p(ctx, rng);

/**
 * `p` with probability `share`, else `q` (one draw per step from the call's generator): a careless
 * variant of a good policy. Its estimate is the chosen policy's.
 */
export function mixed(share: number, p: TacticPolicy, q: TacticPolicy): TacticPolicy {
  return (ctx, rng, k) => (rng.float() < share ? p(ctx, rng, k) : q(ctx, rng, k));
}

/**
 * Re-estimates another policy's action with the heuristic's estimator: the heuristic's own estimate
 * when both agree on the action, else 0 (the heuristic expected nothing of it). Used for tactics whose
 * own rule gives no estimate (random draws).
 */
export function judgedBy(estimator: TacticPolicy, p: TacticPolicy): TacticPolicy {
  return (ctx, rng, k) => {
    const d = p(ctx, rng, k);
    const h = estimator(ctx, rng, k);
    return { action: d.action, selfScore: h.action === d.action ? h.selfScore : 0 };
  };
}

export function tacticNames(set: TacticSet): string[] {
  return set.tactics.map((t) => t.name);
}

export function findTactic(set: TacticSet, name: string): Tactic | null {
  return set.tactics.find((t) => t.name === name) ?? null;
}

export type { PolicyContext };
