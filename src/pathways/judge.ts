/**
 * The judge axis (docs/judging.md): which score the experience carries for each exploration step.
 *
 *   self       the acting model's own self-score (the paper's protocol; the default)
 *   verifier   the hidden step reward
 *   shuffled   the episode's own self-scores permuted within the episode (a placebo: the same scores,
 *              no link to the step they judged), by a generator drawn from the run seed and the episode
 *   none       no score at all: the experience text shows none, and its prompts say so
 *   model:X    an external judge: model X scores each step from the observation and the action the
 *              actor saw (agent/judgePrompt.ts; the runner makes the calls)
 *
 * The acting model still writes its own self-score at every step (`self_score`); a run whose judge is
 * not `self` records beside it the score the experience carried (`experience_score`, its source, and
 * for `shuffled` the step it came from). Everything that reads a step's score for experience
 * (History's blocks, the summary and verifier input, BuildSFT's filter) reads it through
 * `experienceScore`, so the recorded step is the one truth (live, on resume, in a replay, in BuildSFT).
 * Pure: no model calls here.
 */
import type { StepRecord } from "../logs/schema.js";
import { Rng } from "../util/rng.js";

/** The judges that need no model, in the order docs and usage list them. */
export const BUILTIN_JUDGES = ["self", "verifier", "shuffled", "none"] as const;
export type BuiltinJudge = (typeof BUILTIN_JUDGES)[number];

/** The prefix of an external judge: `model:<any model spec>`. */
export const MODEL_JUDGE_PREFIX = "model:";

/** What usage shows for `--judge`. */
export const JUDGE_USAGE = `${BUILTIN_JUDGES.join("|")}|model:<spec>`;

/** A judge as the settings hold it: its canonical text. */
export type Judge = string;

/**
 * The canonical judge of a flag or recorded value (`self`, `verifier`, `shuffled`, `none`,
 * `model:<spec>`); throws saying what is expected.
 */
export function parseJudge(text: string): Judge {
  const t = text.trim();
  if ((BUILTIN_JUDGES as readonly string[]).includes(t)) return t;
  if (t.startsWith(MODEL_JUDGE_PREFIX)) {
    const spec = t.slice(MODEL_JUDGE_PREFIX.length).trim();
    if (spec.length === 0) throw new Error(`'${t}' names no model: write model:<spec>, e.g. model:builtin:heuristic or model:openai:gpt-4o-mini`);
    return `${MODEL_JUDGE_PREFIX}${spec}`;
  }
  throw new Error(`expected ${JUDGE_USAGE}, got '${t.slice(0, 80)}'`);
}

/** The model spec of an external judge, or null for a built-in judge. */
export function judgeModel(judge: Judge | undefined): string | null {
  return judge !== undefined && judge.startsWith(MODEL_JUDGE_PREFIX) ? judge.slice(MODEL_JUDGE_PREFIX.length) : null;
}

/** Whether the experience of a run under `judge` carries scores at all (`none`: it does not). */
export function judgeShowsScores(judge: Judge | undefined): boolean {
  return judge !== "none";
}

/**
 * The seed of `shuffled`'s permutation of exploration episode `episode`: from the run seed and the
 * episode alone, so a rejudged run and an on-policy run of one run seed permute one episode alike, and
 * the manifest's run seed is the recorded seed it derives from.
 */
export function shuffleKey(runSeed: number, episode: number): string {
  return `judge-shuffle\u0000${runSeed}\u0000${episode}`;
}

/** A uniform random permutation of 0..n-1 (Fisher-Yates) from the episode's generator. */
export function shufflePermutation(n: number, runSeed: number, episode: number): number[] {
  const rng = Rng.fromKey(shuffleKey(runSeed, episode));
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

/** The fields a judged step record carries beside `self_score`. */
export interface JudgedFields {
  experience_score: number | null;
  experience_score_source: string;
  experience_score_from?: number;
}

/**
 * The judged fields of one episode's steps (in the order given, which must be step order) under a
 * judge that needs no model; `self` gives none (the steps stay as they are, byte for byte).
 * External judges' scores come from their calls (runner/judgeCalls.ts) and are passed as `scores`.
 */
export function judgedFields(judge: Judge, steps: readonly Pick<StepRecord, "self_score" | "reward" | "step">[], o: { runSeed: number; episode: number; scores?: readonly (number | null)[] }): JudgedFields[] | null {
  switch (judge) {
    case "self":
      return null;
    case "verifier":
      return steps.map((s) => ({ experience_score: s.reward, experience_score_source: "verifier" }));
    case "none":
      return steps.map(() => ({ experience_score: null, experience_score_source: "none" }));
    case "shuffled": {
      const p = shufflePermutation(steps.length, o.runSeed, o.episode);
      return steps.map((_, i) => ({ experience_score: steps[p[i]!]!.self_score, experience_score_source: "shuffled", experience_score_from: steps[p[i]!]!.step }));
    }
    default: {
      if (judgeModel(judge) === null) throw new Error(`unknown judge '${judge}'`);
      const scores = o.scores;
      if (!scores || scores.length !== steps.length) throw new Error(`judge ${judge}: ${scores?.length ?? 0} scores for ${steps.length} steps`);
      return steps.map((_, i) => ({ experience_score: scores[i]!, experience_score_source: judge }));
    }
  }
}

/** The steps with their judged fields (a copy of each; `self`: the same records). */
export function withJudgedFields<S extends StepRecord>(steps: readonly S[], fields: readonly JudgedFields[] | null): S[] {
  if (fields === null) return [...steps];
  return steps.map((s, i) => ({ ...s, ...fields[i]! }));
}

/**
 * The score the experience carries for a recorded step: `experience_score` when the step was judged
 * by another judge than `self`, else its own `self_score`. `shown` is false under `none`.
 */
export function experienceScore(s: Pick<StepRecord, "self_score"> & { experience_score?: number | null; experience_score_source?: string }): { score: number | null; shown: boolean } {
  if (s.experience_score_source === undefined) return { score: s.self_score, shown: true };
  if (s.experience_score_source === "none") return { score: null, shown: false };
  return { score: s.experience_score ?? null, shown: true };
}
