/**
 * Self-judging tables: self_judging (paper Table 5), positive_rates (the correlation across runs of
 * Pr(r > 0) and Pr(s > 0)), and the calibration bins the calibration figure draws.
 *
 * The step set (metrics.md): per game, the exploration steps of all history and memory runs. Rows are
 * per (game, model) and the game's pooled row "all" (last). Intervals: cluster bootstrap over runs
 * (a run's steps stay together); a row with a single run resamples that run's episodes instead.
 */
import {
  DEFAULT_LEVEL,
  bootstrapRng,
  describeBootstrap,
  estimate,
  methodOf,
  MethodTally,
  percentileInterval,
  pointOnly,
  resampleMean,
  type BootstrapConfig,
  type Estimate,
} from "../stats/bootstrap.js";
import { pearson, pearsonWeighted, resampleWeights, spearman } from "../metrics/coupling.js";
import type { Dataset, RunData } from "../load/dataset.js";
import { MIN_SIDE_STEPS, addCounts, balancedAccuracy, emptyCounts, judgingStats, positiveRates, sideCounts, type JudgingCounts, type RewardRange } from "../metrics/judging.js";
import { WeightedDiscrimination, type UnitSteps } from "../stats/discrimination.js";
import { flagEstimate, smallNNote, type CoverageMetric } from "../stats/coverage.js";
import { CORRELATION_RANGE, RATE_RANGE, simpleDesign, tableInterval, tableIntervalMany, threeStageDesign, withinDesign } from "../stats/intervals.js";
import { distinct, episodeCounts, gameRewardRanges, groupBy, isJudged, totalCounts } from "../load/runs.js";
import type { Rng } from "../../util/rng.js";
import { withInstrumentNote } from "./instruments.js";
import type { Table } from "./table.js";

/** The pooled row's model label. */
export const POOLED = "all";

/** Per judged run: its per-episode counts (game-level range) and their total. */
export interface JudgedRun {
  run: RunData;
  episodes: Map<number, JudgingCounts>;
  total: JudgingCounts;
}

/** What every step-level table needs, computed once from the compact data set. */
export interface JudgingInputs {
  /** Game -> game-level reward range (null: no judged step in that game). */
  ranges: Map<string, RewardRange | null>;
  /** Judged runs in data-set order (game, model, pathway, run_id). */
  runs: JudgedRun[];
}

/**
 * Computes the game ranges and per-run/per-episode counts of every history and memory run. `ranges`
 * defaults to gameRewardRanges(ds); when `ds` is a model-filtered view, pass the ranges of the whole
 * data set (the range is a property of the game, so a model's NMAE must not depend on the selection).
 */
export function judgingInputs(ds: Dataset, ranges: ReadonlyMap<string, RewardRange | null> = gameRewardRanges(ds)): JudgingInputs {
  const runs: JudgedRun[] = [];
  for (const run of ds.runs) {
    if (!isJudged(run)) continue;
    const episodes = episodeCounts(run, ranges.get(run.game) ?? null);
    runs.push({ run, episodes, total: totalCounts(episodes) });
  }
  const own = new Map<string, RewardRange | null>();
  for (const run of ds.runs) own.set(run.game, ranges.get(run.game) ?? null);
  return { ranges: own, runs };
}

/**
 * A judged run's scored exploration steps per episode, in the order of `episodes` (the resampling
 * units' order), for the rank-based metrics.
 */
export function episodeSteps(jr: JudgedRun): UnitSteps[] {
  const at = new Map<number, { s: number[]; r: number[] }>();
  for (const e of jr.episodes.keys()) at.set(e, { s: [], r: [] });
  const ex = jr.run.explore;
  if (ex !== null) {
    for (let i = 0; i < ex.length; i++) {
      const s = ex.s[i] as number;
      if (Number.isNaN(s)) continue;
      const u = at.get(ex.episode[i] as number);
      if (u === undefined) continue;
      u.s.push(s);
      u.r.push(ex.r[i] as number);
    }
  }
  return [...at.values()];
}

/** The Markdown text of a balanced accuracy or AUROC a row cannot estimate (the CSV cell is empty). */
export const NOT_ESTIMABLE = "not estimable";

/** The mark on an Agree that exceeds balanced accuracy by more than ZERO_REWARD_GAP. */
export const ZERO_REWARD_MARK = "§";
export const ZERO_REWARD_GAP = 0.2;

/** The four step-level metrics' replicates from a cluster bootstrap over additive units. */
interface CountReplicates {
  agree: Float64Array;
  nmae: Float64Array;
  over: Float64Array;
  under: Float64Array;
}

/**
 * Cluster bootstrap of step-level metrics (metrics.md, "Uncertainty"): `runs` holds each run's
 * per-episode counts. Per replicate, each run's episodes are resampled (with replacement, same count)
 * and summed; with `twoStage`, runs are first drawn with replacement (pooled rows) and each draw
 * resamples its episodes anew. Without it every run is kept (a per-model row's two runs), so its
 * interval reflects episode variation within its runs and never collapses to the runs' min-max.
 * NaN where a metric is missing.
 */
export function bootstrapCounts(runs: readonly (readonly JudgingCounts[])[], range: RewardRange | null, B: number, rng: Rng, twoStage: boolean): CountReplicates {
  const out: CountReplicates = {
    agree: new Float64Array(B),
    nmae: new Float64Array(B),
    over: new Float64Array(B),
    under: new Float64Array(B),
  };
  const R = runs.length;
  const acc = emptyCounts();
  for (let b = 0; b < B; b++) {
    Object.assign(acc, emptyCounts());
    for (let i = 0; i < R; i++) {
      const eps = runs[twoStage ? rng.int(R) : i] as readonly JudgingCounts[];
      const n = eps.length;
      for (let j = 0; j < n; j++) addCounts(acc, eps[rng.int(n)] as JudgingCounts);
    }
    const s = judgingStats(acc, range);
    out.agree[b] = s.agree ?? Number.NaN;
    out.nmae[b] = s.nmae ?? Number.NaN;
    out.over[b] = s.over ?? Number.NaN;
    out.under[b] = s.under ?? Number.NaN;
  }
  return out;
}

/** A row of self_judging. */
export interface SelfJudgingRow {
  game: string;
  /** A model, or "all" for the game's pooled row. */
  model: string;
  n_steps: number;
  n_unscored: number;
  agree: Estimate;
  nmae: Estimate;
  over: Estimate;
  under: Estimate;
  /**
   * Balanced accuracy (mean agreement on the r > 0 and the r <= 0 steps) and AUROC of s for r > 0;
   * point null, `missing` "not estimable", when n_pos or n_neg is below MIN_SIDE_STEPS.
   */
  balanced_accuracy: Estimate;
  auroc: Estimate;
  /** Scored steps with r > 0 and with r <= 0: what balanced accuracy and AUROC rest on. */
  n_pos: number;
  n_neg: number;
  /** Agree exceeds balanced accuracy by more than ZERO_REWARD_GAP (Agree marked ZERO_REWARD_MARK). */
  zero_reward_agree: boolean;
  /** Runs behind the row, and what the bootstrap resampled. */
  n_runs: number;
  /** Exploration episodes behind the row (summed over its runs). */
  n_episodes: number;
  unit: "models" | "runs" | "episodes" | "none";
}

/** The self-judging row of a set of judged runs of one game. */
export function selfJudgingRow(game: string, model: string, runsIn: readonly JudgedRun[], range: RewardRange | null, cfg: BootstrapConfig, methods: MethodTally = new MethodTally()): SelfJudgingRow {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const total = emptyCounts();
  for (const r of runsIn) addCounts(total, r.total);
  const stats = judgingStats(total, range);
  // Pooled rows: models, then each drawn model's runs, then each drawn run's episodes (three stages: a
  // model's runs are correlated, and drawing them as independent under-covered, 87% at 14 runs). Runs
  // go model by model (stable: the data set's order within a model). Per-model rows (a model's few
  // runs): episodes within each of its runs; drawing 2 runs would give only three distinct resamples.
  const pooled = model === POOLED;
  const byModel = groupBy(runsIn, (r) => r.run.model);
  const runs = pooled ? [...byModel.values()].flat() : runsIn;
  const units = runs.map((r) => [...r.episodes.values()]);
  const unit = runs.length === 0 ? "none" : pooled && byModel.size > 1 ? "models" : pooled && runs.length > 1 ? "runs" : "episodes";
  const n = runs.length === 0 ? 0 : unit === "models" ? byModel.size : unit === "runs" ? runs.length : Math.min(...units.map((u) => u.length));
  // The measured default: model rows the bootstrap-t over the within-run episode design (percentile
  // below 10 episodes), pooled rows BCa over the three-stage design (tableIntervalMany), each interval
  // kept within [0, 1]. The percentile pass (bootstrapCounts) serves a configured percentile method on
  // model rows only: it has no three-stage draw.
  const method = methodOf(cfg);
  const bootstrapped = cfg.B > 0 && units.some((u) => u.length > 0);
  const student = bootstrapped && unit !== "none" && (method !== "percentile" || pooled);
  const reps: CountReplicates | null = bootstrapped && !student ? bootstrapCounts(units, range, cfg.B, bootstrapRng(cfg.seed, "judging", game, model), unit === "runs") : null;
  const studentLo: Partial<Record<keyof CountReplicates, number | null>> = {};
  const studentHi: Partial<Record<keyof CountReplicates, number | null>> = {};
  if (student) {
    const flat = units.flat();
    const sizes = units.map((u) => u.length);
    let next = 0;
    const nested = [...byModel.values()].map((rs) => rs.map(() => sizes[next++] as number));
    const design = pooled && runs.length > 1 ? threeStageDesign(nested) : withinDesign(sizes);
    const width = range === null ? 0 : range.max - range.min;
    // agree, nmae, over, under: each a ratio sum(w * num) / sum(w * scored), accumulated in one loop
    // (each sum in the same order as alone, so the digits are the same).
    const den = Float64Array.from(flat, (c) => c.n - c.unscored);
    const nums = [Float64Array.from(flat, (c) => c.agree), Float64Array.from(flat, (c) => c.absErr / width), Float64Array.from(flat, (c) => c.over), Float64Array.from(flat, (c) => c.under)] as const;
    const [na, ne, no, nu] = nums;
    const stats = (w: ArrayLike<number>, out: Float64Array): void => {
      let xa = 0;
      let xe = 0;
      let xo = 0;
      let xu = 0;
      let y = 0;
      for (let i = 0; i < den.length; i++) {
        const wi = w[i] as number;
        if (wi === 0) continue;
        xa += wi * (na[i] as number);
        xe += wi * (ne[i] as number);
        xo += wi * (no[i] as number);
        xu += wi * (nu[i] as number);
        y += wi * (den[i] as number);
      }
      out[0] = y > 0 ? xa / y : Number.NaN;
      out[1] = width > 0 && y > 0 ? xe / y : Number.NaN;
      out[2] = y > 0 ? xo / y : Number.NaN;
      out[3] = y > 0 ? xu / y : Number.NaN;
    };
    const keys = ["agree", "nmae", "over", "under"] as const;
    const r = tableIntervalMany(design, stats, keys.length, cfg.B, bootstrapRng(cfg.seed, "judging", game, model), method, level, RATE_RANGE);
    keys.forEach((k, j) => {
      studentLo[k] = r[j]!.interval.lo;
      studentHi[k] = r[j]!.interval.hi;
      if (Number.isFinite(r[j]!.point)) methods.add(r[j]!.method, r[j]!.fellBack);
    });
  } else if (reps !== null) for (const k of ["agree", "nmae", "over", "under"] as const) if (stats[k] !== null) methods.add("percentile");
  // Balanced accuracy and AUROC: the same design, method and stream as Agree (the same resamples),
  // one pass for both; AUROC's bootstrap-t jackknife comes from one sweep (discrimination.ts).
  const { pos: nPos, neg: nNeg } = sideCounts(total);
  const estimable = nPos >= MIN_SIDE_STEPS && nNeg >= MIN_SIDE_STEPS;
  const notEstimable: Estimate = { ...pointOnly(null), missing: NOT_ESTIMABLE };
  let ba: Estimate = notEstimable;
  let auc: Estimate = notEstimable;
  if (estimable) {
    const sizes = units.map((u) => u.length);
    let next = 0;
    const nested = [...byModel.values()].map((rs) => rs.map(() => sizes[next++] as number));
    const design = pooled && runs.length > 1 ? threeStageDesign(nested) : withinDesign(sizes);
    const wd = new WeightedDiscrimination(runs.flatMap(episodeSteps), design.members);
    const pts = new Float64Array(2);
    wd.stats(new Int32Array(design.n).fill(1), pts);
    ba = pointOnly(balancedAccuracy(total));
    auc = pointOnly(pts[1] as number);
    if (bootstrapped) {
      const r = tableIntervalMany(design, wd.stats, 2, cfg.B, bootstrapRng(cfg.seed, "judging", game, model), method, level, RATE_RANGE, wd.jackknife);
      // Model rows: their own measured coverage; pooled rows: pooled Agree's (not simulated for them).
      const pooledRow = unit === "models" || unit === "runs";
      const flagged = r.map((ri, j) => {
        methods.add(ri.method, ri.fellBack);
        const point = (j === 0 ? ba : auc).point as number;
        const metric: CoverageMetric = pooledRow ? "agree_pooled" : j === 0 ? "balanced_accuracy" : "auroc";
        return flagEstimate({ point, lo: ri.interval.lo, hi: ri.interval.hi, n }, metric);
      });
      ba = flagged[0]!;
      auc = flagged[1]!;
    }
  }
  const zeroReward = ba.point !== null && stats.agree !== null && stats.agree - ba.point > ZERO_REWARD_GAP;
  const metricOf = (m: "agree" | "nmae"): CoverageMetric => (unit === "models" || unit === "runs" ? `${m}_pooled` : m);
  // The interval shown: the bootstrap-t's (or BCa's) where it ran, else the percentile pass's.
  const interval = (point: number | null, k: keyof CountReplicates): Estimate =>
    point === null ? pointOnly(null) : student ? { point, lo: studentLo[k] ?? null, hi: studentHi[k] ?? null } : estimate(point, reps![k], level);
  const est = (point: number | null, m: "agree" | "nmae"): Estimate => (!bootstrapped || point === null ? pointOnly(point) : flagEstimate({ ...interval(point, m), n }, metricOf(m)));
  return {
    game,
    model,
    n_steps: stats.n_steps,
    n_unscored: stats.n_unscored,
    agree: zeroReward ? { ...est(stats.agree, "agree"), mark: ZERO_REWARD_MARK } : est(stats.agree, "agree"),
    nmae: est(stats.nmae, "nmae"),
    // Over and Under are rates of the same steps as Agree: flagged by Agree's coverage.
    over: bootstrapped && stats.over !== null ? flagEstimate({ ...interval(stats.over, "over"), n }, metricOf("agree")) : pointOnly(stats.over),
    under: bootstrapped && stats.under !== null ? flagEstimate({ ...interval(stats.under, "under"), n }, metricOf("agree")) : pointOnly(stats.under),
    balanced_accuracy: ba,
    auroc: auc,
    n_pos: nPos,
    n_neg: nNeg,
    zero_reward_agree: zeroReward,
    n_runs: runs.length,
    n_episodes: units.reduce((a, u) => a + u.length, 0),
    unit,
  };
}

/**
 * The notes on balanced accuracy and AUROC: definitions, what their intervals are, the estimability
 * rule (with the rows it struck), and the footnote of the zero-reward mark when a row carries it.
 */
function discriminationNotes(rows: readonly SelfJudgingRow[]): string[] {
  const struck = rows.filter((r) => r.balanced_accuracy.missing === NOT_ESTIMABLE);
  const marked = rows.filter((r) => r.zero_reward_agree);
  const label = (r: SelfJudgingRow): string => `${r.game}/${r.model}`;
  return [
    "balanced_accuracy = (Pr(s > 0 | r > 0) + Pr(s <= 0 | r <= 0)) / 2 and auroc = Pr(s of an r > 0 step > s of an r <= 0 step), ties one half, both over scored steps: a constant self-score gets 0.5 on both, however rare r > 0 is. n_pos / n_neg: the scored steps with r > 0 / r <= 0 they rest on. Their intervals come from the same resamples, design and method as agree's (episodes within the model's runs; pooled rows models, runs, episodes) and cover the same estimand; bench/coverage measured their model rows' coverage (10 or more episodes per run for 95% +- 3); their pooled rows carry pooled agree's flag.",
    `Not estimable: a row with fewer than ${MIN_SIDE_STEPS} scored steps with r > 0, or fewer than ${MIN_SIDE_STEPS} with r <= 0, prints "${NOT_ESTIMABLE}" for balanced_accuracy and auroc (their CSV cells are empty): ${struck.length === 0 ? "no row here" : `${struck.length} row(s) here, e.g. ${struck.slice(0, 4).map(label).join(", ")}`}.`,
    ...(marked.length > 0
      ? [
          `${ZERO_REWARD_MARK} agreement from zero-reward steps: agree exceeds balanced_accuracy by more than ${ZERO_REWARD_GAP}, so most of its agreement is the r <= 0 steps a constant "0" also gets right (${marked.length} row(s): ${marked.slice(0, 4).map(label).join(", ")}${marked.length > 4 ? ", ..." : ""}).`,
        ]
      : []),
  ];
}

/** Whether a row's unit is a pooled row's (models or runs drawn). */
function pooledUnit(unit: SelfJudgingRow["unit"]): boolean {
  return unit === "models" || unit === "runs";
}

/** Paper Table 5: per game, a row per model and the pooled "all" row (last). */
export function selfJudgingTable(inputs: JudgingInputs, cfg: BootstrapConfig): Table<SelfJudgingRow> {
  const rows: SelfJudgingRow[] = [];
  const rangeNotes: string[] = [];
  const methods = new MethodTally();
  for (const game of distinct(inputs.runs.map((r) => r.run.game))) {
    const gameRuns = inputs.runs.filter((r) => r.run.game === game);
    const range = inputs.ranges.get(game) ?? null;
    for (const model of distinct(gameRuns.map((r) => r.run.model))) {
      rows.push(
        selfJudgingRow(
          game,
          model,
          gameRuns.filter((r) => r.run.model === model),
          range,
          cfg,
          methods,
        ),
      );
    }
    rows.push(selfJudgingRow(game, POOLED, gameRuns, range, cfg, methods));
    if (range) rangeNotes.push(`${game} [${range.min}, ${range.max}]${range.max === range.min ? " (constant: NMAE missing)" : ""}`);
  }
  const leftOut = distinct(inputs.runs.map((r) => r.run.game))
    .map((g) => [g, inputs.runs.filter((r) => r.run.game === g).reduce((a, r) => a + r.run.counts.leftOutSteps, 0)] as const)
    .filter(([, n]) => n > 0);
  return withInstrumentNote(
    {
      name: "self_judging",
      title: "Self-judging: agreement and error of self-scores against the verifier (exploration steps)",
      columns: [
        { key: "game", kind: "text" },
        { key: "model", kind: "text" },
        { key: "n_steps", kind: "int" },
        { key: "n_unscored", kind: "int" },
        { key: "agree", kind: "estimate" },
        { key: "nmae", kind: "estimate" },
        { key: "over", kind: "estimate" },
        { key: "under", kind: "estimate" },
        { key: "balanced_accuracy", kind: "estimate" },
        { key: "auroc", kind: "estimate" },
        { key: "n_pos", kind: "int" },
        { key: "n_neg", kind: "int" },
      ],
      rows,
      notes: [
        describeBootstrap(
          cfg,
          "pooled rows (all): models, then each drawn model's runs, then exploration episodes within each drawn run; model rows: exploration episodes within each of the model's runs (an episode's steps stay together)",
          methods,
        ),
        "Estimand: a model row's interval covers these runs (the model's judging as it happened in its runs, over new episodes), not the model under new runs; the pooled `all` row's covers the mean over models like these (models resampled), so it is wider.",
        "Step set: exploration steps of history and memory runs. n_steps counts every step; agree, nmae, over and under are over the scored ones (n_steps - n_unscored).",
        `NMAE normalises by the game-level reward range (r_min, r_max), self-scores clipped into it: ${rangeNotes.join("; ") || "none"}.`,
        ...smallNNote(rows, [
          { key: "agree", metric: (r) => (pooledUnit((r as SelfJudgingRow).unit) ? "agree_pooled" : "agree") },
          { key: "nmae", metric: (r) => (pooledUnit((r as SelfJudgingRow).unit) ? "nmae_pooled" : "nmae") },
          { key: "over", metric: (r) => (pooledUnit((r as SelfJudgingRow).unit) ? "agree_pooled" : "agree") },
          { key: "under", metric: (r) => (pooledUnit((r as SelfJudgingRow).unit) ? "agree_pooled" : "agree") },
          { key: "balanced_accuracy", metric: (r) => (pooledUnit((r as SelfJudgingRow).unit) ? "agree_pooled" : "balanced_accuracy") },
          { key: "auroc", metric: (r) => (pooledUnit((r as SelfJudgingRow).unit) ? "agree_pooled" : "auroc") },
        ]),
        ...discriminationNotes(rows),
        ...(leftOut.length > 0
          ? [
              `Left out: steps of exploration episodes that failed for infrastructure (or have no episode record), not the model's behaviour under the protocol: ${leftOut.map(([g, n]) => `${g} ${n}`).join(", ")}.`,
            ]
          : []),
      ],
    },
    [],
  );
}

/** A row of positive_rates: the correlation across runs of Pr(r > 0) and Pr(s > 0). */
export interface PositiveRatesRow {
  game: string;
  n_runs: number;
  pearson_pos_rates: Estimate;
  spearman_pos_rates: number | null;
}

/**
 * Positive rates per run (over its scored exploration steps) and their correlation across runs, per
 * game and pooled ("all", last); interval: runs resampled.
 */
export function positiveRatesTable(inputs: JudgingInputs, cfg: BootstrapConfig): Table<PositiveRatesRow> {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const methods = new MethodTally();
  // A correlation over resampled runs: flagged by the run-level correlation's measured coverage.
  const flag = (e: Estimate): Estimate => (e.point === null || e.lo === null ? e : flagEstimate(e, "pearson_cells"));
  const rate = (r: JudgedRun): { p_r: number; p_s: number } | null => positiveRates(r.total);
  const row = (game: string, runs: readonly JudgedRun[]): PositiveRatesRow => {
    const pts = runs.map(rate).filter((p): p is { p_r: number; p_s: number } => p !== null);
    const stat = (sample: readonly { p_r: number; p_s: number }[]): number | null =>
      pearson(
        sample.map((p) => p.p_r),
        sample.map((p) => p.p_s),
      );
    const point = stat(pts);
    let reps: Float64Array | null = null;
    if (point !== null && cfg.B > 0) {
      const rng = bootstrapRng(cfg.seed, "positive_rates", game);
      reps = new Float64Array(cfg.B);
      const pr = pts.map((p) => p.p_r);
      const ps = pts.map((p) => p.p_s);
      const w = new Int32Array(pts.length);
      for (let b = 0; b < cfg.B; b++) reps[b] = pearsonWeighted(pr, ps, resampleWeights(rng, pts.length, w)) ?? Number.NaN;
      if (methodOf(cfg, "correlation") !== "percentile") {
        const r = tableInterval(
          simpleDesign(pts.length),
          (wt) => pearsonWeighted(pr, ps, wt) ?? Number.NaN,
          cfg.B,
          bootstrapRng(cfg.seed, "positive_rates", game),
          methodOf(cfg, "correlation"),
          level,
          CORRELATION_RANGE,
        );
        if (r.method !== "percentile" || r.fellBack === true) {
          methods.add(r.method, r.fellBack);
          return { game, n_runs: pts.length, pearson_pos_rates: flag({ point, lo: r.interval.lo, hi: r.interval.hi, n: pts.length }), spearman_pos_rates: spearman(pr, ps) };
        }
      }
    }
    if (point !== null && reps !== null) methods.add("percentile");
    return {
      game,
      n_runs: pts.length,
      pearson_pos_rates: point === null ? pointOnly(null) : flag({ ...estimate(point, reps, level), n: pts.length }),
      spearman_pos_rates: spearman(
        pts.map((p) => p.p_r),
        pts.map((p) => p.p_s),
      ),
    };
  };
  const rows = distinct(inputs.runs.map((r) => r.run.game)).map((g) =>
    row(
      g,
      inputs.runs.filter((r) => r.run.game === g),
    ),
  );
  rows.push(row(POOLED, inputs.runs));
  return withInstrumentNote(
    {
      name: "positive_rates",
      title: "Positive rates: correlation across runs of Pr(r > 0) and Pr(s > 0)",
      columns: [
        { key: "game", kind: "text" },
        { key: "n_runs", kind: "int" },
        { key: "pearson_pos_rates", kind: "estimate" },
        { key: "spearman_pos_rates", kind: "num" },
      ],
      rows,
      notes: [
        describeBootstrap(cfg, "runs", methods),
        "Estimand: the correlation across runs like these (runs resampled).",
        ...smallNNote(rows, [{ key: "pearson_pos_rates", metric: "pearson_cells" }]),
        "Each run's rates are over its scored exploration steps (history and memory runs).",
      ],
    },
    inputs.runs.map((r) => r.run.model),
  );
}

/** A calibration bin: mean clipped self-score vs mean reward of the steps whose clipped s falls in it. */
export interface CalibrationBin {
  game: string;
  bin: number;
  s_mean: number;
  r_mean: number;
  /** Percentile bootstrap interval of r_mean (null without resamples, or when it is undefined in every one). */
  r_lo: number | null;
  r_hi: number | null;
  /** Steps in the bin. */
  n: number;
  /** Runs with a step in the bin. */
  n_runs: number;
  /** Runs with a scored step in any bin of the game (what the figure's subtitle counts). */
  game_runs: number;
}

/** What calibrationBins resampled, for the figure's caption. */
export const CALIBRATION_RESAMPLED = "runs (each bin's mean reward; a game with one run resamples the bin's steps)";

/**
 * Calibration bins per game: scored exploration steps of history/memory runs, s clipped into the game
 * range, `nBins` equal-width bins over that range (one bin when the range is a point). Empty bins are
 * left out. With `cfg` (B > 0) every bin's mean reward gets a percentile interval: a cluster
 * bootstrap over the game's runs (a run's steps stay together, as Table 5 resamples); a game with one
 * run resamples the bin's steps. A replicate in which a bin is empty is left out of its interval.
 */
export function calibrationBins(inputs: JudgingInputs, nBins = 10, cfg?: BootstrapConfig): CalibrationBin[] {
  const out: CalibrationBin[] = [];
  const level = cfg?.level ?? DEFAULT_LEVEL;
  for (const game of distinct(inputs.runs.map((r) => r.run.game))) {
    const range = inputs.ranges.get(game);
    if (!range) continue;
    const width = range.max - range.min;
    const k = width > 0 ? nBins : 1;
    // Per run and bin: sums of clipped s and r, the count, and the bin's rewards (for one-run games).
    const perRun: { sumS: Float64Array; sumR: Float64Array; cnt: Float64Array; rewards: number[][] }[] = [];
    for (const jr of inputs.runs) {
      if (jr.run.game !== game || jr.run.explore === null) continue;
      const ex = jr.run.explore;
      const u = { sumS: new Float64Array(k), sumR: new Float64Array(k), cnt: new Float64Array(k), rewards: Array.from({ length: k }, () => [] as number[]) };
      for (let i = 0; i < ex.length; i++) {
        const s = ex.s[i] as number;
        if (Number.isNaN(s)) continue;
        const c = Math.min(range.max, Math.max(range.min, s));
        const bin = width > 0 ? Math.min(k - 1, Math.floor(((c - range.min) / width) * k)) : 0;
        u.sumS[bin] = (u.sumS[bin] as number) + c;
        u.sumR[bin] = (u.sumR[bin] as number) + (ex.r[i] as number);
        u.cnt[bin] = (u.cnt[bin] as number) + 1;
        u.rewards[bin]!.push(ex.r[i] as number);
      }
      perRun.push(u);
    }
    const total = (f: "sumS" | "sumR" | "cnt", b: number): number => perRun.reduce((a, u) => a + (u[f][b] as number), 0);
    const B = cfg?.B ?? 0;
    const reps = Array.from({ length: k }, () => new Float64Array(B));
    if (B > 0 && perRun.length > 1) {
      const rng = bootstrapRng(cfg!.seed, "calibration", game);
      const sumR = new Float64Array(k);
      const cnt = new Float64Array(k);
      for (let rep = 0; rep < B; rep++) {
        sumR.fill(0);
        cnt.fill(0);
        for (let j = 0; j < perRun.length; j++) {
          const u = perRun[rng.int(perRun.length)]!;
          for (let b = 0; b < k; b++) {
            sumR[b] = (sumR[b] as number) + (u.sumR[b] as number);
            cnt[b] = (cnt[b] as number) + (u.cnt[b] as number);
          }
        }
        for (let b = 0; b < k; b++) reps[b]![rep] = (cnt[b] as number) > 0 ? (sumR[b] as number) / (cnt[b] as number) : Number.NaN;
      }
    } else if (B > 0 && perRun.length === 1) {
      const u = perRun[0]!;
      for (let b = 0; b < k; b++) {
        const rng = bootstrapRng(cfg!.seed, "calibration", game, String(b));
        const rs = u.rewards[b]!;
        for (let rep = 0; rep < B; rep++) reps[b]![rep] = rs.length > 0 ? resampleMean(rs, rng) : Number.NaN;
      }
    }
    for (let b = 0; b < k; b++) {
      const n = total("cnt", b);
      if (n === 0) continue;
      const iv = B > 0 ? percentileInterval(reps[b]!, level) : { lo: null, hi: null };
      out.push({
        game,
        bin: b,
        s_mean: total("sumS", b) / n,
        r_mean: total("sumR", b) / n,
        r_lo: iv.lo,
        r_hi: iv.hi,
        n,
        n_runs: perRun.filter((u) => (u.cnt[b] as number) > 0).length,
        game_runs: perRun.filter((u) => u.cnt.some((c) => (c as number) > 0)).length,
      });
    }
  }
  return out;
}

/** A reliability bin: one model's scored steps of one game whose clipped s falls in the bin. */
export interface ReliabilityBin {
  game: string;
  model: string;
  bin: number;
  /** The bin's edges on the clipped self-score axis (the game's reward range cut in equal parts). */
  lo: number;
  hi: number;
  /** Mean clipped self-score and mean verifier reward of the bin's steps. */
  s_mean: number;
  r_mean: number;
  /** Steps in the bin: a mean of a few steps is a thin bin, drawn as such. */
  n: number;
}

/**
 * The reliability diagram's bins: per game and per model (the calibration figure pools the models),
 * scored exploration steps of history and memory runs, s clipped into the game's reward range and
 * binned as calibrationBins bins it (`nBins` equal-width bins; one when the range is a point). Empty
 * bins are left out. No interval: each bin shows its step count instead, and the pooled calibration
 * figure carries the intervals.
 */
export function reliabilityBins(inputs: JudgingInputs, nBins = 10): ReliabilityBin[] {
  const out: ReliabilityBin[] = [];
  for (const game of distinct(inputs.runs.map((r) => r.run.game))) {
    const range = inputs.ranges.get(game);
    if (!range) continue;
    const width = range.max - range.min;
    const k = width > 0 ? nBins : 1;
    const gameRuns = inputs.runs.filter((r) => r.run.game === game);
    for (const model of distinct(gameRuns.map((r) => r.run.model))) {
      const sumS = new Float64Array(k);
      const sumR = new Float64Array(k);
      const cnt = new Float64Array(k);
      for (const jr of gameRuns) {
        if (jr.run.model !== model || jr.run.explore === null) continue;
        const ex = jr.run.explore;
        for (let i = 0; i < ex.length; i++) {
          const s = ex.s[i] as number;
          if (Number.isNaN(s)) continue;
          const c = Math.min(range.max, Math.max(range.min, s));
          const bin = width > 0 ? Math.min(k - 1, Math.floor(((c - range.min) / width) * k)) : 0;
          sumS[bin] = (sumS[bin] as number) + c;
          sumR[bin] = (sumR[bin] as number) + (ex.r[i] as number);
          cnt[bin] = (cnt[bin] as number) + 1;
        }
      }
      for (let b = 0; b < k; b++) {
        const n = cnt[b] as number;
        if (n === 0) continue;
        out.push({
          game,
          model,
          bin: b,
          lo: width > 0 ? range.min + (width * b) / k : range.min,
          hi: width > 0 ? range.min + (width * (b + 1)) / k : range.max,
          s_mean: (sumS[b] as number) / n,
          r_mean: (sumR[b] as number) / n,
          n,
        });
      }
    }
  }
  return out;
}
