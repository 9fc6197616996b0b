/**
 * Curve tables: main results (paper Table 4), summary vs history (Table 7, dNABA), training (Figure 7's
 * numbers), and the per-checkpoint series the curve figures draw.
 *
 * Rows are (model, game, pathway) groups. The protocol has one run per group; when a data set holds
 * several (replicate run seeds), a row's metric is the mean over its runs of the per-run metric (runs
 * where the metric is missing are left out), and the bootstrap averages the runs' replicates alike.
 */
import {
  DEFAULT_LEVEL,
  bootstrapRng,
  describeBootstrap,
  estimate,
  percentileInterval,
  pointOnly,
  resampleMean,
  type BootstrapConfig,
  type Estimate,
} from "./bootstrap.js";
import { curveMetrics, curveMetricsSorted, summarizeDeltas, trainingMetrics, type CurveMetrics, type TrainingMetrics } from "./curves.js";
import { compareText, type Dataset, type RunData } from "./dataset.js";
import { distinct, groupBy, isTraining, requiredGames, runCurve } from "./runs.js";
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
  avg: Estimate;
  max: Estimate;
  auc_plus: Estimate;
  naba: Estimate;
  /** The run_ids behind the row. */
  runs: string[];
  /** False when the model lacks results on some game of the data set (see `incompleteModels`). */
  complete: boolean;
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
}

/** The row key of a (model, game, pathway) group. */
export function rowKey(model: string, game: string, pathway: string): string {
  return `${model}|${game}|${pathway}`;
}

/**
 * Bootstrap replicates of a run's curve metrics: B resamples of the evaluation episodes within each
 * valid checkpoint (with replacement, same count), the stream keyed by (seed, "curve", run_id).
 * Calls `onReplicate(b, metrics, ys)` with the resampled valid y values (x order) of replicate b.
 */
export function bootstrapRunCurve(
  run: RunData,
  cfg: BootstrapConfig,
  onReplicate: (b: number, m: CurveMetrics, ys: Float64Array) => void,
): void {
  const valid = run.checkpoints.filter((c) => c.valid);
  if (valid.length === 0) return;
  const xs = Float64Array.from(valid.map((c) => c.x));
  const ys = new Float64Array(valid.length);
  const hasY0 = valid[0]?.x === 0;
  const rng = bootstrapRng(cfg.seed, "curve", run.run_id);
  const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  for (let b = 0; b < cfg.B; b++) {
    for (let i = 0; i < valid.length; i++) ys[i] = resampleMean((valid[i] as { scores: number[] }).scores, rng);
    curveMetricsSorted(xs, ys, valid.length, hasY0, m);
    onReplicate(b, m, ys);
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

  for (const [key, members] of groups) {
    const first = members[0] as RunData;
    const points = members.map((r) => curveMetrics(runCurve(r)));
    const B = cfg.B;
    // Accumulate replicate means over the runs where each metric is defined (a per-run property).
    const sums: Record<MetricName, Float64Array> = {
      avg: new Float64Array(B),
      max: new Float64Array(B),
      auc_plus: new Float64Array(B),
      naba: new Float64Array(B),
    };
    const counts: Record<MetricName, number> = { avg: 0, max: 0, auc_plus: 0, naba: 0 };
    const band = new Map<number, { sum: Float64Array; pointSum: number; n: number; episodes: number }>();
    members.forEach((run, k) => {
      const p = points[k] as CurveMetrics;
      for (const name of METRICS) if (p[name] !== null) counts[name]++;
      const validXs = run.checkpoints.filter((c) => c.valid).map((c) => c.x);
      for (const c of run.checkpoints) {
        if (!c.valid) continue;
        const slot = band.get(c.x) ?? { sum: new Float64Array(B), pointSum: 0, n: 0, episodes: 0 };
        slot.pointSum += c.scores.reduce((a, b) => a + b, 0) / c.scores.length;
        slot.n++;
        slot.episodes += c.scores.length;
        band.set(c.x, slot);
      }
      const slots = validXs.map((x) => (band.get(x) as { sum: Float64Array }).sum);
      bootstrapRunCurve(run, cfg, (b, m, ys) => {
        for (const name of METRICS) {
          const v = m[name];
          if (v !== null) (sums[name] as Float64Array)[b] += v;
        }
        for (let i = 0; i < slots.length; i++) (slots[i] as Float64Array)[b] += ys[i] as number;
      });
    });
    const est = (name: MetricName): Estimate => {
      const defined = points.map((p) => p[name]).filter((v): v is number => v !== null);
      if (defined.length === 0) return pointOnly(null);
      const point = defined.reduce((a, b) => a + b, 0) / defined.length;
      if (B === 0) return pointOnly(point);
      const reps = sums[name].map((v) => v / counts[name]);
      if (name === "naba") nabaReplicates.set(key, reps);
      return estimate(point, reps, level);
    };
    const row: MainResultsRow = {
      model: first.model,
      game: first.game,
      pathway: first.pathway,
      n_checkpoints: members.reduce((a, r) => a + r.checkpoints.filter((c) => c.valid).length, 0),
      avg: est("avg"),
      max: est("max"),
      auc_plus: est("auc_plus"),
      naba: est("naba"),
      runs: members.map((r) => r.run_id),
      complete: true,
    };
    if (!nabaReplicates.has(key)) nabaReplicates.set(key, null);
    rows.push(row);
    if (members.length > 1) remarks.push(`${first.model} / ${first.game} / ${first.pathway}: mean of ${members.length} runs`);
    const pts: SeriesPoint[] = [...band.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([x, s]) => {
        const iv = B > 0 ? percentileInterval(s.sum.map((v) => v / s.n), level) : { lo: null, hi: null };
        return { x, y: s.pointSum / s.n, lo: iv.lo, hi: iv.hi, n_runs: s.n, n_episodes: s.episodes };
      });
    series.push({ model: first.model, game: first.game, pathway: first.pathway, points: pts });
  }

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
  return { rows, series, nabaReplicates, incompleteModels, games: [...games], remarks };
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
  return requireComplete
    ? [`Left out by --require-complete (no results on every game): ${list}.`]
    : [`† incomplete model (no results on every game of the data set): ${list}.`];
}

/** Paper Table 4: Avg, Max, AUC+ (with intervals) and NABA per (model, game, pathway). */
export function mainResultsTable(ca: CurveAnalysis, cfg: BootstrapConfig, opts: CurveTableOptions = {}): Table<MainResultsRow> {
  const rows = opts.requireComplete ? ca.rows.filter((r) => r.complete) : ca.rows;
  return {
    name: "main_results",
    title: "Main results: checkpoint curves (Avg, Max, AUC+, NABA)",
    columns: [
      { key: "model", kind: "text" },
      { key: "game", kind: "text" },
      { key: "pathway", kind: "text" },
      { key: "n_checkpoints", kind: "int" },
      { key: "avg", kind: "estimate" },
      { key: "max", kind: "estimate" },
      { key: "auc_plus", kind: "estimate" },
      { key: "naba", kind: "estimate_point" },
    ],
    rows,
    notes: [
      describeBootstrap(cfg, "evaluation episodes within each checkpoint of each run"),
      "Scores are in each game's own units; raw AUC+ is comparable only within one game. Failed checkpoints are left out (AUC+ joins their valid neighbours); a run whose checkpoint 0 failed has no AUC+ or NABA.",
      ...incompleteNote(ca, opts.requireComplete ?? false),
      ...ca.remarks,
    ],
  };
}

/** A row of summary_vs_history: per (game, model), or the per-game "mean" row. */
export interface SummaryRow {
  game: string;
  model: string;
  dnaba: Estimate;
  /** Counts over models (the "mean" row only; null on model rows). */
  wins: number | null;
  losses: number | null;
  ties: number | null;
}

/**
 * Paper Table 7: dNABA = NABA(memory) - NABA(history) per (game, model) with an interval (both runs
 * resampled: the replicates of the two rows are differenced), and per game the mean over models with
 * wins / losses / ties. Model rows come first, the game's "mean" row last.
 */
export function summaryVsHistoryTable(ca: CurveAnalysis, cfg: BootstrapConfig, opts: CurveTableOptions = {}): Table<SummaryRow> {
  const level = cfg.level ?? DEFAULT_LEVEL;
  const keep = (m: string): boolean => !opts.requireComplete || !ca.incompleteModels.has(m);
  const byGame = groupBy(
    ca.rows.filter((r) => keep(r.model)),
    (r) => r.game,
  );
  const rows: SummaryRow[] = [];
  let improved = 0;
  let gamesWithMean = 0;
  for (const game of [...byGame.keys()].sort((a, b) => compareText(a, b))) {
    const gameRows = byGame.get(game) as MainResultsRow[];
    const deltas: { model: string; d: number | null; reps: Float64Array | null }[] = [];
    for (const model of distinct(gameRows.map((r) => r.model))) {
      const mem = gameRows.find((r) => r.model === model && r.pathway === "memory");
      const his = gameRows.find((r) => r.model === model && r.pathway === "history");
      if (!mem || !his) continue;
      const d = mem.naba.point === null || his.naba.point === null ? null : mem.naba.point - his.naba.point;
      const rm = ca.nabaReplicates.get(rowKey(model, game, "memory")) ?? null;
      const rh = ca.nabaReplicates.get(rowKey(model, game, "history")) ?? null;
      const reps = d === null || rm === null || rh === null ? null : rm.map((v, b) => v - (rh[b] as number));
      deltas.push({ model, d, reps });
      rows.push({ game, model, dnaba: estimate(d, reps, level), wins: null, losses: null, ties: null });
    }
    if (deltas.length === 0) continue;
    const s = summarizeDeltas(deltas.map((x) => x.d));
    const defined = deltas.filter((x) => x.d !== null);
    let reps: Float64Array | null = null;
    if (defined.length > 0 && defined.every((x) => x.reps !== null) && cfg.B > 0) {
      reps = new Float64Array(cfg.B);
      for (const x of defined) (x.reps as Float64Array).forEach((v, b) => ((reps as Float64Array)[b] += v / defined.length));
    }
    rows.push({ game, model: "mean", dnaba: estimate(s.mean, reps, level), wins: s.wins, losses: s.losses, ties: s.ties });
    if (s.mean !== null) {
      gamesWithMean++;
      if (s.mean > 0) improved++;
    }
  }
  return {
    name: "summary_vs_history",
    title: "Summary Memory vs History ICL: dNABA = NABA(memory) - NABA(history)",
    columns: [
      { key: "game", kind: "text" },
      { key: "model", kind: "text" },
      { key: "dnaba", kind: "estimate" },
      { key: "wins", kind: "int" },
      { key: "losses", kind: "int" },
      { key: "ties", kind: "int" },
    ],
    rows,
    notes: [
      describeBootstrap(cfg, "evaluation episodes within each checkpoint of both runs (memory and history)"),
      `Across games: memory's mean dNABA is positive on ${improved} of ${gamesWithMean} games. Wins / losses / ties count models per game (a tie is |dNABA| < 1e-9); they are empty on model rows.`,
      ...incompleteNote(ca, opts.requireComplete ?? false),
    ],
  };
}

/** A row of training.csv (one training run). */
export interface TrainingRow extends TrainingMetrics {
  model: string;
  game: string;
  run_id: string;
}

/** A training run's curve for Figure 7. */
export interface TrainingSeries {
  model: string;
  game: string;
  run_id: string;
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
 * Training metrics per training run (rows sorted by model, game, run_id), and their curves. With
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
    rows.push({ model: run.model, game: run.game, ...trainingMetrics(curve), run_id: run.run_id });
    series.push({
      model: run.model,
      game: run.game,
      run_id: run.run_id,
      // y is the curve's own value (runCurve), so the figure and the table agree to the last digit.
      points: run.checkpoints.flatMap((c, i) => {
        const y = curve[i]?.y ?? null;
        return c.valid && y !== null ? [{ x: c.x, y, ...band(run.run_id, c.x, c.scores), n: c.scores.length }] : [];
      }),
    });
  }
  const cmp = (a: { model: string; game: string; run_id: string }, b: typeof a): number =>
    compareText(a.model, b.model) || compareText(a.game, b.game) || compareText(a.run_id, b.run_id);
  rows.sort(cmp);
  series.sort(cmp);
  return { rows, series };
}

/** Figure 7's numbers: one row per training run (no intervals: these are single descriptive curves). */
export function trainingTable(rows: TrainingRow[], cfg: BootstrapConfig): Table<TrainingRow> {
  const dup = [...groupBy(rows, (r) => `${r.model}|${r.game}`).entries()].filter(([, v]) => v.length > 1);
  return {
    name: "training",
    title: "Training pathway: checkpoint (epoch) curves",
    columns: [
      { key: "model", kind: "text" },
      { key: "game", kind: "text" },
      { key: "y0", kind: "num" },
      { key: "y_final", kind: "num" },
      { key: "d_final", kind: "num" },
      { key: "avg", kind: "num" },
      { key: "max", kind: "num" },
      { key: "auc_plus", kind: "num" },
      { key: "n_above", kind: "int" },
      { key: "n_updated", kind: "int" },
    ],
    rows,
    notes: [
      `${describeBootstrap(cfg, "nothing (this table has no intervals)")}`,
      "Epoch 0 is the base model (y0); avg and max are over the valid updated epochs (1..K-1), n_above counts those above y0, AUC+ uses spacing 1. y_final is the last recorded epoch (missing when it failed).",
      ...dup.map(([k, v]) => `${k.replace("|", " / ")}: ${v.length} training runs (${v.map((r) => r.run_id).join(", ")}), one row each.`),
    ],
  };
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
      for (const game of games)
        for (const pathway of pathways) row[key(game, pathway)] = mine.find((r) => r.game === game && r.pathway === pathway)?.[metric] ?? null;
      out.push(row);
    }
  }
  return {
    name: "main_results_wide",
    title: "Main results in the paper's layout (Table 4): Avg, Max, AUC+ by game, ICL and Memory side by side",
    columns: [
      { key: "model", kind: "text" },
      { key: "metric", kind: "text" },
      ...games.flatMap((g) => pathways.map((p) => ({ key: key(g, p), kind: "estimate" as const }))),
    ],
    rows: out,
    notes: [
      ...main.notes.slice(0, 1),
      "The same estimates as main_results (one row per model, game and pathway there), pivoted: ICL = History ICL, Memory = Summary Memory; the `none` baseline and NABA are in main_results. An empty cell: no run for that model, game and pathway.",
      ...main.notes.slice(1),
    ],
  };
}
