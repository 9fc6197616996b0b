/**
 * Which models the coupling statistics pool (learner.md, "Coupling where learning is possible"): only
 * models that can learn from their experience. The built-in random, heuristic and oracle policies
 * ignore the experience block by construction, so their Agree (about 1 for the heuristic and the
 * oracle) comes with no gain at all: pooled with learners they drove run-level Spearman to -0.43 while
 * the learner dial alone gave +0.29. They are the null, reported on their own rows.
 *
 * The list is explicit, not a test on the data: whether a `none` run differs from a context run says
 * nothing here, because every run draws from its own call seeds (the random policy's runs differ by
 * pathway without learning anything). Every other model (an LLM, the learner at any judge or
 * checkpoint) is pooled.
 */
import { parseLearnerName } from "../../models/modelSpec.js";

/**
 * The built-in policies that ignore the experience block (their every pathway plays the same policy):
 * random, heuristic, the perfect judge (`oracle` is its old name) and the ceiling.
 */
export const NON_LEARNERS: readonly string[] = ["builtin:random", "builtin:heuristic", "builtin:perfect-judge", "builtin:oracle", "builtin:ceiling"];

/** Whether `model` is one of NON_LEARNERS, with or without options (`builtin:heuristic?x=1`). */
export function cannotLearn(model: string): boolean {
  return NON_LEARNERS.some((n) => model === n || (model.startsWith(n) && !/[A-Za-z0-9_-]/.test(model.charAt(n.length))));
}

/** Whether the coupling statistics pool `model`'s runs. */
export function canLearn(model: string): boolean {
  return !cannotLearn(model);
}

/** Which pool a model's runs go to: `learners` (pooled) or `null` (the non-learners' own rows). */
export type Pool = "learners" | "null";

export function poolOf(model: string): Pool {
  return canLearn(model) ? "learners" : "null";
}

/** builtin:learner's judge setting (1 without the option), or null for any other model. */
export function learnerJudge(model: string): number | null {
  if (!model.startsWith("builtin:")) return null;
  try {
    return parseLearnerName(model.slice("builtin:".length))?.judge ?? null;
  } catch {
    return null;
  }
}

/** The note that says which models were pooled and why (names sorted; none pooled says so). */
export function poolNote(models: Iterable<string>): string {
  const all = [...new Set(models)].sort();
  const pooled = all.filter(canLearn);
  const nulls = all.filter((m) => !canLearn(m));
  const lines = [`Pooled (rows 'learners'): the models that can learn from their experience: ${pooled.length > 0 ? pooled.join(", ") : "none in this data set"}.`];
  if (nulls.length > 0) {
    lines.push(
      `The null (rows 'null'): ${nulls.join(", ")}, built-in policies that ignore the experience block, so their judging cannot couple with any improvement (expected ~0); pooled with the learners, their high Agree with no gain would bias the correlation.`,
    );
  }
  return lines.join(" ");
}
