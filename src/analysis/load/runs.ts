/**
 * Helpers that turn the compact RunData into the inputs of the pure metrics: a run's curve, the
 * game-level reward ranges, per-episode judging counts, and the grouping of runs into table rows.
 */
import * as ss from "simple-statistics";
import type { CurvePoint } from "../metrics/curves.js";
import { JUDGED_PATHWAYS, TRAINING_PATHWAY, compareText, type Dataset, type RunData } from "./dataset.js";
import { addCounts, addStep, emptyCounts, type JudgingCounts, type RewardRange } from "../metrics/judging.js";

/** A run's curve: y(x) = mean of the checkpoint's evaluation episode scores; null when invalid. */
export function runCurve(run: RunData): CurvePoint[] {
  return run.checkpoints.map((c) => ({ x: c.x, y: c.valid ? ss.mean(c.scores) : null }));
}

/** Whether a run belongs to the self-judging step set (a history or memory run). */
export function isJudged(run: RunData): boolean {
  return JUDGED_PATHWAYS.includes(run.pathway) && run.explore !== null;
}

/** Whether a run is a training run (checkpoint = epoch). */
export function isTraining(run: RunData): boolean {
  return run.pathway === TRAINING_PATHWAY;
}

/**
 * The game-level reward range of every game: min and max r over the game's pooled step set (the
 * exploration steps of its history and memory runs, unscored included). A game with no such step
 * maps to null.
 */
export function gameRewardRanges(ds: Dataset): Map<string, RewardRange | null> {
  const out = new Map<string, RewardRange | null>();
  for (const run of ds.runs) {
    if (!out.has(run.game)) out.set(run.game, null);
    if (!isJudged(run)) continue;
    const ex = run.explore;
    if (ex === null || ex.length === 0) continue;
    let rg = out.get(run.game) ?? { min: Infinity, max: -Infinity };
    for (let i = 0; i < ex.length; i++) {
      const r = ex.r[i] as number;
      if (r < rg.min) rg = { min: r, max: rg.max };
      if (r > rg.max) rg = { min: rg.min, max: r };
    }
    out.set(run.game, rg);
  }
  return out;
}

/**
 * The games the completeness rule requires: every game with a non-training run in the data set (the
 * paper's seven in a full data set).
 */
export function requiredGames(ds: Dataset): string[] {
  return distinct(ds.runs.filter((r) => !isTraining(r)).map((r) => r.game));
}

/** Judging counts per exploration episode of a judged run (episode order), with the game range. */
export function episodeCounts(run: RunData, range: RewardRange | null): Map<number, JudgingCounts> {
  const out = new Map<number, JudgingCounts>();
  const ex = run.explore;
  if (ex === null) return out;
  for (let i = 0; i < ex.length; i++) {
    const e = ex.episode[i] as number;
    let c = out.get(e);
    if (c === undefined) {
      c = emptyCounts();
      out.set(e, c);
    }
    addStep(c, ex.s[i] as number, ex.r[i] as number, range);
  }
  return out;
}

/** The sum of a run's per-episode counts. */
export function totalCounts(episodes: ReadonlyMap<number, JudgingCounts>): JudgingCounts {
  const acc = emptyCounts();
  for (const c of episodes.values()) addCounts(acc, c);
  return acc;
}

/** Groups items by a string key, keeping first-seen key order and item order within a group. */
export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = out.get(k);
    if (list) list.push(it);
    else out.set(k, [it]);
  }
  return out;
}

/** Sorted distinct values (code-unit order: the same on every machine, see compareText). */
export function distinct(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareText);
}
