/**
 * The gain columns of main_results and the null check (metrics.md, "Improvement against the
 * control"): per (model, game, pathway) row, gain_vs_y0 and gain_vs_none (gain.ts) with a paired
 * bootstrap interval over evaluation seeds (two-stage when the row holds several run seeds) and the
 * exact sign-flip p; the NABA mark for a y0 near 0; and, over the rows of instruments that cannot
 * learn, how many gain intervals exclude 0.
 */
import { bootstrapRng, pointOnly, DEFAULT_LEVEL, type BootstrapConfig, type Estimate } from "./bootstrap.js";
import { flagEstimate } from "./coverage.js";
import { clusterGains, concatGain, gainPoint, gainSignFlipInterval, gainVsNoneData, gainVsY0Data, type GainData } from "./gain.js";
import { estimandOf, meanTInterval, type Estimand } from "./intervals.js";
import { sameSeeds, type SeedCurve } from "./seedCurves.js";
import { DEFAULT_FLIPS } from "./signFlip.js";
import { cannotLearn } from "./learnerPool.js";

/** The no-experience control pathway every gain_vs_none is measured against. */
export const CONTROL_PATHWAY = "none";

/** A gain with its interval and the p of the test the interval inverts. */
export interface GainEstimate {
  estimate: Estimate;
  p: number | null;
  /**
   * The test behind p and the interval: `sign-flip` (evaluation seeds flipped, exact or seeded Monte
   * Carlo; the interval is its inversion) or `t over runs` (two or more run seeds resampled as runs).
   */
  test?: GainTest;
  /** What the interval covers (intervals.ts estimandOf). */
  estimand?: Estimand;
  /** True when the test cannot reject at any shift (too few seeds): no interval is printed. */
  unbounded?: boolean;
}

export type GainTest = "sign-flip" | "t over runs";

const NO_GAIN: GainEstimate = { estimate: pointOnly(null), p: null };

/**
 * Interval and p of a gain's seed-level data (null data: no gain), one test behind both so that "the
 * interval excludes 0" and "p < 0.05" are the same statement:
 * - one run, or several kept fixed (`runsFixed`: the judge swap's rejudged evidence): the exact
 *   sign-flip test over evaluation seeds (signFlip.ts; seeded Monte Carlo above EXACT_MAX_SEEDS
 *   seeds) and its inversion; it covers these runs' expected gain over new evaluation seeds. With 5
 *   or fewer seeds the test cannot reject (p >= 2/32) and no interval is printed;
 * - two or more runs drawn as runs (the model as estimand): the t interval over the runs' own gains
 *   (df = runs - 1) and its t test, which carry the run-to-run variance a seed-level test leaves out.
 */
export function estimateGain(g: GainData | null, cfg: BootstrapConfig, key: readonly string[], o: { runsFixed?: boolean } = {}): GainEstimate {
  if (g === null) return NO_GAIN;
  const point = gainPoint(g);
  if (point === null) return NO_GAIN;
  const level = cfg.level ?? DEFAULT_LEVEL;
  const runs = clusterGains(g).filter(Number.isFinite);
  const estimand = estimandOf(runs.length, { runsFixed: o.runsFixed === true });
  if (estimand === "model") {
    const t = meanTInterval(runs, level);
    if (t !== null) {
      if (cfg.B === 0) return { estimate: { point, lo: null, hi: null }, p: t.p, test: "t over runs", estimand };
      return { estimate: flagEstimate({ point, lo: t.lo, hi: t.hi, n: runs.length }, "gain_runs"), p: t.p, test: "t over runs", estimand };
    }
  }
  const inv = gainSignFlipInterval(g, DEFAULT_FLIPS, bootstrapRng(cfg.seed, "gain-flips", ...key), level);
  if (inv === null) return NO_GAIN;
  const base = { p: inv.p, test: "sign-flip" as const, estimand };
  if (cfg.B === 0) return { estimate: { point, lo: null, hi: null }, ...base };
  if (!Number.isFinite(inv.lo) || !Number.isFinite(inv.hi)) return { estimate: { point, lo: null, hi: null, n: g.n }, ...base, unbounded: true };
  return { estimate: flagEstimate({ point, lo: inv.lo, hi: inv.hi, n: g.n }, "gain"), ...base };
}

/** gain_vs_y0 of a row: its runs' seed-level data, each run a cluster. */
export function rowGainVsY0(curves: readonly SeedCurve[], cfg: BootstrapConfig, key: readonly string[]): GainEstimate {
  const parts = curves.map(gainVsY0Data).filter((g): g is GainData => g !== null);
  return estimateGain(concatGain(parts), cfg, ["y0", ...key]);
}

/**
 * gain_vs_none of a row: each run paired with the control run on the same evaluation seeds (the same
 * run seed); runs without such a partner are left out and named in `unpaired`, runs whose partner
 * shares no checkpoint at x >= 3 with them in `noSharedCheckpoint`.
 */
export function rowGainVsNone(curves: readonly SeedCurve[], control: readonly SeedCurve[], cfg: BootstrapConfig, key: readonly string[]): GainEstimate & { unpaired: string[]; noSharedCheckpoint: string[] } {
  const parts: GainData[] = [];
  const unpaired: string[] = [];
  const noSharedCheckpoint: string[] = [];
  for (const sc of curves) {
    const partner = control.find((c) => sameSeeds(c, sc));
    const g = partner === undefined ? null : gainVsNoneData(sc, partner);
    if (partner === undefined) unpaired.push(sc.run_id);
    else if (g === null) noSharedCheckpoint.push(sc.run_id);
    else parts.push(g);
  }
  return { ...estimateGain(concatGain(parts), cfg, ["none", ...key]), unpaired, noSharedCheckpoint };
}

/** Share of the game's score range within which a y0 counts as near 0 (metrics.md). */
export const Y0_NEAR_ZERO = 0.05;
/** The mark on a NABA whose y0 is near 0. */
export const Y0_MARK = "†y0~0";

/** Whether y0 lies within 5% of the game's score range (over the data) from 0; false for a range of 0. */
export function y0NearZero(y0: number | null, range: { min: number; max: number } | undefined): boolean {
  if (y0 === null || range === undefined) return false;
  const width = range.max - range.min;
  return width > 0 && Math.abs(y0) <= Y0_NEAR_ZERO * width;
}


/** A row as the null check reads it. */
export interface NullCheckRow {
  model: string;
  game: string;
  pathway: string;
  gain_vs_none: Estimate;
  gain_vs_y0: Estimate;
}

/** What the null check found over the null's gain intervals. */
export interface NullCheck {
  /** Gain intervals of the null (rows of instruments that cannot learn, and every control row). */
  intervals: number;
  /** Of them, those that exclude 0. */
  excluding: number;
  /** excluding / intervals (null without intervals). */
  share: number | null;
  /** P(X >= excluding) for X ~ Binomial(intervals, 0.05): how surprising the count is for 95% intervals. */
  p_binomial: number | null;
  /**
   * False when p_binomial < NULL_ALPHA: more exclusions than 95% intervals allow (a failure is
   * reported however few the intervals); null when it did not fail but rests on fewer than
   * NULL_MIN_INTERVALS intervals: not testable, since so few cannot show a pass; else true.
   */
  pass: boolean | null;
  /** Whether the check rests on at least NULL_MIN_INTERVALS intervals. */
  testable: boolean;
  /** The first few gains that exclude 0 (model / game / pathway: which gain). */
  examples: string[];
}

/**
 * The fewest intervals a passed null check may rest on: with fewer, even a badly miscalibrated interval
 * method passes by chance (1 interval: no exclusion, "0 of 1", is what a broken method gives too).
 */
export const NULL_MIN_INTERVALS = 10;

/** Nominal share of 95% intervals that exclude a true 0. */
export const NULL_EXPECTED = 0.05;
/** The check fails when the exclusion count has a binomial upper-tail p below this. */
export const NULL_ALPHA = 0.01;

/** P(X >= k) for X ~ Binomial(n, p), summed in log space (n up to thousands). */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  let logC = 0; // log C(n, 0)
  let total = 0;
  for (let i = 0; i <= n; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    if (i >= k) total += Math.exp(logC + i * Math.log(p) + (n - i) * Math.log1p(-p));
  }
  return Math.min(1, total);
}

function excludesZero(e: Estimate): boolean | null {
  if (e.point === null || e.lo === null || e.hi === null) return null;
  return e.lo > 0 || e.hi < 0;
}

/**
 * The null check: every gain interval of a row that cannot show a real gain (an instrument that
 * cannot learn, any pathway; or any model's control pathway, whose gain_vs_y0 is drift alone) counts;
 * about 5% should exclude 0. Estimates without an interval are not counted.
 */
export function nullCheck(rows: readonly NullCheckRow[]): NullCheck {
  let intervals = 0;
  let excluding = 0;
  const examples: string[] = [];
  for (const r of rows) {
    if (!cannotLearn(r.model) && r.pathway !== CONTROL_PATHWAY) continue;
    for (const [name, e] of [["gain_vs_none", r.gain_vs_none], ["gain_vs_y0", r.gain_vs_y0]] as const) {
      const x = excludesZero(e);
      if (x === null) continue;
      intervals++;
      if (x) {
        excluding++;
        if (examples.length < 5) examples.push(`${r.model} / ${r.game} / ${r.pathway}: ${name}`);
      }
    }
  }
  const p = intervals === 0 ? null : binomialUpperTail(excluding, intervals, NULL_EXPECTED);
  const failed = p !== null && p < NULL_ALPHA;
  const testable = intervals >= NULL_MIN_INTERVALS;
  return { intervals, excluding, share: intervals === 0 ? null : excluding / intervals, p_binomial: p, pass: failed ? false : testable ? true : null, testable, examples };
}

/** One line for a table's notes and the reproduction's summary. */
export function describeNullCheck(c: NullCheck): string {
  if (c.intervals === 0) return "Null check not testable (0 intervals): no gain interval of a built-in that cannot learn (random, heuristic, perfect-judge, ceiling) or of a control (none) run to count.";
  const pct = (100 * (c.share as number)).toFixed(1);
  const head = `${c.excluding} of ${c.intervals} gain intervals of the null (random, heuristic, perfect-judge, ceiling, and every model's none pathway) exclude 0 (${pct}%; expected about ${Math.round(NULL_EXPECTED * 100)}%, binomial p = ${(c.p_binomial as number).toPrecision(2)})`;
  if (c.pass === null) {
    return `Null check not testable (${c.intervals} interval${c.intervals === 1 ? "" : "s"}): ${head}; fewer than ${NULL_MIN_INTERVALS} intervals cannot show that the intervals cover 0 when nothing changes (add a none run per model and game, more games, or a built-in instrument such as builtin:random).`;
  }
  return c.pass
    ? `Null check passed: ${head}.`
    : `NULL CHECK FAILED: ${head}: the intervals call noise an effect more often than 95% intervals may; do not read the gains of this table as evidence until the cause is found (e.g. ${c.examples.join("; ")}).`;
}
