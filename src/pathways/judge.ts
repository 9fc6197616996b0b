/**
 * The judge axis (docs/judging.md): which score the experience carries for each exploration step.
 *
 *   self       the acting model's own self-score (the paper's protocol; the default)
 *   verifier   the hidden step reward
 *   shuffled   the recorded run's exploration episodes permuted: each episode carries another's
 *              self-scores (a placebo: the run's own scores and episode totals, no link to the step or
 *              the episode they judged), by a generator drawn from the run seed and the recorded
 *              run's id; a rejudge's judge only
 *   none       no score at all: the experience text shows none, and its prompts say so
 *   model:X    an external judge: model X scores each step from the observation and the action the
 *              actor saw (agent/judgePrompt.ts; the runner makes the calls)
 *
 * The acting model still writes its own self-score at every step (`self_score`); a run whose judge is
 * not `self` records beside it the score the experience carried (`experience_score`, its source, and
 * for `shuffled` the episode and step it came from). Everything that reads a step's score for experience
 * (History's blocks, the summary and verifier input, BuildSFT's filter) reads it through
 * `experienceScore`, so the recorded step is the one truth (live, on resume, in a replay, in BuildSFT).
 * Pure: no model calls here.
 */
import type { StepRecord } from "../logs/schema.js";
import { Rng } from "../util/rng.js";
import { listItems, type Option } from "../util/options.js";

/** The judges that need no model, in the order docs and usage list them. */
export const BUILTIN_JUDGES = ["self", "verifier", "shuffled", "none"] as const;
export type BuiltinJudge = (typeof BUILTIN_JUDGES)[number];

/** The prefix of an external judge: `model:<any model spec>`. */
export const MODEL_JUDGE_PREFIX = "model:";

/** What usage shows for `--judge`. */
export const JUDGE_USAGE = `${BUILTIN_JUDGES.join("|")}|model:<spec>`;

/** A judge as the settings hold it: its canonical text. */
export type Judge = string;

/** `s3gym rejudge --judge`: one judge or a comma list (duplicates merged), each read by parseJudge. */
export const JUDGES_OPTION: Option<Judge[]> = {
  name: "judge",
  kind: { type: "text", shown: `${JUDGE_USAGE}[,...]`, parse: (v) => listItems(v).map(parseJudge) },
  default: undefined,
  required: `${JUDGE_USAGE} (a comma list for several)`,
  help: "one judge or several (comma list): one rejudged run each",
};

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
 * The key of `shuffled`'s permutation of a recorded run's exploration steps: the run seed and the
 * recorded run's id, both in the rejudged run's manifest (`run_seed`, `rejudged_from`), so the
 * permutation is recorded by them and a resume draws the same one.
 */
export function shuffleKey(runSeed: number, sourceRunId: string): string {
  return `judge-shuffle-run\u0000${runSeed}\u0000${sourceRunId}`;
}

/** A uniform random permutation of 0..n-1 (Fisher-Yates) from the generator of `key`. */
export function shufflePermutation(n: number, key: string): number[] {
  const rng = Rng.fromKey(key);
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

/** Where a step's shuffled score came from: the episode and step whose self-score it carries (step null: none, see runShuffle). */
export interface ShuffleSource {
  episode: number;
  step: number | null;
  self_score: number | null;
}

/**
 * `shuffled` across a whole run: the recorded run's exploration episodes are permuted (a uniform
 * permutation from the generator of `key`), and episode x carries the self-scores of episode pi(x),
 * in their order, on its own steps: step i carries pi(x)'s step i. When pi(x) has more steps than x,
 * x's last step carries the sum of pi(x)'s remaining self-scores; when it has fewer, x's extra steps
 * carry none (null). So every episode's total is another episode's total (the run's totals, permuted),
 * and most steps carry another episode's step.
 *
 * Why episodes and not steps within an episode: a reader that credits episodes by the SUM of their
 * scores (builtin:learner, and any model that judges a whole episode) reads a within-episode
 * permutation exactly as the original (the sum is kept), so that placebo measured the model's own
 * judging, not chance. Why not every step of the run permuted as one pool: an episode's total is then
 * a sum of as many draws as it has steps, which tracks its length (and lasting longer is what good
 * tactics do): measured, that placebo moved the learner's gain by +10 to +15 on pvz and -3 to -4.5 on
 * tetris. Permuted totals carry nothing of the episode they are shown on.
 */
export function runShuffle(episodes: readonly { episode: number; steps: readonly Pick<StepRecord, "step" | "self_score">[] }[], key: string): Map<number, ShuffleSource[]> {
  const ordered = [...episodes].sort((a, b) => a.episode - b.episode);
  const p = shufflePermutation(ordered.length, key);
  const out = new Map<number, ShuffleSource[]>();
  ordered.forEach((e, i) => {
    const from = ordered[p[i]!]!;
    const n = e.steps.length;
    const m = from.steps.length;
    const mine: ShuffleSource[] = e.steps.map((_, k) =>
      k < m ? { episode: from.episode, step: from.steps[k]!.step, self_score: from.steps[k]!.self_score } : { episode: from.episode, step: null, self_score: null },
    );
    if (m > n && n > 0) {
      const rest = from.steps
        .slice(n - 1)
        .map((s) => s.self_score)
        .filter((x): x is number => x !== null);
      mine[n - 1] = { ...mine[n - 1]!, self_score: rest.length > 0 ? rest.reduce((a, x) => a + x, 0) : null };
    }
    out.set(e.episode, mine);
  });
  return out;
}

/** The fields a judged step record carries beside `self_score`. */
export interface JudgedFields {
  experience_score: number | null;
  experience_score_source: string;
  experience_score_from?: number;
  experience_score_from_episode?: number;
}

/**
 * The judged fields of one episode's steps (in the order given, which must be step order) under a
 * judge that needs no model; `self` gives none (the steps stay as they are, byte for byte).
 * External judges' scores come from their calls (runner/loop/judgeCalls.ts) and are passed as `scores`;
 * `shuffled`'s sources (this episode's part of `runShuffle`) as `shuffled`.
 */
export function judgedFields(
  judge: Judge,
  steps: readonly Pick<StepRecord, "self_score" | "reward" | "step">[],
  o: { scores?: readonly (number | null)[]; shuffled?: readonly ShuffleSource[] },
): JudgedFields[] | null {
  switch (judge) {
    case "self":
      return null;
    case "verifier":
      return steps.map((s) => ({ experience_score: s.reward, experience_score_source: "verifier" }));
    case "none":
      return steps.map(() => ({ experience_score: null, experience_score_source: "none" }));
    case "shuffled": {
      const from = o.shuffled;
      if (!from || from.length !== steps.length) throw new Error(`judge shuffled: ${from?.length ?? 0} shuffled scores for ${steps.length} steps`);
      return from.map((f) => ({
        experience_score: f.self_score,
        experience_score_source: "shuffled",
        ...(f.step !== null ? { experience_score_from: f.step } : {}),
        experience_score_from_episode: f.episode,
      }));
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
