/**
 * An exploration episode's trajectory from its records: the one path used live, on resume and by
 * the replay, so all three give a pathway the same input.
 */
import { declaredTactic, type Trajectory } from "../agent/trajectoryText.js";
import { splitObservation } from "../games/envelope.js";
import type { StepRecord } from "../logs/schema.js";
import { experienceScore } from "./judge.js";

/**
 * The end state of a block: the final observation without its "Step k of N" header, which after the
 * last step would read "Step 9 of 8" and only confuse.
 */
export function endStateText(observation: string): string {
  try {
    return splitObservation(observation).body;
  } catch {
    return observation;
  }
}

/** The trajectory of exploration episode `episode` from its step records and the episode's end_observation. */
export function trajectoryFromSteps(episode: number, steps: readonly StepRecord[], endObservation: string): Trajectory {
  const ordered = [...steps].sort((a, b) => a.step - b.step);
  // The score the run's judge gave each step (judge.ts: the own self-score under `self`).
  const scores = ordered.map(experienceScore);
  return {
    episode,
    // The reply's declared `Tactic:` line, when it has one, is shown in the block (builtin:learner writes one).
    steps: ordered.map((s, i) => ({ observation: s.observation, action: s.action, selfScore: scores[i]!.score, feedback: s.feedback, tactic: declaredTactic(s.response) })),
    endObservation: endStateText(endObservation),
    ...(scores.some((x) => !x.shown) ? { scoresShown: false as const } : {}),
  };
}
