/**
 * The gain columns of main_results and the null check (metrics.md, "Improvement against the
 * control"): per (model, game, pathway) row, gain_vs_y0 and gain_vs_none (gain.ts) with a paired
 * bootstrap interval over evaluation seeds (two-stage when the row holds several run seeds) and the
 * exact sign-flip p; the NABA mark for a y0 near 0; and, over the rows of instruments that cannot
 * learn, how many gain intervals exclude 0.
 */
import { bootstrapRng, pointOnly, DEFAULT_LEVEL, type BootstrapConfig, type Estimate } from "../stats/bootstrap.js";
import { flagEstimate } from "../stats/coverage.js";
import { clusterGains, concatGain, gainPoint, gainSignFlipInterval, gainVsNoneData, gainVsY0Data, type GainData } from "../metrics/gain.js";
import { estimandOf, meanTInterval, type Estimand } from "../stats/intervals.js";
import { sameSeeds, type SeedCurve } from "../stats/seedCurves.js";
import { DEFAULT_FLIPS } from "../stats/signFlip.js";
import { cannotLearn } from "./learnerPool.js";
import { parseModelSpec } from "../../models/modelSpec.js";

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
export function rowGainVsNone(
  curves: readonly SeedCurve[],
  control: readonly SeedCurve[],
  cfg: BootstrapConfig,
  key: readonly string[],
): GainEstimate & { unpaired: string[]; noSharedCheckpoint: string[] } {
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

/** A row as the null check reads it (the p-values are optional: rows without them count intervals only). */
export interface NullCheckRow {
  model: string;
  game: string;
  pathway: string;
  gain_vs_none: Estimate;
  gain_vs_y0: Estimate;
  gain_vs_none_p?: number | null;
  gain_vs_y0_p?: number | null;
}

/** A count of the null check: how many of `n` gains call noise an effect, against Binomial(n, 5%). */
export interface NullCount {
  /** Gains counted (intervals: those with an interval wider than a point; p-values: those with a p). */
  n: number;
  /** Of them, intervals that exclude 0 / p-values below NULL_EXPECTED. */
  hits: number;
  /** hits / n (null for n = 0). */
  share: number | null;
  /** P(X >= hits) for X ~ Binomial(n, NULL_EXPECTED). */
  p_binomial: number | null;
  /** The expected band: the central range of Binomial(n, NULL_EXPECTED) with at most NULL_ALPHA outside each side. */
  band: { lo: number; hi: number } | null;
  /** `above`: more hits than the band (the check fails); `below`: fewer (conservative, not a failure); `within`. */
  verdict: "above" | "within" | "below" | null;
}

/** What the null check found over the stochastic null's gains. */
export interface NullCheck {
  /** The interval count: gain intervals of the null rows (NULL_ROWS) that exclude 0. */
  intervals: number;
  excluding: number;
  share: number | null;
  p_binomial: number | null;
  /** The p-value count: exact sign-flip p-values of the same gains below NULL_EXPECTED. */
  p_values: NullCount;
  /** The interval count with its band (intervals / excluding above repeat its n / hits). */
  interval_count: NullCount;
  /**
   * False when either count lies above its band (more than 95% intervals or a 5% test allow: a failure
   * is reported however few the gains); null when neither failed but the intervals are fewer than
   * NULL_MIN_INTERVALS (not testable: so few cannot show a pass); else true.
   */
  pass: boolean | null;
  /** Whether the check rests on at least NULL_MIN_INTERVALS intervals. */
  testable: boolean;
  /** The first few gains that exclude 0 or have p < 0.05 (model / game / pathway: which gain). */
  examples: string[];
  /** Gain intervals of the null rows that are exactly [0, 0] (a gain that did not vary at all), not counted. */
  degenerate: number;
  /** Rows of deterministic built-ins that cannot learn (flat references), not counted. */
  flat_reference_rows: number;
  /** The models whose rows were counted. */
  models: string[];
}

/**
 * The fewest intervals a passed null check may rest on: with fewer, even a badly miscalibrated interval
 * method passes by chance (1 interval: no exclusion, "0 of 1", is what a broken method gives too).
 */
export const NULL_MIN_INTERVALS = 10;

/** Nominal share of 95% intervals that exclude a true 0, and of p-values below 0.05 under the null. */
export const NULL_EXPECTED = 0.05;
/** Each side of the expected band holds at most this binomial probability; above the band, the check fails. */
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

/**
 * The expected band of Binomial(n, p): the smallest hi with P(X > hi) <= alpha and the largest lo with
 * P(X < lo) <= alpha. A count above hi fails the check (upper-tail p below alpha); one below lo is
 * reported as conservative.
 */
export function binomialBand(n: number, p: number, alpha: number): { lo: number; hi: number } {
  let hi = 0;
  while (hi < n && binomialUpperTail(hi + 1, n, p) > alpha) hi++;
  let lo = 0;
  while (lo < n && 1 - binomialUpperTail(lo + 1, n, p) <= alpha) lo++;
  return { lo, hi };
}

function count(n: number, hits: number): NullCount {
  if (n === 0) return { n, hits, share: null, p_binomial: null, band: null, verdict: null };
  const band = binomialBand(n, NULL_EXPECTED, NULL_ALPHA);
  return { n, hits, share: hits / n, p_binomial: binomialUpperTail(hits, n, NULL_EXPECTED), band, verdict: hits > band.hi ? "above" : hits < band.lo ? "below" : "within" };
}

/**
 * Whether a model is a stochastic null: a built-in that cannot learn and draws independently at every
 * checkpoint and pathway (`?noise=independent`, models/modelSpec.ts), so its gains are noise around a
 * true 0 that a 95% interval excludes 5% of the time.
 */
export function isStochasticNull(model: string): boolean {
  if (!cannotLearn(model) || !model.startsWith("builtin:")) return false;
  try {
    const spec = parseModelSpec(model);
    return spec.scheme === "builtin" && (spec as { noise?: string }).noise === "independent";
  } catch {
    return false;
  }
}

/**
 * Which rows the null check counts: every gain of a stochastic null (any pathway), and the none row's
 * gain_vs_y0 of a model that is no built-in (a sampled LLM: drift alone, under sampling noise). Not
 * counted: the deterministic built-ins (random, heuristic, perfect-judge, ceiling, and the learner's
 * none rows), which replay the same draws at every checkpoint and pathway, so their gains are exactly 0
 * and their intervals [0, 0]: flat references that cannot exclude 0 whatever the interval method.
 */
export function nullRole(r: Pick<NullCheckRow, "model" | "pathway">): "counted" | "flat" | null {
  if (isStochasticNull(r.model)) return "counted";
  if (r.model.startsWith("builtin:")) return cannotLearn(r.model) || r.pathway === CONTROL_PATHWAY ? "flat" : null;
  return r.pathway === CONTROL_PATHWAY ? "counted" : null;
}

function excludesZero(e: Estimate): boolean | null {
  if (e.point === null || e.lo === null || e.hi === null) return null;
  return e.lo > 0 || e.hi < 0;
}

/**
 * The null check (metrics.md, "The null check"): over the null rows (nullRole), two counts, each
 * against Binomial(n, 5%): the gain intervals that exclude 0, and the sign-flip p-values of the same
 * gains below 0.05. Each has an expected band (at most NULL_ALPHA of the binomial on either side); the
 * check fails when either count lies above its band. Estimates without an interval, and intervals that
 * are exactly [0, 0], are not counted.
 */
export function nullCheck(rows: readonly NullCheckRow[]): NullCheck {
  let intervals = 0;
  let excluding = 0;
  let pN = 0;
  let pHits = 0;
  let degenerate = 0;
  let flat = 0;
  const models = new Set<string>();
  const examples: string[] = [];
  for (const r of rows) {
    const role = nullRole(r);
    if (role === "flat") flat++;
    if (role !== "counted") continue;
    models.add(r.model);
    const gains = [
      ["gain_vs_none", r.gain_vs_none, r.gain_vs_none_p],
      ["gain_vs_y0", r.gain_vs_y0, r.gain_vs_y0_p],
    ] as const;
    for (const [name, e, p] of gains) {
      const x = excludesZero(e);
      let hit = false;
      // [0, 0]: a gain that did not vary at all (a floor: every episode scored the same); it cannot
      // exclude 0 whatever the method, so it is no test of the method. A point elsewhere excludes 0: counted.
      if (x !== null && e.lo === 0 && e.hi === 0) degenerate++;
      else if (x !== null) {
        intervals++;
        if (x) {
          excluding++;
          hit = true;
        }
      }
      if (typeof p === "number" && Number.isFinite(p)) {
        pN++;
        if (p < NULL_EXPECTED) {
          pHits++;
          hit = true;
        }
      }
      if (hit && examples.length < 5) examples.push(`${r.model} / ${r.game} / ${r.pathway}: ${name}`);
    }
  }
  const ic = count(intervals, excluding);
  const pc = count(pN, pHits);
  const failed = ic.verdict === "above" || pc.verdict === "above";
  const testable = intervals >= NULL_MIN_INTERVALS;
  return {
    intervals,
    excluding,
    share: ic.share,
    p_binomial: ic.p_binomial,
    p_values: pc,
    interval_count: ic,
    pass: failed ? false : testable ? true : null,
    testable,
    examples,
    degenerate,
    flat_reference_rows: flat,
    models: [...models].sort(),
  };
}

/** One count as the line prints it: "k of n (s%; band lo-hi)". */
function countText(c: NullCount): string {
  return `${c.hits} of ${c.n} (${(100 * (c.share as number)).toFixed(1)}%; band ${c.band!.lo}-${c.band!.hi}${c.verdict === "above" ? ", ABOVE" : c.verdict === "below" ? ", below: conservative" : ""})`;
}

/** One line for a table's notes and the reproduction's summary. */
export function describeNullCheck(c: NullCheck): string {
  const rule = `Rule: each count is compared with Binomial(n, ${NULL_EXPECTED}) (what 95% intervals and a 5% test give on gains whose truth is 0); the band leaves at most ${NULL_ALPHA * 100}% of it on each side; a count above its band fails the check, one below it is conservative (wider intervals or a test that cannot reach 0.05 with so few seeds), not a failure. The gains of one row share its y0 and its none run, so the counts are not independent draws and the band is approximate.`;
  const flat = `${c.flat_reference_rows} row${c.flat_reference_rows === 1 ? "" : "s"} of deterministic built-ins that cannot learn (random, heuristic, perfect-judge, ceiling, the learner's none rows) are flat references, not counted: they replay the same draws at every checkpoint and pathway, so their gains are exactly 0.`;
  const deg =
    c.degenerate > 0
      ? ` ${c.degenerate} interval${c.degenerate === 1 ? " is" : "s are"} exactly [0, 0] (the gain did not vary: e.g. a game on which every episode scored the same) and not counted.`
      : "";
  const who = "the stochastic nulls (built-ins with ?noise=independent: every pathway, both gains) and the none rows' gain_vs_y0 of models that are not built-ins";
  if (c.intervals === 0 && c.p_values.n === 0) {
    return `Null check not testable (0 intervals): no gain of ${who} to count; add builtin:random?noise=independent and builtin:heuristic?noise=independent to --models (all pathways) to test the intervals on noise. ${flat}`;
  }
  const ic = c.interval_count.n > 0 ? `gain intervals that exclude 0: ${countText(c.interval_count)}` : "gain intervals that exclude 0: none to count";
  const pc = c.p_values.n > 0 ? `sign-flip p < 0.05: ${countText(c.p_values)}` : "sign-flip p < 0.05: none to count";
  const head = `over ${who} (${c.models.join(", ") || "none"}), ${ic}; ${pc}`;
  if (c.pass === null) {
    // With the nulls already played, adding them is no fix: their gains lack intervals because the
    // design has too few evaluation seeds for a covering interval (the paper's 3 per checkpoint).
    const fix = c.models.some(isStochasticNull)
      ? `the stochastic nulls were played, but ${c.intervals === 0 ? "none of their gains has" : `only ${c.intervals} of their gains ${c.intervals === 1 ? "has" : "have"}`} an interval: with few evaluation episodes per checkpoint (the paper's 3) a gain is printed without one; play more per checkpoint ('s3gym power' says how many; the default design of 's3gym reproduce' plays enough) to test the intervals`
      : "add the stochastic nulls, builtin:random?noise=independent and builtin:heuristic?noise=independent, on every pathway";
    return `Null check not testable (${c.intervals} interval${c.intervals === 1 ? "" : "s"}): ${head}; fewer than ${NULL_MIN_INTERVALS} intervals cannot show that the intervals cover 0 when nothing changes (${fix}).${deg} ${rule} ${flat}`;
  }
  const which = [c.interval_count.verdict === "above" ? "the intervals" : null, c.p_values.verdict === "above" ? "the p-values" : null].filter((x) => x !== null).join(" and ");
  return c.pass
    ? `Null check passed: ${head}.${deg} ${rule} ${flat}`
    : `NULL CHECK FAILED: ${head}: ${which} call noise an effect more often than 95% intervals or a 5% test may; do not read the gains of this table as evidence until the cause is found (e.g. ${c.examples.join("; ")}).${deg} ${rule} ${flat}`;
}
