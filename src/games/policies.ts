/**
 * Built-in offline policies over the Game API. `random` and `heuristic` decide from the observation
 * TEXT (what a model sees). Two more are privileged instruments (in-process only: they read the live
 * state): `perfect-judge` plays heuristic's action and self-scores it exactly by simulating the step on
 * a clone (a perfect judge, not a better player); `ceiling` plays from the hidden state (ceiling.ts),
 * self-scored the same way: the top line beside the floor (random) and the reference (heuristic).
 */
import { CEILINGS } from "./ceiling.js";
import { Rng } from "../util/rng.js";
import { policyRng } from "./envelope.js";
import type { EpisodeState, Game, PolicyContext, PolicyDecision } from "./types.js";

export const POLICY_NAMES = ["random", "heuristic", "perfect-judge", "ceiling"] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];
/** Policies that see only text, so they can also answer over HTTP (`s3gym serve`). */
export const TEXT_POLICY_NAMES = ["random", "heuristic"] as const;
export type TextPolicyName = (typeof TEXT_POLICY_NAMES)[number];
/** Policies that read the live state: in-process runs only. */
export const PRIVILEGED_POLICY_NAMES = ["perfect-judge", "ceiling"] as const;

/**
 * Old names still accepted, with the notice to print: `oracle` read as a ceiling although it plays the
 * heuristic's moves. Logs that say `builtin:oracle` keep that name (docs/models.md).
 */
export const POLICY_ALIASES: Readonly<Record<string, { name: PolicyName; notice: string }>> = {
  oracle: {
    name: "perfect-judge",
    notice: "'oracle' is now called 'perfect-judge' (it plays the heuristic's moves with an exact self-score; it is not a ceiling: see 'ceiling'); the old name still works",
  },
};

export function isPolicyName(name: string): name is PolicyName {
  return (POLICY_NAMES as readonly string[]).includes(name);
}

/** A policy name or an alias, resolved; null for neither. `notice` is set when an alias was used. */
export function resolvePolicyName(name: string): { name: PolicyName; notice: string | null } | null {
  if (isPolicyName(name)) return { name, notice: null };
  // Own keys only: a name like `constructor` must not find Object.prototype's.
  const alias = Object.hasOwn(POLICY_ALIASES, name) ? POLICY_ALIASES[name] : undefined;
  return alias ? { name: alias.name, notice: alias.notice } : null;
}

export function isPrivilegedPolicy(name: PolicyName): boolean {
  return (PRIVILEGED_POLICY_NAMES as readonly string[]).includes(name);
}

/**
 * A text policy's decision. `seed` (the call's seed: from its identity in process, the request's
 * `seed` over HTTP) decides every random draw; without one the draws come from what the policy sees.
 */
export function textPolicyDecision(game: Game, policy: TextPolicyName, ctx: PolicyContext, seed?: number): PolicyDecision {
  return game.policies[policy](ctx, policyRng(policy, ctx, seed));
}

/**
 * The noisy heuristic's share of random moves: at each step, with this probability it plays the
 * random policy's decision (action and self-score) instead of its own. The heuristic decides most
 * boards from the text alone, with no draw at all, so without such a source of randomness its
 * independent-noise form would still play every evaluation seed identically at every checkpoint and
 * pathway (gains exactly 0), which is not what a sampled model does. 0.1: enough that its evaluation
 * episodes differ between checkpoints on every game, few enough that it stays the reference player.
 */
export const HEURISTIC_NOISE_EPSILON = 0.1;

/**
 * A text policy's decision under independent noise (`builtin:<policy>?noise=independent`): `seed` is
 * the call's own (from its identity, so it differs by checkpoint and pathway). The random policy is
 * itself; the heuristic plays the random policy's decision with probability HEURISTIC_NOISE_EPSILON
 * (drawn from its own stream of the seed), else its own with the seed's generator for its tie-breaks.
 */
export function noisyTextPolicyDecision(game: Game, policy: TextPolicyName, ctx: PolicyContext, seed: number): PolicyDecision {
  if (policy === "random") return textPolicyDecision(game, "random", ctx, seed);
  const coin = Rng.fromKey(`policy-noise|${policy}|seed|${seed}`).float();
  return textPolicyDecision(game, coin < HEURISTIC_NOISE_EPSILON ? "random" : policy, ctx, seed);
}

/** An action with the exact reward it will earn, from the live state. */
function judged(game: Game, state: EpisodeState, action: string): PolicyDecision {
  return { action, selfScore: game.step(game.clone(state), action).reward };
}

/** Heuristic's action with the exact reward it will earn (the perfect judge). */
export function perfectJudgeDecision(game: Game, state: EpisodeState, ctx: PolicyContext, seed?: number): PolicyDecision {
  return judged(game, state, textPolicyDecision(game, "heuristic", ctx, seed).action);
}

/** The ceiling's action (from the hidden state) with the exact reward it will earn. */
export function ceilingDecision(game: Game, state: EpisodeState, ctx: PolicyContext, seed?: number): PolicyDecision {
  return judged(game, state, CEILINGS[game.name](game, state, ctx, policyRng("ceiling", ctx, seed)));
}

export function decide(game: Game, policy: PolicyName, state: EpisodeState, ctx: PolicyContext, seed?: number): PolicyDecision {
  if (policy === "perfect-judge") return perfectJudgeDecision(game, state, ctx, seed);
  if (policy === "ceiling") return ceilingDecision(game, state, ctx, seed);
  return textPolicyDecision(game, policy, ctx, seed);
}
