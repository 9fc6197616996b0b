/**
 * How an exploration episode is written into experience (History ICL context and the Summary Memory
 * call): a seed-free header, per step the observation as shown, the action, the self-score and the
 * visible feedback, then the end state. The verifier reward and score never appear here.
 */

export interface TrajectoryStep {
  observation: string;
  /** Parsed action, or null when the reply had none. */
  action: string | null;
  /** The model's own self-score, or null. */
  selfScore: number | null;
  feedback: string;
  /**
   * The tactic the reply declared on a `Tactic: <name>` line (builtin:learner writes one; any model
   * may), or null/absent. Shown in the block so that experience can refer to it.
   */
  tactic?: string | null;
}

/** A reply's declared tactic: the first line `Tactic: <name>` (a lower-case hyphenated word), else null. */
export function declaredTactic(reply: string): string | null {
  const m = /^[ \t]*Tactic:[ \t]*([a-z0-9][a-z0-9-]{0,39})[ \t]*$/m.exec(reply);
  return m ? m[1]! : null;
}

export interface Trajectory {
  /** Exploration episode number (1-based). */
  episode: number;
  steps: TrajectoryStep[];
  /**
   * false: the run's judge is `none` (docs/judging.md), the block shows no score line at all, and the
   * prompts that quote it say the scores are withheld. Absent: scores shown (every other judge).
   */
  scoresShown?: false;
  /** The observation after the last step (the end state). */
  endObservation: string;
}

function stepText(s: TrajectoryStep, i: number, scoresShown: boolean): string {
  return [
    `--- Step ${i + 1} ---`,
    "Observation:",
    s.observation,
    ...(s.tactic ? [`Tactic: ${s.tactic}`] : []),
    `Action: ${s.action ?? "(unparsable reply)"}`,
    // The label stays `Self-score` whichever judge gave the number: the arms of a judge swap differ
    // in the numbers alone (docs/judging.md).
    ...(scoresShown ? [`Self-score: ${s.selfScore ?? "(none)"}`] : []),
    `Feedback: ${s.feedback || "(none)"}`,
  ].join("\n");
}

/** The block's pieces in order: header, one per step, end state, footer. Truncation cuts steps from the tail. */
export function trajectoryPieces(t: Trajectory): { header: string; steps: string[]; end: string; footer: string } {
  return {
    header: `=== Exploration episode ${t.episode} (${t.steps.length} steps) ===`,
    steps: t.steps.map((s, i) => stepText(s, i, t.scoresShown !== false)),
    end: `End state:\n${t.endObservation}`,
    footer: `=== End of exploration episode ${t.episode} ===`,
  };
}

/**
 * The episode block, keeping the first `keepSteps` steps. A cut block says how many later steps were
 * omitted and loses its end state; `keepSteps = 0` gives "" (the block is dropped).
 */
export function renderTrajectory(t: Trajectory, keepSteps = t.steps.length): string {
  if (keepSteps <= 0) return "";
  const p = trajectoryPieces(t);
  const kept = p.steps.slice(0, keepSteps);
  const omitted = t.steps.length - kept.length;
  const tail = omitted > 0 ? [`[... ${omitted} later steps omitted]`] : [p.end];
  return [p.header, ...kept, ...tail, p.footer].join("\n");
}

/**
 * The hybrid pathway's retrieved steps (pathways/hybrid.ts): a section opened by RETRIEVED_TITLE, one
 * snippet per earlier exploration step, each the same step lines as a History block's under its own
 * header (never a History block header, so a reader of History blocks does not count a snippet as an
 * episode).
 */
export const RETRIEVED_TITLE = "=== Retrieved earlier exploration steps (most similar to the current observation first) ===";

/** A snippet's first line (`step` 0-based, shown 1-based as in History blocks). */
export function retrievedStepHeader(r: { episode: number; step: number }): string {
  return `--- Retrieved step: exploration episode ${r.episode}, step ${r.step + 1} ---`;
}

/** One retrieved step's text. */
export function retrievedStepText(s: {
  episode: number;
  step: number;
  observation: string;
  tactic: string | null;
  action: string | null;
  score: number | null;
  scoresShown: boolean;
  feedback: string;
}): string {
  return [
    retrievedStepHeader(s),
    "Observation:",
    s.observation,
    ...(s.tactic ? [`Tactic: ${s.tactic}`] : []),
    `Action: ${s.action ?? "(unparsable reply)"}`,
    ...(s.scoresShown ? [`Self-score: ${s.score ?? "(none)"}`] : []),
    `Feedback: ${s.feedback || "(none)"}`,
  ].join("\n");
}
