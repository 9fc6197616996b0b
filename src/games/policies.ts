/**
 * Built-in offline policies over the Game API. `random` and `heuristic` decide from the observation
 * TEXT (what a model sees); `oracle` is privileged: heuristic's action, self-scored exactly by
 * simulating the step on a clone (the perfect-judge reference line; in-process only).
 */
import { policyRng } from "./envelope.js";
import type { EpisodeState, Game, PolicyContext, PolicyDecision } from "./types.js";

export const POLICY_NAMES = ["random", "heuristic", "oracle"] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];
/** Policies that see only text, so they can also answer over HTTP (`s3gym serve`). */
export const TEXT_POLICY_NAMES = ["random", "heuristic"] as const;
export type TextPolicyName = (typeof TEXT_POLICY_NAMES)[number];

export function isPolicyName(name: string): name is PolicyName {
  return (POLICY_NAMES as readonly string[]).includes(name);
}

/**
 * A text policy's decision. `seed` (the call's seed: from its identity in process, the request's
 * `seed` over HTTP) decides every random draw; without one the draws come from what the policy sees.
 */
export function textPolicyDecision(game: Game, policy: TextPolicyName, ctx: PolicyContext, seed?: number): PolicyDecision {
  return game.policies[policy](ctx, policyRng(policy, ctx, seed));
}

/** Heuristic's action with the exact reward it will earn, from the live state. */
export function oracleDecision(game: Game, state: EpisodeState, ctx: PolicyContext, seed?: number): PolicyDecision {
  const { action } = textPolicyDecision(game, "heuristic", ctx, seed);
  const simulated = game.step(game.clone(state), action);
  return { action, selfScore: simulated.reward };
}

export function decide(game: Game, policy: PolicyName, state: EpisodeState, ctx: PolicyContext, seed?: number): PolicyDecision {
  return policy === "oracle" ? oracleDecision(game, state, ctx, seed) : textPolicyDecision(game, policy, ctx, seed);
}
