/**
 * The plain built-in answers to the verified pathway's role prompts, for `builtin:random`,
 * `builtin:heuristic`, `builtin:perfect-judge` and `builtin:ceiling` (which have no memory of their own to plan with):
 * the curriculum takes the next untried seeds on `explore`; the verifier judges the outcome from the
 * sum of the trajectory's self-scores against the stated success threshold and states no facts.
 * `builtin:learner` has its own (src/builtin/learner/roles/).
 */
import type { ChatMessage } from "../models/types.js";
import { formatCurriculum, isCurriculumRequest, readCurriculumPrompt } from "./curriculumPrompt.js";
import { formatVerdict, isVerifierRequest, readVerifierPrompt, type Outcome } from "./verifierPrompt.js";

/** Whether the messages are a curriculum or verifier prompt of the verified pathway. */
export function isRoleRequest(messages: readonly ChatMessage[]): boolean {
  return isCurriculumRequest(messages) || isVerifierRequest(messages);
}

/** The threshold a verifier prompt's success criterion states, or null. */
export function statedThreshold(criterion: string): number | null {
  const m = /at least (-?\d+(?:\.\d+)?)/.exec(criterion);
  return m ? Number(m[1]) : null;
}

/** Sum of a trajectory text's self-scores, and how many steps had none. */
export function selfScoreSum(trajectory: string): { sum: number; steps: number; missing: number } {
  let sum = 0;
  let steps = 0;
  let missing = 0;
  for (const line of trajectory.split("\n")) {
    if (!line.startsWith("Self-score: ")) continue;
    steps++;
    const x = Number(line.slice("Self-score: ".length));
    if (Number.isFinite(x)) sum += x;
    else missing++;
  }
  return { sum, steps, missing };
}

/** An outcome from an estimated episode score: uncertain without evidence (no steps, most unscored, a cut trajectory). */
export function outcomeFromEstimate(estimate: { sum: number; steps: number; missing: number }, threshold: number | null, truncated: boolean): Outcome {
  if (threshold === null || estimate.steps === 0 || truncated || estimate.missing * 2 > estimate.steps) return "uncertain";
  return estimate.sum >= threshold ? "success" : "failure";
}

/** The plain answer to a role prompt; null when the messages are not one. */
export function builtinRoleAnswer(messages: readonly ChatMessage[]): string | null {
  const offer = readCurriculumPrompt(messages);
  if (offer) {
    const untried = offer.seeds.filter((s) => s.played.length === 0).map((s) => s.seed);
    const all = offer.seeds.map((s) => s.seed);
    const choices = offer.episodes.map((episode, i) => ({ episode, seed: untried[i] ?? all[i % Math.max(1, all.length)] ?? 0, variant: "explore" }));
    return formatCurriculum(choices, "built-in curriculum: the next untried seeds on the explore config");
  }
  const v = readVerifierPrompt(messages);
  if (v) {
    const truncated = /^\[\.\.\. \d+ later steps omitted\]$/m.test(v.trajectory);
    return formatVerdict({ outcome: outcomeFromEstimate(selfScoreSum(v.trajectory), statedThreshold(v.successCriterion), truncated), facts: [] });
  }
  return null;
}
