/**
 * Which judge a run's experience carried and what it was rebuilt from (docs/judging.md), read from
 * its manifest: `config.protocol.judge` (absent: `self`) and `rejudged_from`. A run judged otherwise
 * than `self`, or rebuilt from another run, is a judge-swap run: the judge_swap table reads it, and
 * every other table leaves it out (it is the same model, game and pathway as its `self` run, and would
 * count twice).
 */
import { compareText, type RunData } from "./dataset.js";
export { distinct } from "./runs.js";

/** The judge of a run: its manifest's `config.protocol.judge`, `self` when absent (or without a manifest). */
export function judgeOf(run: RunData): string {
  const j = (run.manifest?.config?.protocol as { judge?: unknown } | undefined)?.judge;
  return typeof j === "string" ? j : "self";
}

/** The run id a rejudged run was rebuilt from, or null. */
export function rejudgedFromOf(run: RunData): string | null {
  const f = (run.manifest as { rejudged_from?: { run_id?: unknown } } | null)?.rejudged_from?.run_id;
  return typeof f === "string" ? f : null;
}

/** Whether the run belongs to the judge swap alone (judged otherwise than `self`, or rejudged). */
export function isJudgeSwapRun(run: RunData): boolean {
  return judgeOf(run) !== "self" || rejudgedFromOf(run) !== null;
}

/** compareText over `\u0000`-joined keys. */
export const compareTextOf = compareText;
