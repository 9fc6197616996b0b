/**
 * When NABA cannot be read (metrics.md, "NABA's instability mark"): NABA = AUC+ / |y0| divides by
 * the mean score at checkpoint 0, itself an estimate over the evaluation seeds. When |y0| is small
 * against the spread of the seeds' scores at that checkpoint, the scale is not distinguishable from
 * 0: a resample with a few lower seeds moves |y0| towards 0 and NABA towards any size (the
 * reproduction's tetris learner row printed 259 [28.5, 8436]). The rule: mark the row when
 *   |y0| <= Y0_SE_MULTIPLE * sd_0 / sqrt(n),
 * sd_0 the sample standard deviation of the n evaluation seeds' scores at checkpoint 0 (the row's
 * runs pooled), i.e. when y0's own normal 95% interval reaches 0. A y0 of exactly 0 is always marked
 * (NABA then divides by the first non-zero y instead). The 5%-of-range rule of the gain tables stays
 * as a second trigger for y0 near 0 with no spread to judge it by.
 */
import type { SeedCurve } from "../stats/seedCurves.js";

/** How many standard errors of y0 away from 0 its scale must lie (about a two-sided 95% normal interval). */
export const Y0_SE_MULTIPLE = 2;

/** The mark on an unstable NABA. */
export const NABA_UNSTABLE_MARK = "†y0 unstable";

/** The checkpoint-0 scores of some runs (pooled over runs; NaN-free). */
export function checkpointZeroScores(curves: readonly SeedCurve[]): number[] {
  const out: number[] = [];
  for (const sc of curves) {
    const c = sc.xs.indexOf(0);
    if (c < 0) continue;
    for (let k = 0; k < sc.keys.length; k++) {
      const v = sc.scores[c * sc.keys.length + k] as number;
      if (!Number.isNaN(v)) out.push(v);
    }
  }
  return out;
}

/** Whether y0 (the mean of `scores0`) lies within Y0_SE_MULTIPLE standard errors of 0; false without scores. */
export function y0Unstable(scores0: readonly number[]): boolean {
  const n = scores0.length;
  if (n === 0) return false;
  const mean = scores0.reduce((a, b) => a + b, 0) / n;
  if (mean === 0) return true;
  if (n < 2) return false;
  const sd = Math.sqrt(scores0.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  return Math.abs(mean) <= (Y0_SE_MULTIPLE * sd) / Math.sqrt(n);
}

/** The note under a table with marked rows. */
export function nabaUnstableNote(marked: number): string {
  return `${NABA_UNSTABLE_MARK}: |y0| <= ${Y0_SE_MULTIPLE} standard errors of y0 (sd of the evaluation seeds' scores at checkpoint 0 / sqrt(n)), or y0 within 5% of the game's score range from 0: NABA divides by a scale not distinguishable from 0, so its value and interval can take any size; read gain_vs_y0 and gain_vs_none instead (${marked} row${marked === 1 ? "" : "s"}).`;
}
