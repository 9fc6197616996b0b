/**
 * Self-judging metrics (metrics.md, "Self-judging"): how a model's self-score s tracks the verifier
 * reward r, step by step. Everything reduces to additive counts (JudgingCounts), so a set of steps can
 * be summarised per episode or per run once and then pooled freely: the cluster bootstrap resamples
 * those summaries instead of steps.
 */

/** One step as the metrics see it: s = null when the model's self-score was missing/unparsable. */
export interface JudgedStep {
  s: number | null;
  r: number;
}

/** The game-level reward range used to clip s and normalise NMAE. */
export interface RewardRange {
  min: number;
  max: number;
}

/** Additive summary of a set of steps (all counts; absErr is the un-normalised sum). */
export interface JudgingCounts {
  /** All steps, scored or not. */
  n: number;
  /** Steps with s = null. */
  unscored: number;
  /** Scored steps with (s > 0) == (r > 0). */
  agree: number;
  /** Scored steps with s > 0 and r <= 0. */
  over: number;
  /** Scored steps with s <= 0 and r > 0. */
  under: number;
  /** Sum over scored steps of abs(clip(s) - r), clip into the range. */
  absErr: number;
  /** Scored steps with r > 0 (positive rates). */
  posR: number;
  /** Scored steps with s > 0 (positive rates). */
  posS: number;
}

/** An all-zero JudgingCounts. */
export function emptyCounts(): JudgingCounts {
  return { n: 0, unscored: 0, agree: 0, over: 0, under: 0, absErr: 0, posR: 0, posS: 0 };
}

/** Adds `b` into `a` (in place) and returns `a`. */
export function addCounts(a: JudgingCounts, b: JudgingCounts): JudgingCounts {
  a.n += b.n;
  a.unscored += b.unscored;
  a.agree += b.agree;
  a.over += b.over;
  a.under += b.under;
  a.absErr += b.absErr;
  a.posR += b.posR;
  a.posS += b.posS;
  return a;
}

/**
 * Min and max verifier reward over a step set (unscored steps included, as metrics.md says);
 * null for an empty set.
 */
export function rewardRange(rewards: ArrayLike<number>): RewardRange | null {
  if (rewards.length === 0) return null;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < rewards.length; i++) {
    const r = rewards[i] as number;
    if (r < min) min = r;
    if (r > max) max = r;
  }
  return { min, max };
}

/**
 * Adds one step into `acc`. `s` is NaN (or null) for an unscored step. `range` is the game-level
 * range; with a null range absErr is not accumulated (NMAE will be missing anyway).
 */
export function addStep(acc: JudgingCounts, s: number | null, r: number, range: RewardRange | null): void {
  acc.n++;
  if (s === null || Number.isNaN(s)) {
    acc.unscored++;
    return;
  }
  const sp = s > 0;
  const rp = r > 0;
  if (sp === rp) acc.agree++;
  else if (sp) acc.over++;
  else acc.under++;
  if (rp) acc.posR++;
  if (sp) acc.posS++;
  if (range !== null) {
    const c = s < range.min ? range.min : s > range.max ? range.max : s;
    acc.absErr += Math.abs(c - r);
  }
}

/** The self-judging numbers of a step set; rates are null when no step is scored. */
export interface JudgingStats {
  n_steps: number;
  n_unscored: number;
  agree: number | null;
  /** Null also when the game's reward is constant (r_max == r_min). */
  nmae: number | null;
  over: number | null;
  under: number | null;
}

/** Turns counts into the metrics, normalising NMAE by the game-level range. */
export function judgingStats(c: JudgingCounts, range: RewardRange | null): JudgingStats {
  const scored = c.n - c.unscored;
  const width = range === null ? 0 : range.max - range.min;
  return {
    n_steps: c.n,
    n_unscored: c.unscored,
    agree: scored > 0 ? c.agree / scored : null,
    nmae: scored > 0 && width > 0 ? c.absErr / scored / width : null,
    over: scored > 0 ? c.over / scored : null,
    under: scored > 0 ? c.under / scored : null,
  };
}

/**
 * Self-judging metrics of a plain list of steps. `range` defaults to the list's own reward range;
 * pass the game-level range for a subset (per model, per block) so rows stay comparable.
 */
export function judgeSteps(steps: readonly JudgedStep[], range?: RewardRange | null): JudgingStats {
  const rg = range === undefined ? rewardRange(steps.map((p) => p.r)) : range;
  const acc = emptyCounts();
  for (const p of steps) addStep(acc, p.s, p.r, rg);
  return judgingStats(acc, rg);
}

/** Pr(r > 0) and Pr(s > 0) over the scored steps of a set; null when none is scored. */
export function positiveRates(c: JudgingCounts): { p_r: number; p_s: number } | null {
  const scored = c.n - c.unscored;
  return scored > 0 ? { p_r: c.posR / scored, p_s: c.posS / scored } : null;
}

/**
 * Fewest scored steps on EACH side of r > 0 (reward > 0, and reward <= 0) a row needs before its
 * balanced accuracy and AUROC are printed: below it they are "not estimable". A handful of positive
 * steps makes either number jump by 1/k per step, and none makes it undefined.
 */
export const MIN_SIDE_STEPS = 10;

/** Scored steps with r > 0 (pos) and r <= 0 (neg) of a set. */
export function sideCounts(c: JudgingCounts): { pos: number; neg: number } {
  return { pos: c.posR, neg: c.n - c.unscored - c.posR };
}

/**
 * Balanced accuracy: the mean of the agreement on the r > 0 steps, Pr(s > 0 | r > 0), and on the
 * r <= 0 steps, Pr(s <= 0 | r <= 0), over scored steps (Agree's rule on each side). A constant
 * self-score gets exactly 0.5 however rare the positive steps are. Null when either side is empty.
 */
export function balancedAccuracy(c: JudgingCounts): number | null {
  const { pos, neg } = sideCounts(c);
  if (pos === 0 || neg === 0) return null;
  // r > 0 steps the model agreed on: posR - under; r <= 0 steps: neg - over.
  return ((pos - c.under) / pos + (neg - c.over) / neg) / 2;
}

/**
 * AUROC of the self-score for r > 0: the probability that a random r > 0 step has a higher s than a
 * random r <= 0 step, ties counting one half (the Mann-Whitney U over the product of the side
 * sizes). Unscored steps are left out. O(n log n): one sort, then a sweep over tie groups. Null when
 * either side is empty. A constant self-score gets exactly 0.5.
 */
export function auroc(steps: readonly JudgedStep[]): number | null {
  const scored = steps.filter((p) => p.s !== null && !Number.isNaN(p.s)).sort((a, b) => (a.s as number) - (b.s as number));
  let negBelow = 0;
  let pos = 0;
  let u = 0;
  for (let i = 0; i < scored.length; ) {
    const s = scored[i]!.s as number;
    let p = 0;
    let q = 0;
    for (; i < scored.length && scored[i]!.s === s; i++) {
      if (scored[i]!.r > 0) p++;
      else q++;
    }
    u += p * (negBelow + q / 2);
    negBelow += q;
    pos += p;
  }
  return pos === 0 || negBelow === 0 ? null : u / (pos * negBelow);
}
