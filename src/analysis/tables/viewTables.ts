/**
 * The views' tables (views.md "Tables"): `views` (per run and view: Avg, Max, AUC+, NABA, the final
 * gain: IDG on `id`, OODG on `eval`, the best intermediate snapshot and its later regression, and the
 * run's rate of updates that help one view and hurt another), `view_updates` (UVG per checkpoint and
 * view), `forgetting` (replay: fixed / forgotten / kept / never, FR), `cost` (per checkpoint:
 * exploration + consolidation cumulative, evaluation apart) and `cost_runs` (per run: totals and
 * gain per million exploration tokens).
 *
 * Intervals: the unit is the view's SEED (metrics.md): a resample draws seed multiplicities once and
 * uses them at every checkpoint of the view, from the same stream as every run of the game with the
 * same seed list (seedStream), with the measured default method (tableInterval). Rows are per run
 * (the protocol has one run per model, game and pathway; replicate run seeds give one row each).
 */
import { VIEWS, type ViewName } from "../../logs/schema.js";
import { MethodTally, describeBootstrap, methodOf, pointOnly, type BootstrapConfig, type Estimate } from "../stats/bootstrap.js";
import { addUsage, costPerCheckpoint, emptyUsage, gainPerMillionTokens, totalTokens, type CostPoint } from "../metrics/cost.js";
import { flagEstimate, smallNNote, type CoverageMetric } from "../stats/coverage.js";
import { curveMetrics, type CurveMetrics, type CurvePoint } from "../metrics/curves.js";
import { compareRuns, type CheckpointData, type Dataset, type ExtraViewName, type RunData } from "../load/dataset.js";
import { NONNEGATIVE_RANGE, observedRange, simpleDesign, tableIntervalMany, type StatRange } from "../stats/intervals.js";
import { ESTIMAND_ONE_RUN_PER_ROW } from "../stats/estimand.js";

/**
 * What forgetting's intervals cover: the replay view plays EXPLORATION seeds again at each checkpoint,
 * and those replayed seeds are what its bootstrap resamples; no evaluation seed enters it.
 */
const FORGETTING_ESTIMAND =
  "Estimand: the intervals cover these runs' forgetting on replays of exploration seeds like the n_seeds replayed here (the replayed exploration seeds are resampled, not held-out evaluation seeds); a row with one run says nothing about another run of the same model.";
import { isTraining } from "../load/runs.js";
import { seedCurve, seedStream, type SeedCurve } from "../stats/seedCurves.js";
import { withInstrumentNote } from "./instruments.js";
import type { Table } from "./table.js";
import { disagreement, forgetting, transferGain, updateGains, weightedCurve, type Forgetting, type TransferGain, type UpdateGain } from "../metrics/viewMetrics.js";
import { successThreshold } from "../../games/successThreshold.js";

/** The views in table order: the registry's (logs/schema.ts VIEWS). */
export const VIEW_ORDER = VIEWS;
export type AnyView = ViewName;

/** A run's checkpoints of one view (`eval`: the run's curve). */
export function viewCheckpoints(run: RunData, view: AnyView): CheckpointData[] | undefined {
  return view === "eval" ? run.checkpoints : run.views[view as ExtraViewName];
}

/** The view of a run as a seed x checkpoint matrix (seedCurves.ts). */
export function viewSeedCurve(run: RunData, view: AnyView): SeedCurve | null {
  const cps = viewCheckpoints(run, view);
  if (!cps) return null;
  return seedCurve({ ...run, checkpoints: cps });
}

/** Whether any run of the data set played a view besides `eval`. */
export function hasViews(ds: Dataset): boolean {
  return ds.runs.some((r) => Object.keys(r.views).length > 0);
}

/** The last checkpoint of each game's schedule (the largest x any of its runs recorded in the view). */
function lastXByGame(runs: readonly RunData[], view: AnyView): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of runs) for (const c of viewCheckpoints(r, view) ?? []) out.set(r.game, Math.max(out.get(r.game) ?? 0, c.x));
  return out;
}

/** What the statistics of one seed curve share at a weight vector, each computed on first use. */
class AtWeights {
  private c: CurvePoint[] | null = null;
  private m: CurveMetrics | null = null;
  private u: UpdateGain[] | null = null;
  private f: Forgetting | null = null;
  private t: TransferGain | null = null;
  constructor(
    private readonly sc: SeedCurve,
    readonly w: ArrayLike<number>,
  ) {}
  /** The transfer gain against the schedule's last checkpoint `lastX` (one per seed curve). */
  transfer(lastX: number | undefined): TransferGain {
    return (this.t ??= transferGain(this.curve, lastX));
  }
  get curve(): CurvePoint[] {
    return (this.c ??= weightedCurve(this.sc, this.w));
  }
  get metrics(): CurveMetrics {
    return (this.m ??= curveMetrics(this.curve));
  }
  get updates(): UpdateGain[] {
    return (this.u ??= updateGains(this.sc, this.w));
  }
  forgetting(threshold: number): Forgetting {
    return (this.f ??= forgetting(this.sc, threshold, this.w));
  }
}

/** A statistic of one seed curve at a weight vector, and the metric its coverage flag reads. */
interface SeedStat {
  of: (at: AtWeights) => number | null;
  metric: CoverageMetric;
  /** What the statistic can take, given the run's observed score range (its interval stays inside). */
  range: (scores: StatRange) => StatRange;
  /** The table whose note names the methods its intervals used. */
  tally: MethodTally;
}

/** Ranges of seed statistics: a mean of scores, a difference of two, a non-negative part of one. */
const SCORE = (s: StatRange): StatRange => s;
const DIFFERENCE = (s: StatRange): StatRange => ({ lo: s.lo - s.hi, hi: s.hi - s.lo });
const SHORTFALL = (s: StatRange): StatRange => ({ lo: 0, hi: s.hi - s.lo });
const NONNEGATIVE = (): StatRange => NONNEGATIVE_RANGE;
const CURVE_RANGE: Record<(typeof CURVE_METRICS)[number], (s: StatRange) => StatRange> = { avg: SCORE, max: SCORE, auc_plus: NONNEGATIVE, naba: NONNEGATIVE };

/**
 * Statistics of seed weights -> their table Estimates (seed-level interval, unit count, coverage
 * flag). Every statistic of a seed curve is drawn from the same stream (seedStream), so they share
 * one pass over the draws (tableIntervalMany), and the weighted curve and its metrics are computed
 * once per weight vector for all of them: each Estimate is bit for bit the one its statistic gets
 * alone.
 */
function seedEstimates(sc: SeedCurve, stats: readonly SeedStat[], cfg: BootstrapConfig): Estimate[] {
  const K = sc.keys.length;
  const ones = new Int32Array(K).fill(1);
  const at = new AtWeights(sc, ones);
  const points = stats.map((s) => s.of(at));
  const bootstrapped = points.some((p) => p !== null && Number.isFinite(p));
  const intervals =
    cfg.B === 0 || K === 0 || !bootstrapped
      ? null
      : tableIntervalMany(
          simpleDesign(K),
          (w, out) => {
            const here = new AtWeights(sc, w);
            for (let j = 0; j < stats.length; j++) out[j] = (stats[j] as SeedStat).of(here) ?? Number.NaN;
          },
          stats.length,
          cfg.B,
          seedStream(cfg.seed, sc),
          methodOf(cfg, "curve"),
          cfg.level,
          stats.map((s) => s.range(observedRange(sc.scores))),
        );
  return stats.map((s, j) => {
    const point = points[j] as number | null;
    if (point === null || !Number.isFinite(point)) return pointOnly(null);
    if (intervals === null) return { ...pointOnly(point), n: K };
    const r = intervals[j]!;
    s.tally.add(r.method, r.fellBack);
    return flagEstimate({ point, lo: r.interval.lo, hi: r.interval.hi, n: K }, s.metric);
  });
}

/** A row of `views`. */
export interface ViewRow {
  model: string;
  game: string;
  pathway: string;
  run_id: string;
  view: AnyView;
  /** Valid checkpoints of the view, and its distinct seeds (the resampling units). */
  n_checkpoints: number;
  n_seeds: number;
  avg: Estimate;
  max: Estimate;
  auc_plus: Estimate;
  naba: Estimate;
  /** y(last) - y(0): IDG on `id`, OODG on `eval`; missing on `replay` (no checkpoint 0). */
  final_gain: Estimate;
  /** The best intermediate snapshot (0 < x < last): where, its gain over y(0), and what the end lost of it. */
  best_x: number | null;
  best_gain: Estimate;
  regression: Estimate;
  /** The run's updates with a UVG on two or more views, and the share where one view gained and another lost. */
  n_updates: number;
  disagree_rate: number | null;
}

/** A row of `view_updates`: UVG(x) of one view of one run. */
export interface ViewUpdateRow {
  model: string;
  game: string;
  pathway: string;
  run_id: string;
  view: AnyView;
  x: number;
  from: number;
  uvg: Estimate;
}

/** A row of `forgetting`. */
export interface ForgettingRow {
  model: string;
  game: string;
  pathway: string;
  run_id: string;
  /** The game's success threshold (games/successThreshold.ts); null for a game the kit does not know (nothing is counted). */
  threshold: number | null;
  /** Replayed seeds counted (played at the last checkpoint). */
  n_seeds: number;
  fixed: number;
  forgotten: number;
  kept: number;
  never: number;
  y_first: Estimate;
  y_last: Estimate;
  fr: Estimate;
}

/** A row of `cost`: one checkpoint of one run. */
export interface CostRow {
  model: string;
  game: string;
  pathway: string;
  run_id: string;
  x: number;
  explore_calls: number;
  explore_tokens_in: number;
  explore_tokens_cached: number;
  explore_tokens_out: number;
  /** Reasoning tokens (part of tokens_out) where the provider reports them apart. */
  explore_tokens_reasoning: number;
  explore_usd: number | null;
  eval_calls: number;
  eval_tokens_in: number;
  eval_tokens_cached: number;
  eval_tokens_out: number;
  eval_tokens_reasoning: number;
  eval_usd: number | null;
}

/** A row of `cost_runs`: one run's totals and its gain per million exploration tokens. */
export interface CostRunRow {
  model: string;
  game: string;
  pathway: string;
  run_id: string;
  /** Exploration + consolidation up to the last checkpoint. */
  explore_calls: number;
  explore_tokens: number;
  /** The kit's own count of the exploration step prompts (run tokenizer; summaries not counted): built-in models report no usage. */
  explore_prompt_tokens_counted: number;
  explore_usd: number | null;
  /** Every evaluation call (all views, all checkpoints). */
  eval_calls: number;
  eval_tokens: number;
  eval_usd: number | null;
  /** NABA and OODG of the eval view, and each per million exploration tokens (missing without tokens). */
  naba: number | null;
  oodg: number | null;
  naba_per_mtok: number | null;
  oodg_per_mtok: number | null;
}

export interface ViewAnalysis {
  views: Table<ViewRow>;
  updates: Table<ViewUpdateRow>;
  forgetting: Table<ForgettingRow>;
  cost: Table<CostRow>;
  costRuns: Table<CostRunRow>;
  /** The figures' data: per run, view and checkpoint, y with its seed-level interval. */
  series: ViewSeries[];
}

/** One view curve of a run, for the figure `views_<game>`. */
export interface ViewSeries {
  model: string;
  game: string;
  pathway: string;
  view: AnyView;
  points: { x: number; y: number; lo: number | null; hi: number | null; n: number }[];
}

const CURVE_METRICS = ["avg", "max", "auc_plus", "naba"] as const;

/** Every view table and the figures' data. Pure: the same data and seed give the same digits. */
export function analyzeViews(ds: Dataset, cfg: BootstrapConfig): ViewAnalysis {
  const runs = ds.runs.filter((r) => !isTraining(r)).sort(compareRuns);
  const viewRows: ViewRow[] = [];
  const updateRows: ViewUpdateRow[] = [];
  const forgetRows: ForgettingRow[] = [];
  const series: ViewSeries[] = [];
  const lastX = new Map(VIEW_ORDER.map((v) => [v, lastXByGame(runs, v)]));
  const withViews = runs.filter((r) => Object.keys(r.views).length > 0);
  const tallies = { views: new MethodTally(), updates: new MethodTally(), series: new MethodTally(), forgetting: new MethodTally() };

  for (const run of withViews) {
    const id = { model: run.model, game: run.game, pathway: run.pathway, run_id: run.run_id };
    const gains: UpdateGain[][] = [];
    const mine: ViewRow[] = [];
    for (const view of VIEW_ORDER) {
      const sc = viewSeedCurve(run, view);
      if (!sc || sc.xs.length === 0) continue;
      const last = lastX.get(view)?.get(run.game);
      const point = transferGain(weightedCurve(sc), last);
      const u = updateGains(sc);
      const threshold = view === "replay" ? successThreshold(run.game) : null;
      // Every estimate of this view's row, updates, series and forgetting: one pass over the draws.
      const tg = (name: "final_gain" | "best_gain" | "regression"): SeedStat => ({
        of: (at) => at.transfer(last)[name],
        metric: "avg",
        range: name === "regression" ? SHORTFALL : DIFFERENCE,
        tally: tallies.views,
      });
      const stats: SeedStat[] = [
        ...CURVE_METRICS.map((m): SeedStat => ({ of: (at) => at.metrics[m], metric: m, range: CURVE_RANGE[m], tally: tallies.views })),
        tg("final_gain"),
        // The best snapshot's gain is taken at the point's best x (a resample's best may sit elsewhere).
        { of: (at) => (point.best_x === null ? null : gainAt(at.curve, point.best_x)), metric: "avg", range: DIFFERENCE, tally: tallies.views },
        tg("regression"),
        ...u.map((g, i): SeedStat => ({ of: (at) => (g.uvg === null ? null : (at.updates[i]?.uvg ?? null)), metric: "avg", range: DIFFERENCE, tally: tallies.updates })),
        ...sc.xs.map((_, c): SeedStat => ({ of: (at) => at.curve[c]?.y ?? null, metric: "avg", range: SCORE, tally: tallies.series })),
        ...(threshold === null
          ? []
          : (["y_first", "y_last", "fr"] as const).map(
              (k): SeedStat => ({ of: (at) => at.forgetting(threshold)[k], metric: "avg", range: k === "fr" ? SHORTFALL : SCORE, tally: tallies.forgetting }),
            )),
      ];
      const est = seedEstimates(sc, stats, cfg);
      const take = (n: number): Estimate[] => est.splice(0, n);
      const [avg, max, auc_plus, naba, final_gain, best_gain, regression] = take(7) as Estimate[];
      mine.push({
        ...id,
        view,
        n_checkpoints: sc.xs.length,
        n_seeds: sc.keys.length,
        avg: avg!,
        max: max!,
        auc_plus: auc_plus!,
        naba: naba!,
        final_gain: final_gain!,
        best_x: point.best_x,
        best_gain: point.best_x === null ? pointOnly(null) : best_gain!,
        regression: regression!,
        n_updates: 0,
        disagree_rate: null,
      });
      gains.push(u);
      const uvg = take(u.length);
      u.forEach((g, i) => updateRows.push({ ...id, view, x: g.x, from: g.from, uvg: g.uvg === null ? pointOnly(null) : uvg[i]! }));
      series.push({ ...id, view, points: seriesPoints(sc, take(sc.xs.length)) });
      if (view === "replay") forgetRows.push(forgettingRow(run, sc, threshold, take(3)));
    }
    const d = disagreement(gains);
    for (const r of mine) viewRows.push({ ...r, n_updates: d.n_updates, disagree_rate: d.rate });
  }

  const costRows: CostRow[] = [];
  const costRunRows: CostRunRow[] = [];
  for (const run of runs) {
    if (!run.cost) continue;
    const id = { model: run.model, game: run.game, pathway: run.pathway, run_id: run.run_id };
    const xs = run.checkpoints.map((c) => c.x);
    const points = costPerCheckpoint(run.cost, xs);
    for (const p of points) costRows.push(costRow(id, p));
    const lastExplore = points.length > 0 ? (points[points.length - 1] as CostPoint).explore : costPerCheckpoint(run.cost, [Number.MAX_SAFE_INTEGER])[0]!.explore;
    const evalAll = [...run.cost.eval.values()].reduce(addUsage, emptyUsage());
    const curve = weightedCurve(seedCurve(run));
    const naba = curveMetrics(curve).naba;
    const oodg = transferGain(curve, lastX.get("eval")?.get(run.game)).final_gain;
    costRunRows.push({
      ...id,
      explore_calls: lastExplore.calls,
      explore_tokens: totalTokens(lastExplore),
      explore_prompt_tokens_counted: lastExplore.tokens_in_local,
      explore_usd: lastExplore.usd,
      eval_calls: evalAll.calls,
      eval_tokens: totalTokens(evalAll),
      eval_usd: evalAll.usd,
      naba,
      oodg,
      naba_per_mtok: gainPerMillionTokens(naba, lastExplore),
      oodg_per_mtok: gainPerMillionTokens(oodg, lastExplore),
    });
  }

  const unit = "the view's seeds, drawn once per resample and used at every checkpoint of the view (the same draw for every run of the game with the same seeds)";
  const estimateCols = (keys: readonly string[]) => keys.map((key) => ({ key, kind: "estimate" as const }));
  const idCols = [
    { key: "model", kind: "text" as const },
    { key: "game", kind: "text" as const },
    { key: "pathway", kind: "text" as const },
  ];
  return {
    views: withInstrumentNote(
      {
        name: "views",
        title: "Evaluation views: curve metrics, transfer gain (IDG on id, OODG on eval) and the best intermediate snapshot",
        columns: [
          ...idCols,
          { key: "view", kind: "text" },
          { key: "n_checkpoints", kind: "int" },
          { key: "n_seeds", kind: "int" },
          ...estimateCols(["avg", "max", "auc_plus", "naba", "final_gain"]),
          { key: "best_x", kind: "int" },
          ...estimateCols(["best_gain", "regression"]),
          { key: "n_updates", kind: "int" },
          { key: "disagree_rate", kind: "num" },
        ],
        rows: viewRows,
        notes: [
          describeBootstrap(cfg, unit, tallies.views),
          ESTIMAND_ONE_RUN_PER_ROW,
          "Views (views.md): eval = the strict held-out evaluation (OOD transfer); id = the explore config on a held-out seed list (ID transfer); replay = the first K exploration seeds re-played with the explore config (retention; no checkpoint 0, so no AUC+, NABA or final gain).",
          "final_gain = y(last) - y(0). best_x, best_gain: the best intermediate checkpoint (0 < x < last) and its gain over y(0); regression = max(0, best_gain - final_gain). disagree_rate: the share of the run's updates (checkpoints where two or more views have a UVG) at which one view gained and another lost (view_updates has every UVG).",
          ...smallNNote(
            viewRows,
            CURVE_METRICS.map((m) => ({ key: m, metric: m })),
          ),
        ],
      },
      [],
    ),
    updates: withInstrumentNote(
      {
        name: "view_updates",
        title: "Update gain per checkpoint and view: UVG(x) = y(x) - y(previous checkpoint)",
        columns: [...idCols, { key: "view", kind: "text" }, { key: "x", kind: "int" }, { key: "from", kind: "int" }, { key: "uvg", kind: "estimate" }],
        rows: updateRows,
        notes: [
          describeBootstrap(cfg, unit, tallies.updates),
          ESTIMAND_ONE_RUN_PER_ROW,
          "UVG compares the seeds played at both checkpoints (the replay view adds seeds as they are explored); `from` is the previous valid checkpoint.",
        ],
      },
      [],
    ),
    forgetting: withInstrumentNote(
      {
        name: "forgetting",
        title: "Forgetting on replay: each re-played exploration seed solved at its first replay vs at the last checkpoint",
        columns: [
          ...idCols,
          { key: "threshold", kind: "num" },
          { key: "n_seeds", kind: "int" },
          { key: "fixed", kind: "int" },
          { key: "forgotten", kind: "int" },
          { key: "kept", kind: "int" },
          { key: "never", kind: "int" },
          ...estimateCols(["y_first", "y_last", "fr"]),
        ],
        rows: forgetRows,
        notes: [
          describeBootstrap(cfg, "the replayed exploration seeds (n_seeds of each row)", tallies.forgetting),
          FORGETTING_ESTIMAND,
          "Solved: score >= the game's success threshold (src/games/successThreshold.ts: chess, minesweeper, nullify 1 (won); tetris 3 lines; snake 3 apples; pvz 32 turns; trust 40 coins). fixed: unsolved at the first replay, solved at the last checkpoint; forgotten: the reverse; kept: solved at both; never: at neither. FR = max(0, y_first - y_last).",
        ],
      },
      [],
    ),
    cost: withInstrumentNote(
      {
        name: "cost",
        title: "Cost per checkpoint: exploration and consolidation up to x (cumulative), evaluation of x apart",
        columns: [
          ...idCols,
          { key: "x", kind: "int" },
          ...["calls", "tokens_in", "tokens_cached", "tokens_out", "tokens_reasoning"].map((k) => ({ key: `explore_${k}`, kind: "int" as const })),
          { key: "explore_usd", kind: "num" },
          ...["calls", "tokens_in", "tokens_cached", "tokens_out", "tokens_reasoning"].map((k) => ({ key: `eval_${k}`, kind: "int" as const })),
          { key: "eval_usd", kind: "num" },
        ],
        rows: costRows,
        notes: [
          describeBootstrap(cfg, "nothing: cost is counted from calls.jsonl, not estimated, so it has no interval", new MethodTally()),
          "From calls.jsonl (every call made, retried and discarded attempts included). explore_*: the step calls of exploration episodes 1..x and the memory summaries after them; eval_*: the calls of checkpoint x's evaluation episodes, all views. Cached prompt tokens are part of tokens_in; reasoning tokens (completion_tokens_details.reasoning_tokens, where the provider reports them) are part of tokens_out. Dollars come from the models file's prices: empty when no call had one. Built-in models count no tokens (0).",
        ],
      },
      [],
    ),
    costRuns: withInstrumentNote(
      {
        name: "cost_runs",
        title: "Cost per run and gain per million exploration tokens",
        columns: [
          ...idCols,
          { key: "explore_calls", kind: "int" },
          { key: "explore_tokens", kind: "int" },
          { key: "explore_prompt_tokens_counted", kind: "int" },
          { key: "explore_usd", kind: "num" },
          { key: "eval_calls", kind: "int" },
          { key: "eval_tokens", kind: "int" },
          { key: "eval_usd", kind: "num" },
          { key: "naba", kind: "num" },
          { key: "oodg", kind: "num" },
          { key: "naba_per_mtok", kind: "num" },
          { key: "oodg_per_mtok", kind: "num" },
        ],
        rows: costRunRows,
        notes: [
          describeBootstrap(cfg, "nothing: cost is counted, not estimated; the intervals of naba and oodg are in main_results and views", new MethodTally()),
          "explore_*: exploration and consolidation up to the run's last checkpoint; eval_*: every evaluation call. naba and oodg (= y(last) - y(0)) are the eval view's; *_per_mtok divides them by the exploration tokens in millions (in + out), empty when no token was counted (built-in models). explore_prompt_tokens_counted: the kit's own count (run tokenizer) of the exploration step prompts, logged for every model (tokens_in_local of calls.jsonl; summaries' prompts not counted): the only token count of a built-in model, 0 in logs written before it was logged.",
        ],
      },
      [],
    ),
    series,
  };
}

function costRow(id: Pick<CostRow, "model" | "game" | "pathway" | "run_id">, p: CostPoint): CostRow {
  return {
    ...id,
    x: p.x,
    explore_calls: p.explore.calls,
    explore_tokens_in: p.explore.tokens_in,
    explore_tokens_cached: p.explore.tokens_cached,
    explore_tokens_out: p.explore.tokens_out,
    explore_tokens_reasoning: p.explore.tokens_reasoning,
    explore_usd: p.explore.usd,
    eval_calls: p.eval.calls,
    eval_tokens_in: p.eval.tokens_in,
    eval_tokens_cached: p.eval.tokens_cached,
    eval_tokens_out: p.eval.tokens_out,
    eval_tokens_reasoning: p.eval.tokens_reasoning,
    eval_usd: p.eval.usd,
  };
}

/** y(x) - y(0) of a weighted curve (null when either is missing). */
function gainAt(curve: readonly CurvePoint[], x: number): number | null {
  const y0 = curve.find((p) => p.x === 0)?.y ?? null;
  const y = curve.find((p) => p.x === x)?.y ?? null;
  return y0 === null || y === null ? null : y - y0;
}

/** The view's y(x) with its seed-level interval (`ys`, one per valid checkpoint) at each valid checkpoint. */
function seriesPoints(sc: SeedCurve, ys: readonly Estimate[]): ViewSeries["points"] {
  const K = sc.keys.length;
  return sc.xs.map((x, c) => {
    let n = 0;
    for (let k = 0; k < K; k++) if (!Number.isNaN(sc.scores[c * K + k] as number)) n++;
    const e = ys[c]!;
    return { x, y: e.point as number, lo: e.lo, hi: e.hi, n };
  });
}

/**
 * The replay view's forgetting with the game's success threshold and a seed-level interval for FR
 * (`est`: y_first, y_last and fr's estimates; empty without a threshold).
 */
function forgettingRow(run: RunData, sc: SeedCurve, threshold: number | null, est: readonly Estimate[]): ForgettingRow {
  const base = { model: run.model, game: run.game, pathway: run.pathway, run_id: run.run_id, threshold };
  if (threshold === null) {
    return { ...base, n_seeds: 0, fixed: 0, forgotten: 0, kept: 0, never: 0, y_first: pointOnly(null), y_last: pointOnly(null), fr: pointOnly(null) };
  }
  const f = forgetting(sc, threshold);
  return {
    ...base,
    n_seeds: f.seeds.length,
    fixed: f.fixed,
    forgotten: f.forgotten,
    kept: f.kept,
    never: f.never,
    y_first: est[0]!,
    y_last: est[1]!,
    fr: est[2]!,
  };
}
