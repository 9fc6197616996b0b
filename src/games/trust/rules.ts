/**
 * Trust rules (games.md, "trust"): the repeated coin game of The Evolution of Trust, several rounds of
 * moves against one opponent of a hidden type whose strategy restarts every round.
 */
import { z } from "zod";
import { invalidFeedback } from "../envelope.js";
import type { Rng } from "../../util/rng.js";
import { normalizeAction } from "../text.js";
import type { Transition } from "../types.js";

export const MOVES = ["collaborate", "cheat"] as const;
export type Move = (typeof MOVES)[number];

export const OPPONENT_TYPES = ["copycat", "always-collaborate", "always-cheat", "grudger", "detective", "copykitten", "simpleton", "random"] as const;
export type OpponentType = (typeof OPPONENT_TYPES)[number];

/** Payoff to the player for (your move, opponent's move). */
export function payoff(you: Move, them: Move): number {
  if (you === "collaborate") return them === "collaborate" ? 2 : -1;
  return them === "collaborate" ? 3 : 0;
}

/**
 * The opponent's next move given this round's moves so far (strategies reset every round), or
 * "random" for the random type (the caller draws it). Pure, so the heuristic can reuse the published
 * definitions to reason about who it faces.
 */
export function opponentMove(type: OpponentType, you: readonly Move[], them: readonly Move[]): Move | "random" {
  const k = you.length;
  const last = you[k - 1];
  switch (type) {
    case "always-collaborate":
      return "collaborate";
    case "always-cheat":
      return "cheat";
    case "copycat":
      return k === 0 ? "collaborate" : last!;
    case "grudger":
      return you.includes("cheat") ? "cheat" : "collaborate";
    case "detective": {
      const opening: Move[] = ["collaborate", "cheat", "collaborate", "collaborate"];
      if (k < opening.length) return opening[k]!;
      return you.includes("cheat") ? last! : "cheat";
    }
    case "copykitten":
      return k >= 2 && you[k - 1] === "cheat" && you[k - 2] === "cheat" ? "cheat" : "collaborate";
    case "simpleton": {
      if (k === 0) return "collaborate";
      const own = them[k - 1]!;
      if (last === "collaborate") return own;
      return own === "collaborate" ? "cheat" : "collaborate";
    }
    case "random":
      return "random";
  }
}

const opponentSchema = z.enum(OPPONENT_TYPES);

export const configSchema = z.object({
  /** Rounds per episode; the opponent's strategy restarts each round. */
  rounds: z.number().int().positive().max(50),
  /** Moves per round. */
  movesPerRound: z.number().int().positive().max(50),
  /** The opponent type is drawn uniformly from this list at the start of an episode. */
  opponents: z
    .array(opponentSchema)
    .min(1)
    .refine((a) => new Set(a).size === a.length, "opponent types must not repeat"),
  maxSteps: z.number().int().positive(),
});
export type TrustConfig = z.infer<typeof configSchema>;

export const configs: Record<"explore" | "eval", TrustConfig> = {
  explore: { rounds: 5, movesPerRound: 8, opponents: ["always-collaborate", "always-cheat", "copycat"], maxSteps: 64 },
  eval: { rounds: 5, movesPerRound: 8, opponents: [...OPPONENT_TYPES], maxSteps: 64 },
};

/**
 * Named explore variants (verified.md): what a curriculum may choose for an exploration episode
 * besides `explore`. Evaluation never plays them; their rules text states them (the round lengths;
 * the opponent pool stays unnamed, as in every trust rules text).
 */
export const exploreVariants: Record<string, TrustConfig> = {
  "short-rounds": { ...configs.explore, opponents: [...configs.explore.opponents], rounds: 8, movesPerRound: 4 },
  "long-rounds": { ...configs.explore, opponents: [...configs.explore.opponents], rounds: 3, movesPerRound: 12 },
};

const moveSchema = z.enum(MOVES);

export const innerSchema = z.object({
  /** The hidden opponent type. */
  opponent: opponentSchema,
  /** Started rounds, oldest first, each with both sides' moves (equal lengths). */
  history: z.array(z.object({ you: z.array(moveSchema), them: z.array(moveSchema) })),
});
export type TrustInner = z.infer<typeof innerSchema>;

export const actionGrammar = "collaborate | cheat";

export function init(config: TrustConfig, rng: Rng): TrustInner {
  const opponent = rng.pick(config.opponents);
  return { opponent, history: [] };
}

export function movesPlayed(inner: TrustInner): number {
  return inner.history.reduce((n, r) => n + r.you.length, 0);
}

export function isOver(inner: TrustInner, config: TrustConfig): boolean {
  return movesPlayed(inner) >= config.rounds * config.movesPerRound;
}

/** 0-based (round, move) of the next move; only meaningful while the game is not over. */
export function position(inner: TrustInner, config: TrustConfig): { round: number; move: number } {
  const last = inner.history[inner.history.length - 1];
  if (!last) return { round: 0, move: 0 };
  if (last.you.length < config.movesPerRound) return { round: inner.history.length - 1, move: last.you.length };
  return { round: inner.history.length, move: 0 };
}

export function parseAction(raw: string): Move | null {
  const a = normalizeAction(raw);
  return (MOVES as readonly string[]).includes(a) ? (a as Move) : null;
}

const PAST: Record<Move, string> = { collaborate: "collaborated", cheat: "cheated" };

/**
 * The copy step() hands to apply (GameRules.copyInner): only the list of rounds is copied; every
 * round, the last one included, is shared with the previous state, and apply replaces the round it
 * plays (`appended`) instead of pushing into it. Small and few objects per step matter here: when a
 * caller keeps many states, V8 allocates step()'s objects straight into the old generation, and
 * trust, with the longest episodes, paid most for every byte (docs/games/speed.md).
 */
export function copyInner(inner: TrustInner): TrustInner {
  return { opponent: inner.opponent, history: inner.history.slice() };
}

/** `a` with `x` after its end, as a new array of exactly that length (a copy and a push grow it by half). */
function appended(a: readonly Move[], x: Move): Move[] {
  const n = a.length;
  const out = new Array<Move>(n + 1);
  for (let i = 0; i < n; i++) out[i] = a[i]!;
  out[n] = x;
  return out;
}

const NO_MOVES: { you: readonly Move[]; them: readonly Move[] } = { you: [], them: [] };

export function apply(inner: TrustInner, action: string | null, config: TrustConfig, rng: Rng): Transition {
  if (isOver(inner, config)) return { reward: 0, feedback: "the game is over", valid: false, done: true };
  if (action === null) return { reward: 0, feedback: invalidFeedback(actionGrammar, "no action"), valid: false, done: false };
  const you = parseAction(action);
  if (!you) return { reward: 0, feedback: invalidFeedback(actionGrammar, "invalid action"), valid: false, done: false };
  const { round, move } = position(inner, config);
  // The round so far (shared with the previous state: read, never written), or none at a round's start.
  const current = move === 0 ? NO_MOVES : inner.history[round]!;
  const planned = opponentMove(inner.opponent, current.you, current.them);
  // The random type draws only on a real move, so invalid answers do not shift its sequence.
  const them: Move = planned === "random" ? (rng.int(2) === 0 ? "collaborate" : "cheat") : planned;
  // Index `round` is the list's length at a round's start: the new round is appended.
  const played = { you: appended(current.you, you), them: appended(current.them, them) };
  inner.history[round] = played;
  let feedback = `you ${PAST[you]}, the opponent ${PAST[them]}`;
  const done = isOver(inner, config);
  if (done) feedback += `; all ${config.rounds} rounds are over`;
  else if (played.you.length === config.movesPerRound) feedback += `; round ${round + 1} is over, the opponent starts round ${round + 2} afresh`;
  return { reward: payoff(you, them), feedback, valid: true, done };
}

export function score(inner: TrustInner): number {
  let total = 0;
  for (const r of inner.history) r.you.forEach((y, i) => (total += payoff(y, r.them[i]!)));
  return total;
}

export function legalActions(inner: TrustInner, config: TrustConfig): string[] {
  return isOver(inner, config) ? [] : [...MOVES];
}

export function rulesBody(config: TrustConfig): string {
  const { rounds, movesPerRound, maxSteps } = config;
  const total = rounds * movesPerRound;
  return [
    "## Objective",
    `Play the repeated coin game of The Evolution of Trust: ${rounds} rounds of ${movesPerRound} moves (${total} moves) against one opponent, and earn as many coins as you can.`,
    "",
    "## Moves and payoffs",
    "On each move you and the opponent choose at the same time to collaborate or to cheat. Your coins for the move:",
    "- both collaborate: +2",
    "- you collaborate, the opponent cheats: -1",
    "- you cheat, the opponent collaborates: +3",
    "- both cheat: 0",
    `Your total is the sum over all ${total} moves (from ${-total} to ${3 * total}).`,
    "",
    "## The opponent",
    // Which strategies exist and how one is chosen is what experience must teach (games.md: rewards
    // driven by hidden opponents are where self-judging fails), so the text names neither.
    "The opponent follows one fixed hidden strategy for the whole game. The strategy sees only the moves of the current round and starts afresh at the beginning of every round.",
    "",
    "## Observation",
    "You see the round and move numbers and the full history of both sides' moves in all rounds so far; never the opponent's strategy or a running total.",
    "",
    "## Action",
    `\`${actionGrammar}\`: answer \`collaborate\` or \`cheat\`. Example: \`Answer: collaborate\`.`,
    "Anything else is invalid: no move is played, but the answer still uses a step.",
    "",
    "## End",
    `The game ends after the ${total}th move, or after ${maxSteps} steps (every answer is one step, valid or not), whichever comes first.`,
  ].join("\n");
}
