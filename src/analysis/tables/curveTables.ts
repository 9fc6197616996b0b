/**
 * Curve tables: main results (paper Table 4), summary vs history (Table 7, dNABA), training (Figure 7's
 * numbers), and the per-checkpoint series the curve figures draw.
 *
 * Rows are (model, game, pathway) groups. The protocol has one run per group; when a data set holds
 * several (replicate run seeds), a row's metric is the mean over its runs of the per-run metric (runs
 * where the metric is missing are left out), and the bootstrap averages the runs' replicates alike.
 */
import type { Rng } from "../../util/rng.js";
import {
  DEFAULT_LEVEL,
  bootstrapRng,
  describeBootstrap,
  estimate,
  methodOf,
  gainTallyMethod,
  MethodTally,
  percentileInterval,
  pointOnly,
  resampleMean,
  type BootstrapConfig,
  type Estimate,
} from "../stats/bootstrap.js";
import { flagEstimate, smallNNote } from "../stats/coverage.js";
import {
  ANY_RANGE,
  NONNEGATIVE_RANGE,
  drawWeights,
  intervalInRange,
  observedRange,
  runsHullInterval,
  runsMeanInterval,
  simpleDesign,
  studentizedHullInterval,
  tableInterval,
  tableIntervalMany,
  type StatRange,
} from "../stats/intervals.js";
import { curveBuffers, curveMetricsUnderWeights, curveStatistic, curveUnderWeights, sameSeeds, seedCurve, seedStream, type CurveBuffers, type SeedCurve } from "../stats/seedCurves.js";
import { checkpointZeroScores, nabaUnstableNote, NABA_UNSTABLE_MARK, y0Unstable } from "../metrics/nabaStability.js";
import { pairCurves, pairedMetricEstimate, type PairedEstimate } from "../metrics/pairedCurves.js";
import { CONTROL_PATHWAY, describeNullCheck, estimateGain, nullCheck, rowGainVsNone, rowGainVsY0, y0NearZero } from "./gainTables.js";
import { GAIN_FROM_X, gainVsNoneData, type GainData } from "../metrics/gain.js";
import { NON_LEARNERS, poolOf } from "./learnerPool.js";
import { TIE_EPS, curveMetrics, curveMetricsSorted, curveY0, summarizeDeltas, trainingMetrics, type CurveMetrics, type TrainingMetrics } from "../metrics/curves.js";
import { estimandNote, estimandOf } from "../stats/estimand.js";
import { compareText, type Dataset, type RunData } from "../load/dataset.js";
import { distinct, groupBy, isTraining, requiredGames, runCurve } from "../load/runs.js";
import { withInstrumentNote } from "./instruments.js";
import type { Table } from "./table.js";

const METRICS = ["avg", "max", "auc_plus", "naba"] as const;
type MetricName = (typeof METRICS)[number];

/** A row of main_results. */
export interface MainResultsRow {
  model: string;
  game: string;
  pathway: string;
  /** Valid checkpoints (summed over the row's runs). */
  n_checkpoints: number;
  /** Evaluation seeds the intervals rest on (the fewest over the row's runs). */
  n_seeds: number;
  avg: Estimate;
  max: Estimate;
  auc_plus: Estimate;
  naba: Estimate;
  /** Mean over x >= 3 of y(x) - y0 (gain.ts): signed, paired on seeds, with its interval. */
  gain_vs_y0: Estimate;
  /** Exact sign-flip p of gain_vs_y0 (null without a gain). */
  gain_vs_y0_p: number | null;
  /** Mean over x >= 3 of y(x) - y_none(x) against the same model's none run on the same seeds; missing on the none row itself. */
  gain_vs_none: Estimate;
  /** Exact sign-flip p of gain_vs_none. */
  gain_vs_none_p: number | null;
  /** AUC+(row) - AUC+(none) on the same evaluation seeds (pairedCurves.ts): AUC+ calibrated against noise. */
  auc_plus_vs_none: Estimate;
  auc_plus_vs_none_p: number | null;
  /** Max(row) - Max(none) on the same evaluation seeds. */
  max_vs_none: Estimate;
  max_vs_none_p: number | null;
  /** y0 (mean over the row's runs); a NABA is marked when it lies near 0 (gainTables.ts y0NearZero). */
  y0: number | null;
  /** The run_ids behind the row. */
  runs: string[];
  /** False when the model lacks results on some game of the data set (see `incompleteModels`). */
  complete: boolean;
  /** One run: Avg's hull left the observed scores, so the seed bootstrap's interval stands (flagged by its own coverage). */
  avgFellBack?: boolean;
}

/** One point of a curve figure: the row's mean y(x) with its bootstrap band. */
export interface SeriesPoint {
  x: number;
  y: number;
  lo: number | null;
  hi: number | null;
  /** Runs with a valid checkpoint at x, and the evaluation episodes behind y. */
  n_runs: number;
  n_episodes: number;
}

/** The curve of a (model, game, pathway) row, for the figures. */
export interface CurveSeries {
  model: string;
  game: string;
  pathway: string;
  points: SeriesPoint[];
}

/** Everything the curve bootstrap produces, shared by the main table, dNABA and the figures. */
export interface CurveAnalysis {
  rows: MainResultsRow[];
  series: CurveSeries[];
  /** Per row key `model|game|pathway`: NABA replicates (mean over the row's runs), null when missing. */
  nabaReplicates: Map<string, Float64Array | null>;
  /** model -> games it lacks (only incomplete models appear). */
  incompleteModels: Map<string, string[]>;
  /** The games the completeness rule requires (requiredGames of the data set, or of the reference set passed in). */
  games: string[];
  /** Human-readable remarks for the notes. */
  remarks: string[];
  /** run_id -> its evaluation-seed view (what the curve bootstrap drew from). */
  seedCurves: Map<string, SeedCurve>;
  /** The interval methods the rows' estimates used (named under main_results). */
  methods: MethodTally;
}

/** The row key of a (model, game, pathway) group. */
export function rowKey(model: string, game: string, pathway: string): string {
  return `${model}|${game}|${pathway}`;
}

/**
 * Bootstrap replicates of a row's curve metrics (metrics.md, "Uncertainty"). The unit is the
 * EVALUATION SEED: a replicate draws seed multiplicities once (seedStream: shared by every run of the
 * game with the same seed list, so paired rows see the same draw) and uses them at every checkpoint.
 * With several runs in the row (replicate run seeds) it is two-stage: runs are drawn first (their own
 * stream), then each run's seeds; a run's seed stream advances once per replicate whether or not the
 * run was drawn, so pairing across rows holds draw by draw.
 * Calls `onReplicate(b, k, mult, metrics, buf, n)` for each run k with multiplicity mult > 0.
 */
export function bootstrapRowCurves(
  key: string,
  curves: readonly SeedCurve[],
  cfg: BootstrapConfig,
  onReplicate: (b: number, k: number, mult: number, m: CurveMetrics, buf: CurveBuffers, n: number) => void,
): void {
  const R = curves.length;
  const streams = curves.map((sc) => seedStream(cfg.seed, sc));
  const bufs = curves.map(curveBuffers);
  const weights = curves.map((sc) => new Int32Array(sc.keys.length));
  const runW = new Int32Array(R);
  const runRng = bootstrapRng(cfg.seed, "curve-runs", key);
  const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  for (let b = 0; b < cfg.B; b++) {
    if (R === 1) runW[0] = 1;
    else drawWeights(runRng, R, runW);
    for (let k = 0; k < R; k++) {
      const sc = curves[k] as SeedCurve;
      const w = weights[k] as Int32Array;
      drawWeights(streams[k] as Rng, sc.keys.length, w);
      const mult = runW[k] as number;
      if (mult === 0 || sc.xs.length === 0) continue;
      const buf = bufs[k] as CurveBuffers;
      const { n, hasY0 } = curveUnderWeights(sc, w, buf);
      curveMetricsSorted(buf.xs, buf.ys, n, hasY0, m);
      onReplicate(b, k, mult, m, buf, n);
    }
  }
}

/**
 * Runs the curve bootstrap over every non-training (model, game, pathway) group of the data set.
 * Completeness: a model is complete when it has a row with at least one valid checkpoint on every
 * game of `games`: by default every game that has a non-training run in `ds` (requiredGames); when
 * `ds` is a model-filtered view, pass requiredGames of the whole data set, so that selecting a model
 * alone does not make it complete.
 */
export function analyzeCurves(ds: Dataset, cfg: BootstrapConfig, games: readonly string[] = requiredGames(ds)): CurveAnalysis {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const runs = ds.runs.filter((r) => !isTraining(r));
  const groups = groupBy(runs, (r) => rowKey(r.model, r.game, r.pathway));
  const rows: MainResultsRow[] = [];
  const series: CurveSeries[] = [];
  const nabaReplicates = new Map<string, Float64Array | null>();
  const remarks: string[] = [];
  const seedCurves = new Map<string, SeedCurve>();
  // The last checkpoint of a game's schedule (the largest x any of its runs recorded): a run whose last
  // valid checkpoint is earlier has a shorter AUC+ range, which the table marks.
  const lastX = new Map<string, number>();
  for (const r of runs) for (const c of r.checkpoints) lastX.set(r.game, Math.max(lastX.get(r.game) ?? 0, c.x));
  const byEpisode: string[] = [];
  const shortened: string[] = [];
  const methods = new MethodTally();

  for (const [key, members] of groups) {
    const first = members[0] as RunData;
    const curves = members.map(seedCurve);
    for (const sc of curves) seedCurves.set(sc.run_id, sc);
    for (const sc of curves) if (sc.pairedBy === "episode" && sc.xs.length > 0) byEpisode.push(sc.run_id);
    const points = members.map((r) => curveMetrics(runCurve(r)));
    const B = cfg.B;
    // Replicate sums over the drawn runs where each metric is defined, with their weights.
    const sums: Record<MetricName, Float64Array> = {
      avg: new Float64Array(B),
      max: new Float64Array(B),
      auc_plus: new Float64Array(B),
      naba: new Float64Array(B),
    };
    const wsum: Record<MetricName, Float64Array> = {
      avg: new Float64Array(B),
      max: new Float64Array(B),
      auc_plus: new Float64Array(B),
      naba: new Float64Array(B),
    };
    const band = new Map<number, { sum: Float64Array; w: Float64Array; pointSum: number; n: number; episodes: number }>();
    for (const run of members) {
      for (const c of run.checkpoints) {
        if (!c.valid) continue;
        const slot = band.get(c.x) ?? { sum: new Float64Array(B), w: new Float64Array(B), pointSum: 0, n: 0, episodes: 0 };
        slot.pointSum += c.scores.reduce((a, b) => a + b, 0) / c.scores.length;
        slot.n++;
        slot.episodes += c.scores.length;
        band.set(c.x, slot);
      }
    }
    bootstrapRowCurves(key, curves, cfg, (b, _k, mult, m, buf, n) => {
      for (const name of METRICS) {
        const v = m[name];
        if (v === null) continue;
        (sums[name] as Float64Array)[b] += mult * v;
        (wsum[name] as Float64Array)[b] += mult;
      }
      for (let i = 0; i < n; i++) {
        const slot = band.get(buf.xs[i] as number);
        if (slot === undefined) continue;
        (slot.sum as Float64Array)[b] += mult * (buf.ys[i] as number);
        (slot.w as Float64Array)[b] += mult;
      }
    });
    const nSeeds = Math.min(...curves.map((c) => c.keys.length));
    // The scores of the row's runs: the bound of Avg's interval over runs (runsEstimate).
    const runScores = members.length >= 2 ? observedRange(Float64Array.from(curves.flatMap((c) => Array.from(c.scores)))) : ANY_RANGE;
    const last = lastX.get(first.game) ?? 0;
    const est = (name: MetricName): Estimate => {
      const defined = points.map((p) => p[name]).filter((v): v is number => v !== null);
      if (defined.length === 0) return pointOnly(null);
      const point = defined.reduce((a, b) => a + b, 0) / defined.length;
      if (B === 0) return pointOnly(point);
      const reps = sums[name].map((v, b) => ((wsum[name][b] as number) > 0 ? v / (wsum[name][b] as number) : Number.NaN));
      // Several runs: NABA prints no interval (runsEstimate), so neither does dNABA in Table 7.
      if (name === "naba") nabaReplicates.set(key, members.length >= 2 ? null : reps);
      const e: Estimate = { ...estimate(point, reps, level), n: nSeeds };
      if (members.length >= 2 && name !== "max") return runsEstimate(e, name, defined, runScores, level);
      return flagEstimate(e, name);
    };
    const row: MainResultsRow = {
      model: first.model,
      game: first.game,
      pathway: first.pathway,
      n_checkpoints: members.reduce((a, r) => a + r.checkpoints.filter((c) => c.valid).length, 0),
      n_seeds: Number.isFinite(nSeeds) ? nSeeds : 0,
      avg: est("avg"),
      max: est("max"),
      auc_plus: est("auc_plus"),
      naba: est("naba"),
      // Filled once every row exists (gain_vs_none needs the control row): see addGains.
      gain_vs_y0: pointOnly(null),
      gain_vs_y0_p: null,
      gain_vs_none: pointOnly(null),
      gain_vs_none_p: null,
      auc_plus_vs_none: pointOnly(null),
      auc_plus_vs_none_p: null,
      max_vs_none: pointOnly(null),
      max_vs_none_p: null,
      y0: meanOf(members.map((r) => curveY0(runCurve(r)))),
      runs: members.map((r) => r.run_id),
      complete: true,
    };
    // A failed (or missing) last checkpoint shortens AUC+'s range: say so beside the number.
    const ends = curves.map((c) => (c.xs.length > 0 ? (c.xs[c.xs.length - 1] as number) : 0));
    const end = Math.max(...ends);
    if (row.auc_plus.point !== null && end < last) {
      row.auc_plus = { ...row.auc_plus, mark: `to x=${end}` };
      row.naba = { ...row.naba, mark: `to x=${end}` };
      shortened.push(`${first.model} / ${first.game} / ${first.pathway} (0..${end} instead of 0..${last})`);
    }
    // The measured default method (bootstrap-t) for a single run: seeds are one simple design. The
    // same stream as above, so paired rows still see the same draws.
    const method = methodOf(cfg, "curve");
    const only = curves[0] as SeedCurve;
    if (members.length === 1 && method !== "percentile" && B > 0 && METRICS.some((name) => row[name].point !== null)) {
      // The four metrics of one weighted curve at once, over one pass of the draws (each as alone).
      const buf = curveBuffers(only);
      const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
      const stats = (w: ArrayLike<number>, out: Float64Array): void => {
        curveMetricsUnderWeights(only, w, buf, m);
        METRICS.forEach((name, j) => (out[j] = m[name] ?? Number.NaN));
      };
      // Avg and Max stay within the run's observed scores; AUC+ and NABA are >= 0.
      const scores = observedRange(only.scores);
      const ranges: StatRange[] = [scores, scores, NONNEGATIVE_RANGE, NONNEGATIVE_RANGE];
      const r = tableIntervalMany(simpleDesign(only.keys.length), stats, METRICS.length, B, seedStream(cfg.seed, only), method, level, ranges);
      METRICS.forEach((name, j) => {
        const e = row[name];
        if (e.point === null) return;
        row[name] = { ...e, lo: r[j]!.interval.lo, hi: r[j]!.interval.hi };
        // Max's interval is dropped below (no method covers it): it is not one the table prints.
        if (name !== "max") methods.add(r[j]!.method, r[j]!.fellBack);
      });
    } else if (B > 0)
      for (const name of METRICS) if (name !== "max" && row[name].point !== null && row[name].lo !== null) methods.add(members.length < 2 ? "percentile" : name === "avg" ? "truns" : "runshull");
    if (B > 0) {
      const avg = avgInterval(row.avg, curves, cfg, level);
      if (members.length === 1 && avg === row.avg && row.avg.lo !== null) row.avgFellBack = true;
      row.avg = avg;
      // Max: no interval covers (bench/coverage: percentile 11% at 10 seeds): the point alone.
      if (row.max.point !== null) row.max = { point: row.max.point, lo: null, hi: null };
    }
    if (!nabaReplicates.has(key)) nabaReplicates.set(key, null);
    rows.push(row);
    if (members.length > 1)
      remarks.push(
        `${first.model} / ${first.game} / ${first.pathway}: mean of ${members.length} runs (Avg: the t interval over the runs' Avgs; AUC+: its hull with the two-stage bootstrap, runs then evaluation seeds; NABA: the point alone; the curve band: the two-stage bootstrap)`,
      );
    const pts: SeriesPoint[] = [...band.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([x, s]) => {
        const iv =
          B > 0
            ? percentileInterval(
                s.sum.map((v, b) => ((s.w[b] as number) > 0 ? v / (s.w[b] as number) : Number.NaN)),
                level,
              )
            : { lo: null, hi: null };
        return { x, y: s.pointSum / s.n, lo: iv.lo, hi: iv.hi, n_runs: s.n, n_episodes: s.episodes };
      });
    series.push({ model: first.model, game: first.game, pathway: first.pathway, points: pts });
  }
  remarks.push(...addGains(rows, seedCurves, scoreRanges(runs), cfg, methods));
  // The calibrated columns' intervals (the curve family's method) count under the table too; the gains' by their test (addGains).
  for (const r of rows)
    for (const e of [r.auc_plus_vs_none, r.max_vs_none]) if (e.point !== null && e.lo !== null && e.hi !== null && !(e.n === 1 && e.lo === e.hi)) methods.add(methodOf(cfg, "curve"));
  if (shortened.length > 0) remarks.push(`AUC+ and NABA marked "to x=..." stop at an earlier checkpoint because the last one failed or is missing: ${shortened.join("; ")}.`);
  if (byEpisode.length > 0) remarks.push(`Runs whose evaluation scores carry no seeds (checkpoint records only): seeds paired by episode index: ${byEpisode.join(", ")}.`);

  const has = new Map<string, Set<string>>();
  for (const r of rows) {
    if (r.n_checkpoints === 0) continue;
    const set = has.get(r.model) ?? new Set<string>();
    set.add(r.game);
    has.set(r.model, set);
  }
  const incompleteModels = new Map<string, string[]>();
  for (const model of distinct(rows.map((r) => r.model))) {
    const missing = games.filter((g) => !has.get(model)?.has(g));
    if (missing.length > 0) incompleteModels.set(model, missing);
  }
  for (const r of rows) r.complete = !incompleteModels.has(r.model);
  rows.sort((a, b) => compareText(a.model, b.model) || compareText(a.game, b.game) || compareText(a.pathway, b.pathway));
  series.sort((a, b) => compareText(a.game, b.game) || compareText(a.model, b.model) || compareText(a.pathway, b.pathway));
  return { rows, series, nabaReplicates, incompleteModels, games: [...games], remarks, seedCurves, methods };
}

/**
 * Avg's, AUC+'s or NABA's interval in a row of two or more run seeds (metrics.md, "Intervals"): the
 * model's expected statistic at this design (over run seeds and evaluation seeds), by the method
 * bench/coverage measured covering it in every shape at 3 runs x 10 evaluation seeds:
 * - Avg: the t interval over the runs' Avgs, cut at the scores the runs observed (runsMeanInterval);
 * - AUC+: the hull of that t interval (cut at 0) and the row's two-stage percentile interval `e`
 *   (runs drawn, then evaluation seeds): runsHullInterval. Each alone missed in some shapes;
 * - NABA: none (no candidate covered in every shape: where a run's y0 can come near 0 its expected
 *   value barely exists), so the point alone, as Max.
 * `n` is the run count, and the flag is the coverage measured over runs. Fewer than 2 runs with a
 * value: the seed-level estimate `e`, flagged by its own metric.
 */
export function runsEstimate(e: Estimate, name: "avg" | "auc_plus" | "naba", runValues: readonly number[], scores: StatRange, level = DEFAULT_LEVEL): Estimate {
  if (e.point === null) return e;
  if (name === "naba") return { point: e.point, lo: null, hi: null };
  if (runValues.length < 2) return flagEstimate(e, name);
  const t = runsMeanInterval(runValues, name === "avg" ? scores : NONNEGATIVE_RANGE, level);
  const iv = name === "avg" ? (t === null ? { lo: null, hi: null } : { lo: t.lo, hi: t.hi }) : runsHullInterval(t, { lo: e.lo, hi: e.hi });
  return flagEstimate({ point: e.point, lo: iv.lo, hi: iv.hi, n: runValues.length }, name === "avg" ? "avg_runs" : "auc_plus_runs");
}

/**
 * Avg's interval at one run (metrics.md, "Avg"): the hull of the equal-tailed and the symmetric
 * studentized bootstraps over its evaluation seeds, never narrower than the t interval (intervals.ts;
 * this run's expected Avg). Flagged by Avg's measured coverage at its unit count. Rows of several
 * runs have theirs from runsEstimate.
 */
function avgInterval(e: Estimate, curves: readonly SeedCurve[], cfg: BootstrapConfig, level: number): Estimate {
  if (e.point === null || curves.length !== 1) return e;
  // An interval never leaves the observed scores (metrics.md): where the hull would, the percentile
  // interval of the same row stands instead, as tableInterval does.
  const scores = observedRange(curves.flatMap((c) => Array.from(c.scores)));
  const inRange = (lo: number, hi: number): boolean => intervalInRange({ lo, hi }, scores);
  const only = curves[0] as SeedCurve;
  const buf = curveBuffers(only);
  const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  const stat = (w: Int32Array): number => curveMetricsUnderWeights(only, w, buf, m).avg ?? Number.NaN;
  const r = studentizedHullInterval(simpleDesign(only.keys.length), stat, cfg.B, bootstrapRng(cfg.seed, "avg-t", only.run_id), level);
  if (r === null || !inRange(r.lo, r.hi)) return e;
  return flagEstimate({ point: e.point, lo: r.lo, hi: r.hi, n: only.keys.length }, "avg_hull");
}

/** The mean of the defined values; null when none is. */
function meanOf(values: readonly (number | null)[]): number | null {
  const d = values.filter((v): v is number => v !== null);
  return d.length === 0 ? null : d.reduce((a, b) => a + b, 0) / d.length;
}

/** Each game's score range over the data: min and max of every valid evaluation score. */
function scoreRanges(runs: readonly RunData[]): Map<string, { min: number; max: number }> {
  const out = new Map<string, { min: number; max: number }>();
  for (const r of runs)
    for (const c of r.checkpoints) {
      if (!c.valid) continue;
      const rg = out.get(r.game) ?? { min: Infinity, max: -Infinity };
      for (const v of c.scores) {
        rg.min = Math.min(rg.min, v);
        rg.max = Math.max(rg.max, v);
      }
      out.set(r.game, rg);
    }
  return out;
}

/**
 * Fills every row's gain_vs_y0 and gain_vs_none (the control row of the same model and game is the
 * partner) and marks a NABA whose y0 is near 0. Returns remarks for the notes.
 */
function addGains(rows: MainResultsRow[], seedCurves: ReadonlyMap<string, SeedCurve>, ranges: ReadonlyMap<string, { min: number; max: number }>, cfg: BootstrapConfig, methods: MethodTally): string[] {
  const tally = (e: { estimate: Estimate; test?: "sign-flip" | "t over runs" }): void => {
    if (e.estimate.point !== null && e.estimate.lo !== null && e.estimate.hi !== null) methods.add(gainTallyMethod(e.test));
  };
  const curvesOf = (r: MainResultsRow): SeedCurve[] => r.runs.map((id) => seedCurves.get(id)).filter((c): c is SeedCurve => c !== undefined);
  const control = new Map(rows.filter((r) => r.pathway === CONTROL_PATHWAY).map((r) => [`${r.model}|${r.game}`, r]));
  const unpaired: string[] = [];
  const marked: string[] = [];
  // Empty gain cells by the control they lack, so no empty cell goes unexplained.
  const noControl: string[] = [];
  const noSharedX: string[] = [];
  const noY0: string[] = [];
  for (const row of rows) {
    const key = [row.model, row.game, row.pathway];
    const y0 = rowGainVsY0(curvesOf(row), cfg, key);
    row.gain_vs_y0 = y0.estimate;
    row.gain_vs_y0_p = y0.p;
    tally(y0);
    const ctrl = control.get(`${row.model}|${row.game}`);
    if (row.pathway !== CONTROL_PATHWAY && ctrl !== undefined) {
      const g = rowGainVsNone(curvesOf(row), curvesOf(ctrl), cfg, key);
      row.gain_vs_none = g.estimate;
      row.gain_vs_none_p = g.p;
      tally(g);
      const cal = calibratedVsNone(curvesOf(row), curvesOf(ctrl), cfg, key);
      row.auc_plus_vs_none = flagEstimate(cal.auc_plus.estimate, "auc_plus");
      row.auc_plus_vs_none_p = cal.auc_plus.p;
      row.max_vs_none = flagEstimate(cal.max.estimate, "max");
      row.max_vs_none_p = cal.max.p;
      unpaired.push(...g.unpaired);
      noSharedX.push(...g.noSharedCheckpoint);
    } else if (row.pathway !== CONTROL_PATHWAY) noControl.push(`${row.model} / ${row.game} / ${row.pathway}`);
    if (y0.estimate.point === null) noY0.push(`${row.model} / ${row.game} / ${row.pathway}`);
    if (row.naba.point !== null && (y0NearZero(row.y0, ranges.get(row.game)) || y0Unstable(checkpointZeroScores(curvesOf(row))))) {
      row.naba = { ...row.naba, mark: row.naba.mark === undefined ? NABA_UNSTABLE_MARK : `${row.naba.mark}; ${NABA_UNSTABLE_MARK}` };
      marked.push(`${row.model} / ${row.game} / ${row.pathway}`);
    }
  }
  return [
    ...(marked.length > 0 ? [nabaUnstableNote(marked.length)] : []),
    ...(unpaired.length > 0 ? [`No gain_vs_none for runs without a none run on the same evaluation seeds: ${unpaired.join(", ")}.`] : []),
    ...(noControl.length > 0
      ? [
          `No gain_vs_none where its control is missing: no ${CONTROL_PATHWAY} run of the same model and game in the data (add ${CONTROL_PATHWAY} to --pathways, same --run-seed): ${noControl.join(", ")}.`,
        ]
      : []),
    ...(noSharedX.length > 0 ? [`No gain_vs_none for runs that share no checkpoint at x >= ${GAIN_FROM_X} with their ${CONTROL_PATHWAY} run: ${noSharedX.join(", ")}.`] : []),
    ...(noY0.length > 0 ? [`No gain_vs_y0 where the run has no checkpoint 0 (y0) or no checkpoint at x >= ${GAIN_FROM_X}: ${noY0.join(", ")}.`] : []),
  ];
}

/** An estimate with its unit count, flagged by the dNABA coverage. */
function withN(e: Estimate, n: number): Estimate {
  return e.point === null ? e : flagEstimate({ ...e, n }, "dnaba");
}

/** The seed views of a memory and a history row that are single runs on the same seeds; else null. */
function singlePair(mem: MainResultsRow, his: MainResultsRow, ca: CurveAnalysis): [SeedCurve, SeedCurve] | null {
  if (mem.runs.length !== 1 || his.runs.length !== 1) return null;
  const a = ca.seedCurves.get(mem.runs[0] as string);
  const b = ca.seedCurves.get(his.runs[0] as string);
  return a !== undefined && b !== undefined && sameSeeds(a, b) ? [a, b] : null;
}

/** Whether a memory row and a history row were evaluated on the same seeds (single runs). */
function pairedRows(mem: MainResultsRow, his: MainResultsRow, ca: CurveAnalysis): boolean {
  const a = ca.seedCurves.get(mem.runs[0] ?? "");
  const b = ca.seedCurves.get(his.runs[0] ?? "");
  return a !== undefined && b !== undefined && mem.runs.length === 1 && his.runs.length === 1 ? sameSeeds(a, b) : mem.runs.length > 1 || his.runs.length > 1;
}

/** Options of the table builders that depend on the paper's completeness rule. */
export interface CurveTableOptions {
  /** Keep only models with results on every game (the paper's rule for the main table). */
  requireComplete?: boolean;
}

/** The notes line about incomplete models. */
function incompleteNote(ca: CurveAnalysis, requireComplete: boolean): string[] {
  if (ca.incompleteModels.size === 0) return [];
  const list = [...ca.incompleteModels.entries()].map(([m, g]) => `${m} (missing: ${g.join(", ")})`).join("; ");
  return requireComplete ? [`Left out by --require-complete (no results on every game): ${list}.`] : [`† incomplete model (no results on every game of the data set): ${list}.`];
}

/**
 * The note for intervals that exclude their own point (Max and AUC+ are biased upward under
 * resampling: a resample's best checkpoint is at least as good as the data's, so on a near-flat curve
 * the whole interval can sit above the point). Empty when none does.
 */
export function excludesPointNote(rows: readonly object[], keys: readonly string[]): string[] {
  const hits: string[] = [];
  for (const key of keys) {
    let count = 0;
    for (const row of rows) {
      const e = (row as Record<string, unknown>)[key] as Estimate | undefined;
      if (e && e.point !== null && e.lo !== null && e.hi !== null && (e.point < e.lo || e.point > e.hi)) count++;
    }
    if (count > 0) hits.push(`${key}: ${count} row${count > 1 ? "s" : ""}`);
  }
  if (hits.length === 0) return [];
  return [
    `Intervals that exclude their own point (${hits.join(", ")}): the maximum over checkpoints of resampled means is biased upward, so its percentile interval can lie above the estimate. Read such an interval as a sign that the curve is flat within noise, not as a range for the point.`,
  ];
}

/**
 * AUC+ and Max of a row minus those of its none control on the same evaluation seeds (pairedCurves.ts).
 * One pair: a paired interval and the sign-flip p. Several run seeds: the mean of the pairs' contrasts,
 * without an interval (the pairs are not one seed draw).
 */
function calibratedVsNone(curves: readonly SeedCurve[], control: readonly SeedCurve[], cfg: BootstrapConfig, key: readonly string[]): { auc_plus: PairedEstimate; max: PairedEstimate } {
  const pairs = curves.flatMap((sc) => {
    const partner = control.find((c) => sameSeeds(c, sc));
    const pc = partner === undefined ? null : pairCurves(sc, partner);
    return pc === null ? [] : [pc];
  });
  const none: PairedEstimate = { estimate: pointOnly(null), p: null };
  if (pairs.length === 0) return { auc_plus: none, max: none };
  if (pairs.length === 1) {
    const pc = pairs[0]!;
    return { auc_plus: pairedMetricEstimate(pc, "auc_plus", cfg, key), max: pairedMetricEstimate(pc, "max", cfg, key) };
  }
  const mean = (m: "auc_plus" | "max"): PairedEstimate => {
    const pts = pairs.map((pc) => pairedMetricEstimate(pc, m, { ...cfg, B: 0 }, key).estimate.point).filter((v): v is number => v !== null);
    return { estimate: pointOnly(pts.length === 0 ? null : pts.reduce((a, b) => a + b, 0) / pts.length), p: null };
  };
  return { auc_plus: mean("auc_plus"), max: mean("max") };
}

/** What the null-calibrated AUC+ and Max columns are (main_results' notes). */
const CALIBRATED_NOTE =
  "auc_plus_vs_none = AUC+(row) - AUC+(none) and max_vs_none = Max(row) - Max(none), the same model's none run on the same evaluation seeds over the checkpoints both have: raw AUC+ and Max are positive under pure noise (AUC+ integrates max(0, y - y0), Max takes the luckiest checkpoint), so the control's value on the same seeds is what noise alone gives and the difference is about 0 when nothing was learned. Paired interval: one draw of evaluation seeds shared by both runs (percentile bootstrap, or the curve family's method); p: exact two-sided sign-flip test (a seed's two runs swapped at every checkpoint). With several run seeds the row prints the mean of the pairs' differences without an interval. Max's intervals are indicative (the bench measures Max's coverage far below 95%).";

/** What the gain columns are (main_results' notes). */
const GAIN_NOTE =
  "gain_vs_none = mean over checkpoints x >= 3 of y(x) - y_none(x), the same model's no-experience (none) run on the same evaluation seeds (paired seed by seed); gain_vs_y0 = mean over x >= 3 of y(x) - y0. Both are signed (a loss reads as a loss; NABA clips at y0 and divides by it, so noise reads as gain). One run: p is the exact two-sided sign-flip test over evaluation seeds (as `s3gym compare`; it cannot go below 2 / 2^n with n seeds) and the interval is that test inverted (every shift it does not reject at 5%), so the interval excludes 0 exactly when p < 0.05; with 5 or fewer seeds the test cannot reject and no interval is printed. Two or more run seeds: p and the interval are the t test and t interval over the runs' own gains (df = runs - 1), which carry the run-to-run variance. Avg: one run, the hull of the equal-tailed and the symmetric studentized bootstrap over evaluation seeds, never narrower than the t interval; AUC+ and NABA: one run, the percentile bootstrap over evaluation seeds. Two or more run seeds, the model's expected statistic at this design (the mean over run seeds and evaluation seeds of one run's value; for AUC+, which is not linear in the scores, not the AUC+ of the model's mean curve): Avg has the t interval over the runs' Avgs (df = runs - 1), cut at the scores observed; AUC+ the hull of the t interval over the runs' AUC+ (cut at 0) and the two-stage percentile interval (runs drawn, then each drawn run's evaluation seeds); NABA the point alone: no method bench/coverage measured covers the model's expected NABA in every shape (a negative start's y0 can come near 0, and its expectation then barely exists). Max has no interval: no method bench/coverage measured covers (the percentile bootstrap covered 11% at 10 seeds).";

/** Paper Table 4: Avg, Max, AUC+ (with intervals) and NABA per (model, game, pathway). */
export function mainResultsTable(ca: CurveAnalysis, cfg: BootstrapConfig, opts: CurveTableOptions = {}): Table<MainResultsRow> {
  const rows = opts.requireComplete ? ca.rows.filter((r) => r.complete) : ca.rows;
  return withInstrumentNote(
    {
      name: "main_results",
      title: "Main results: checkpoint curves (Avg, Max, AUC+, NABA, gain vs none and vs y0)",
      columns: [
        { key: "model", kind: "text" },
        { key: "game", kind: "text" },
        { key: "pathway", kind: "text" },
        { key: "n_checkpoints", kind: "int" },
        { key: "n_seeds", kind: "int" },
        { key: "avg", kind: "estimate" },
        { key: "max", kind: "estimate" },
        { key: "auc_plus", kind: "estimate" },
        { key: "naba", kind: "estimate" },
        { key: "gain_vs_none", kind: "estimate" },
        { key: "gain_vs_none_p", kind: "p" },
        { key: "auc_plus_vs_none", kind: "estimate" },
        { key: "auc_plus_vs_none_p", kind: "p" },
        { key: "max_vs_none", kind: "estimate" },
        { key: "max_vs_none_p", kind: "p" },
        { key: "gain_vs_y0", kind: "estimate" },
        { key: "gain_vs_y0_p", kind: "p" },
      ],
      rows,
      notes: [
        describeBootstrap(cfg, "evaluation seeds, drawn once per resample and used at every checkpoint of the run (the same draw for every run of the game with the same seeds)", ca.methods),
        estimandNote(estimandOf(rows)),
        GAIN_NOTE,
        CALIBRATED_NOTE,
        describeNullCheck(nullCheck(rows)),
        "Scores are in each game's own units; raw AUC+ is comparable only within one game. Failed checkpoints are left out (AUC+ joins their valid neighbours); a run whose checkpoint 0 failed has no AUC+ or NABA.",
        ...smallNNote(rows, [
          { key: "avg", metric: (r) => ((r as MainResultsRow).runs.length >= 2 ? "avg_runs" : (r as MainResultsRow).avgFellBack === true ? "avg" : "avg_hull") },
          { key: "auc_plus", metric: (r) => ((r as MainResultsRow).runs.length >= 2 ? "auc_plus_runs" : "auc_plus") },
          { key: "naba", metric: "naba" },
          { key: "gain_vs_none", metric: (r) => ((r as MainResultsRow).runs.length >= 2 ? "gain_runs" : "gain") },
          { key: "gain_vs_y0", metric: (r) => ((r as MainResultsRow).runs.length >= 2 ? "gain_runs" : "gain") },
        ]),
        ...excludesPointNote(rows, ["max", "auc_plus"]),
        ...incompleteNote(ca, opts.requireComplete ?? false),
        ...ca.remarks,
      ],
    },
    [],
  );
}

/**
 * The pathways Table 7 sets against History ICL: Summary Memory and every pathway built on its summary
 * (`hybrid`: the summary plus retrieved raw steps). The one list: a summary-like pathway added to the
 * registry is added here, and Table 7 lists it against history (and against memory) when its runs exist.
 */
export const SUMMARY_LIKE_PATHWAYS: readonly string[] = ["memory", "hybrid"];

/** A row of summary_vs_history (and the verified tables): per (game, contrast, model), or a pool's "mean" row. */
export interface SummaryRow {
  game: string;
  /** The contrast's two pathways: pathway - versus. */
  pathway: string;
  versus: string;
  /** `learners` (models that can learn from experience) or `null` (built-ins that cannot; learnerPool.ts). */
  pool: string;
  model: string;
  dnaba: Estimate;
  /** Paired signed gain: mean over x >= 3 of y_pathway(x) - y_versus(x), the same evaluation seeds (gain.ts), with its interval. */
  gain: Estimate;
  /** Exact two-sided sign-flip p of gain. */
  gain_p: number | null;
  /** `disagree` when dNABA and the paired gain point opposite ways (both non-zero); empty otherwise. */
  sign: string;
  /** Models the "mean" row rests on (those with a defined dNABA); null on model rows. */
  n_models: number | null;
  /** The mean row's counts over its pool's models by the paired gain's interval: above 0, below 0, covering 0 (or none). */
  wins: number | null;
  losses: number | null;
  undecided: number | null;
  /** The paper's counts (dNABA's sign, |dNABA| < 1e-9 a tie), over the pool's models. */
  dnaba_wins: number | null;
  dnaba_losses: number | null;
  dnaba_ties: number | null;
}

/**
 * Paper Table 7, grown: every summary-like pathway present (SUMMARY_LIKE_PATHWAYS) against History
 * ICL, and each one beyond memory against memory. Per (game, contrast, model): dNABA = NABA(a) -
 * NABA(b) with an interval, beside it the paired signed gain of a over b with interval and exact p;
 * per game and pool the mean over models, with wins / losses counted on the gain's interval.
 */
export function summaryVsHistoryTable(ca: CurveAnalysis, cfg: BootstrapConfig, opts: CurveTableOptions = {}): Table<SummaryRow> {
  const present = new Set(ca.rows.map((r) => r.pathway));
  const like = SUMMARY_LIKE_PATHWAYS.filter((p) => present.has(p));
  const contrasts = (like.length > 0 ? like : ["memory"]).map((a) => ({ a, b: "history" }));
  for (const a of like) if (a !== "memory" && present.has("memory")) contrasts.push({ a, b: "memory" });
  const [first, ...more] = contrasts as [{ a: string; b: string }, ...{ a: string; b: string }[]];
  const title =
    like.length > 1
      ? `Summary-based pathways (${like.join(", ")}) vs History ICL: dNABA and the paired signed gain`
      : "Summary Memory vs History ICL: dNABA = NABA(memory) - NABA(history), and the paired signed gain";
  return pathwayDeltaTable(ca, cfg, opts, { ...first, also: more, name: "summary_vs_history", title });
}

/** Which pathways a dNABA table compares (dNABA = NABA(a) - NABA(b); `also`: further contrasts), and its name. */
export interface PathwayDelta {
  a: string;
  b: string;
  also?: readonly { a: string; b: string }[];
  name: string;
  title: string;
}

/** The mean of several models' paired gain data on one seed list and one checkpoint list (null when they differ). */
function meanGainData(parts: readonly GainData[]): GainData | null {
  const f = parts[0];
  if (f === undefined || parts.some((g) => g.n !== f.n || g.rows !== f.rows || g.sizes.length !== 1)) return null;
  const d = new Float64Array(f.rows * f.n);
  for (const g of parts) g.d.forEach((v, i) => (d[i] = (d[i] as number) + v / parts.length));
  return { rows: f.rows, n: f.n, d, sizes: [f.n] };
}

/** Whether an estimate prints an interval (tables.ts shownInterval: none from a single unit). */
function printsInterval(e: Estimate): boolean {
  return e.point !== null && e.lo !== null && e.hi !== null && !(e.n === 1 && e.lo === e.hi);
}

function sgn(v: number | null): number {
  return v === null || Math.abs(v) < TIE_EPS ? 0 : Math.sign(v);
}

/**
 * Table 7's comparison for any pathways (the verified tables use it against memory and history):
 * per (game, contrast, model) dNABA with a paired interval and the paired signed gain with interval
 * and exact p; per game and pool the mean over models.
 */
export function pathwayDeltaTable(ca: CurveAnalysis, cfg: BootstrapConfig, opts: CurveTableOptions, pd: PathwayDelta): Table<SummaryRow> {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const keep = (m: string): boolean => !opts.requireComplete || !ca.incompleteModels.has(m);
  const byGame = groupBy(
    ca.rows.filter((r) => keep(r.model)),
    (r) => r.game,
  );
  const curvesOf = (r: MainResultsRow): SeedCurve[] => r.runs.map((id) => ca.seedCurves.get(id)).filter((c): c is SeedCurve => c !== undefined);
  const contrasts = [{ a: pd.a, b: pd.b }, ...(pd.also ?? [])];
  const rows: SummaryRow[] = [];
  const unpaired: string[] = [];
  const methods = new MethodTally();
  const across: string[] = [];
  let disagree = 0;
  for (const { a, b } of contrasts) {
    let above = 0;
    let below = 0;
    let gamesWithMean = 0;
    let dnabaPositive = 0;
    for (const game of [...byGame.keys()].sort((x, y) => compareText(x, y))) {
      const gameRows = byGame.get(game) as MainResultsRow[];
      for (const pool of ["learners", "null"] as const) {
        const deltas: { model: string; d: number | null; reps: Float64Array | null; pair: [SeedCurve, SeedCurve] | null; gain: Estimate; data: GainData | null }[] = [];
        for (const model of distinct(gameRows.map((r) => r.model)).filter((m) => poolOf(m) === pool)) {
          const mem = gameRows.find((r) => r.model === model && r.pathway === a);
          const his = gameRows.find((r) => r.model === model && r.pathway === b);
          if (!mem || !his) continue;
          const d = mem.naba.point === null || his.naba.point === null ? null : mem.naba.point - his.naba.point;
          const rm = ca.nabaReplicates.get(rowKey(model, game, a)) ?? null;
          const rh = ca.nabaReplicates.get(rowKey(model, game, b)) ?? null;
          const reps = d === null || rm === null || rh === null ? null : rm.map((v, i) => v - (rh[i] as number));
          const pair = singlePair(mem, his, ca);
          const n = Math.min(mem.n_seeds, his.n_seeds);
          let est = estimate(d, reps, level);
          // Two or more run seeds: the point alone, as NABA's (no method covers the model's expected NABA).
          const severalRuns = mem.runs.length >= 2 || his.runs.length >= 2;
          if (d !== null && severalRuns) est = pointOnly(d);
          else if (d !== null && pair !== null && methodOf(cfg, "curve") !== "percentile" && cfg.B > 0) {
            const [sm, sh] = [curveStatistic(pair[0], "naba"), curveStatistic(pair[1], "naba")];
            const r = tableInterval(simpleDesign(pair[0].keys.length), (w) => sm(w) - sh(w), cfg.B, seedStream(cfg.seed, pair[0]), methodOf(cfg, "curve"), level, ANY_RANGE);
            est = { point: d, lo: r.interval.lo, hi: r.interval.hi };
            methods.add(r.method, r.fellBack);
          } else if (d !== null && reps !== null) methods.add("percentile");
          // The paired signed gain: the gain_vs_none machinery with the versus pathway as the control.
          const g = rowGainVsNone(curvesOf(mem), curvesOf(his), cfg, [`vs-${b}`, model, game, a]);
          if (printsInterval(g.estimate)) methods.add(gainTallyMethod(g.test));
          const data = pair === null ? null : gainVsNoneData(pair[0], pair[1]);
          deltas.push({ model, d, reps, pair, gain: g.estimate, data });
          const dn = withN(est, n);
          const sign = sgn(dn.point) !== 0 && sgn(g.estimate.point) !== 0 && sgn(dn.point) !== sgn(g.estimate.point) ? "disagree" : "";
          if (sign !== "") disagree++;
          const modelRow: SummaryRow = {
            game,
            pathway: a,
            versus: b,
            pool,
            model,
            dnaba: dn,
            gain: g.estimate,
            gain_p: g.p,
            sign,
            n_models: null,
            wins: null,
            losses: null,
            undecided: null,
            dnaba_wins: null,
            dnaba_losses: null,
            dnaba_ties: null,
          };
          rows.push(modelRow);
          if (!pairedRows(mem, his, ca)) unpaired.push(`${game} / ${model} (${a} vs ${b})`);
        }
        if (deltas.length === 0) continue;
        const s = summarizeDeltas(deltas.map((x) => x.d));
        const defined = deltas.filter((x) => x.d !== null);
        let reps: Float64Array | null = null;
        if (defined.length > 0 && defined.every((x) => x.reps !== null) && cfg.B > 0) {
          reps = new Float64Array(cfg.B);
          for (const x of defined) (x.reps as Float64Array).forEach((v, i) => ((reps as Float64Array)[i] += v / defined.length));
        }
        const nSeeds = Math.min(...gameRows.filter((r) => poolOf(r.model) === pool).map((r) => r.n_seeds));
        let meanEst = estimate(s.mean, reps, level);
        const pairs = defined.map((x) => x.pair);
        const p0 = pairs[0];
        if (s.mean !== null && p0 && pairs.every((p) => p !== null && sameSeeds(p[0], p0[0])) && methodOf(cfg, "curve") !== "percentile" && cfg.B > 0) {
          const stats = (pairs as [SeedCurve, SeedCurve][]).map(([m, h]) => [curveStatistic(m, "naba"), curveStatistic(h, "naba")] as const);
          const stat = (w: ArrayLike<number>): number => stats.reduce((acc, [sm, sh]) => acc + sm(w) - sh(w), 0) / stats.length;
          const r = tableInterval(simpleDesign(p0[0].keys.length), stat, cfg.B, seedStream(cfg.seed, p0[0]), methodOf(cfg, "curve"), level, ANY_RANGE);
          meanEst = { point: s.mean, lo: r.interval.lo, hi: r.interval.hi };
          methods.add(r.method, r.fellBack);
        } else if (s.mean !== null && reps !== null) methods.add("percentile");
        // The pool's mean paired gain: one statistic of one seed draw when every model shares the seeds
        // and the checkpoints; else the mean of the models' gains without an interval.
        const gains = deltas.map((x) => x.gain.point).filter((v): v is number => v !== null);
        const datas = deltas.map((x) => x.data);
        const sameDraw = datas.every((x) => x !== null) && deltas.every((x) => x.pair !== null && sameSeeds(x.pair[0], (deltas[0]!.pair as [SeedCurve, SeedCurve])[0]));
        const avg = sameDraw ? meanGainData(datas as GainData[]) : null;
        const mg =
          avg !== null ? estimateGain(avg, cfg, [`vs-${b}`, "mean", pool, game, a]) : { estimate: pointOnly(gains.length === 0 ? null : gains.reduce((x, y) => x + y, 0) / gains.length), p: null };
        if (printsInterval(mg.estimate)) methods.add(methodOf(cfg, "curve"));
        const wins = deltas.filter((x) => x.gain.lo !== null && x.gain.lo > 0).length;
        const losses = deltas.filter((x) => x.gain.hi !== null && x.gain.hi < 0).length;
        const dn = withN(meanEst, nSeeds);
        const sign = sgn(dn.point) !== 0 && sgn(mg.estimate.point) !== 0 && sgn(dn.point) !== sgn(mg.estimate.point) ? "disagree" : "";
        if (sign !== "") disagree++;
        rows.push({
          game,
          pathway: a,
          versus: b,
          pool,
          model: "mean",
          dnaba: dn,
          gain: mg.estimate,
          gain_p: mg.p,
          sign,
          n_models: s.n,
          wins,
          losses,
          undecided: deltas.length - wins - losses,
          dnaba_wins: s.wins,
          dnaba_losses: s.losses,
          dnaba_ties: s.ties,
        });
        if (pool === "learners" && mg.estimate.point !== null) {
          gamesWithMean++;
          if (mg.estimate.lo !== null && mg.estimate.lo > 0) above++;
          if (mg.estimate.hi !== null && mg.estimate.hi < 0) below++;
          if (s.mean !== null && s.mean > 0) dnabaPositive++;
        }
      }
    }
    across.push(
      `${a} vs ${b}: the learners' mean paired gain lies above 0 (its interval excludes 0) on ${above} of ${gamesWithMean} games and below 0 on ${below}; the rest are undecided. (The paper's reading, the sign of the mean dNABA, is positive on ${dnabaPositive} of ${gamesWithMean}.)`,
    );
  }
  return withInstrumentNote(
    {
      name: pd.name,
      title: pd.title,
      columns: [
        { key: "game", kind: "text" },
        { key: "pathway", kind: "text" },
        { key: "versus", kind: "text" },
        { key: "pool", kind: "text" },
        { key: "model", kind: "text" },
        { key: "dnaba", kind: "estimate" },
        { key: "gain", kind: "estimate" },
        { key: "gain_p", kind: "p" },
        { key: "sign", kind: "text" },
        { key: "n_models", kind: "int" },
        { key: "wins", kind: "int" },
        { key: "losses", kind: "int" },
        { key: "undecided", kind: "int" },
        { key: "dnaba_wins", kind: "int" },
        { key: "dnaba_losses", kind: "int" },
        { key: "dnaba_ties", kind: "int" },
      ],
      rows,
      notes: [
        describeBootstrap(cfg, `evaluation seeds, one draw shared by the two runs of a contrast (paired: both were evaluated on the same seeds) and used at every checkpoint`, methods),
        // One estimand row per model row of the table: its pathway-a row's runs (each paired with the b run of the same run seed).
        estimandNote(estimandOf(ca.rows.filter((r) => keep(r.model) && r.pathway === pd.a && ca.rows.some((b) => b.model === r.model && b.game === r.game && b.pathway === pd.b)))),
        `gain = mean over checkpoints x >= ${GAIN_FROM_X} of y_pathway(x) - y_versus(x), paired seed by seed (the gain_vs_none of main_results with the versus pathway as the control): signed, neither clipped nor divided, so it cannot point the wrong way; its interval is the gain columns' and gain_p the exact two-sided sign-flip test over seeds. dNABA = NABA(pathway) - NABA(versus), the paper's statistic: each NABA divides by its own y0, so a pathway that is better at every checkpoint can still show a lower dNABA; sign = disagree marks the ${disagree} row${disagree === 1 ? "" : "s"} where dNABA and the gain point opposite ways (read the gain there). dNABA of a model with two or more run seeds (and any mean row over such models) is the point alone, as main_results' NABA: no method bench/coverage measured covers the model's expected NABA or dNABA in every shape.`,
        `Mean rows pool the models of one pool: learners (models that can learn from their experience)${rows.some((r) => r.pool !== "learners") ? ` and, apart, the built-ins that ignore it (${NON_LEARNERS.join(", ")}; pool 'null')` : ""}, as the coupling table does; the mean's gain is one paired statistic of the pool's models on the shared seed draw. wins / losses / undecided count the pool's models whose gain interval lies above 0 / below 0 / covers 0 (or has no interval): a row whose interval covers 0 is no win. dnaba_wins / dnaba_losses / dnaba_ties are the paper's counts (dNABA's sign; a tie is |dNABA| < 1e-9). Empty on model rows.`,
        ...across.map((line) => `Across games, ${line}`),
        ...smallNNote(rows, [
          { key: "dnaba", metric: "dnaba" },
          { key: "gain", metric: "avg" },
        ]),
        ...(unpaired.length > 0 ? [`Not paired (the two runs were evaluated on different seeds, so their draws are independent and they have no gain): ${unpaired.join(", ")}.`] : []),
        ...incompleteNote(ca, opts.requireComplete ?? false),
      ],
    },
    [],
  );
}

/** A row of training.csv (one training run). */
export interface TrainingRow extends TrainingMetrics {
  model: string;
  game: string;
  run_id: string;
  /** The run seed of its loop (train-loop --run-seed): rows of one model and game over seeds are averaged (trainingSeeds.ts). */
  run_seed: number;
}

/** A training run's curve for Figure 7. */
export interface TrainingSeries {
  model: string;
  game: string;
  run_id: string;
  run_seed: number;
  /** Valid epochs: mean score y, its percentile bootstrap interval (evaluation episodes resampled), n episodes. */
  points: TrainingPoint[];
}

/** One epoch of a training curve. */
export interface TrainingPoint {
  x: number;
  y: number;
  lo: number | null;
  hi: number | null;
  n: number;
}

/**
 * Training metrics per training run (rows sorted by model, game, run_id), and their curves (the
 * training table and Figure 7 average them over loop seeds: trainingSeeds.ts). With
 * `cfg` (B > 0) each epoch's mean gets a percentile bootstrap interval over its evaluation episodes
 * (stream keyed by seed, "training", run_id, epoch); the table itself stays descriptive.
 */
export function analyzeTraining(ds: Dataset, cfg?: BootstrapConfig): { rows: TrainingRow[]; series: TrainingSeries[] } {
  const level = cfg?.level ?? DEFAULT_LEVEL;
  const band = (runId: string, x: number, scores: readonly number[]): { lo: number | null; hi: number | null } => {
    if (!cfg || cfg.B === 0 || scores.length === 0) return { lo: null, hi: null };
    const rng = bootstrapRng(cfg.seed, "training", runId, String(x));
    const reps = new Float64Array(cfg.B);
    for (let b = 0; b < cfg.B; b++) reps[b] = resampleMean(scores, rng);
    return percentileInterval(reps, level);
  };
  const rows: TrainingRow[] = [];
  const series: TrainingSeries[] = [];
  for (const run of ds.runs.filter(isTraining)) {
    const curve = runCurve(run);
    const runSeed = run.manifest?.run_seed ?? 0;
    rows.push({ model: run.model, game: run.game, ...trainingMetrics(curve), run_id: run.run_id, run_seed: runSeed });
    series.push({
      model: run.model,
      game: run.game,
      run_id: run.run_id,
      run_seed: runSeed,
      // y is the curve's own value (runCurve), so the figure and the table agree to the last digit.
      points: run.checkpoints.flatMap((c, i) => {
        const y = curve[i]?.y ?? null;
        return c.valid && y !== null ? [{ x: c.x, y, ...band(run.run_id, c.x, c.scores), n: c.scores.length }] : [];
      }),
    });
  }
  const cmp = (a: { model: string; game: string; run_id: string }, b: typeof a): number => compareText(a.model, b.model) || compareText(a.game, b.game) || compareText(a.run_id, b.run_id);
  rows.sort(cmp);
  series.sort(cmp);
  return { rows, series };
}

/** A row of main_results_wide: one model and metric; a cell per (game, pathway) column. */
export interface MainResultsWideRow {
  model: string;
  /** `avg`, `max` or `auc_plus` (paper Table 4's three metrics). */
  metric: string;
  /** False when the model lacks results on some game (marked † like main_results). */
  complete: boolean;
  [column: string]: string | boolean | Estimate | null;
}

/** The wide table's estimate columns. */
function columnsOf(games: readonly string[], pathways: readonly string[], key: (g: string, p: string) => string): string[] {
  return games.flatMap((g) => pathways.map((p) => key(g, p)));
}

/**
 * main_results' interval line with the count of the intervals THIS table prints (a subset: no gains,
 * no NABA), when the line names one method; unchanged when it names several.
 */
function recount(note: string, rows: readonly object[], keys: readonly string[]): string {
  const counts = [...note.matchAll(/\((\d+)(?: intervals?)?\)/g)];
  if (counts.length !== 1) return note;
  let n = 0;
  for (const r of rows)
    for (const k of keys) {
      const e = (r as Record<string, unknown>)[k] as Estimate | null | undefined;
      if (e && e.point !== null && e.lo !== null && e.hi !== null && !(e.n === 1 && e.lo === e.hi)) n++;
    }
  return note.replace(/\(\d+ intervals?\)/, `(${n} intervals)`);
}

/** Paper Table 4's metrics, in its order. */
const WIDE_METRICS = ["avg", "max", "auc_plus"] as const;
/** Column labels of the pathways in the paper's layout (History ICL first, then Summary Memory). */
const WIDE_PATHWAYS: Record<string, string> = { history: "ICL", memory: "Memory" };

/**
 * Paper Table 4 in the paper's layout, pivoted from `main_results` (the same builder's rows, no new
 * number): a row per model and metric (Avg, Max, AUC+), games as column groups with ICL and Memory
 * side by side (`<game> ICL`, `<game> Memory`). The `none` baseline stays in the long table only.
 */
export function mainResultsWideTable(main: Table<MainResultsRow>): Table<MainResultsWideRow> {
  const rows = main.rows.filter((r) => r.pathway in WIDE_PATHWAYS);
  const games = distinct(rows.map((r) => r.game)).sort((a, b) => compareText(a, b));
  const pathways = Object.keys(WIDE_PATHWAYS).filter((p) => rows.some((r) => r.pathway === p));
  const key = (game: string, pathway: string): string => `${game} ${WIDE_PATHWAYS[pathway]}`;
  const models = distinct(rows.map((r) => r.model)).sort((a, b) => compareText(a, b));
  const out: MainResultsWideRow[] = [];
  for (const model of models) {
    const mine = rows.filter((r) => r.model === model);
    for (const metric of WIDE_METRICS) {
      const row: MainResultsWideRow = { model, metric, complete: mine.every((r) => r.complete) };
      for (const game of games) for (const pathway of pathways) row[key(game, pathway)] = mine.find((r) => r.game === game && r.pathway === pathway)?.[metric] ?? null;
      out.push(row);
    }
  }
  return withInstrumentNote(
    {
      name: "main_results_wide",
      title: "Main results in the paper's layout (Table 4): Avg, Max, AUC+ by game, ICL and Memory side by side",
      columns: [{ key: "model", kind: "text" }, { key: "metric", kind: "text" }, ...games.flatMap((g) => pathways.map((p) => ({ key: key(g, p), kind: "estimate" as const })))],
      rows: out,
      notes: [
        ...main.notes.slice(0, 1).map((n) => recount(n, out, columnsOf(games, pathways, key))),
        "The same estimates as main_results (one row per model, game and pathway there), pivoted: ICL = History ICL, Memory = Summary Memory; the `none` baseline and NABA are in main_results. An empty cell: no run for that model, game and pathway.",
        ...main.notes.slice(1),
      ],
    },
    [],
  );
}
