/**
 * Figure 7 over loop seeds: the training runs of one (model, game) that differ only in their run seed
 * (`s3gym train-loop --run-seed N`: each seed explores, selects, fine-tunes and evaluates on boards of
 * its own) are one row, whose numbers are the mean over the seeds with a percentile interval over the
 * seeds. A single loop is a draw: its curve moves with the boards it happened to explore, and only
 * the spread across loops says whether a rise or a fall (snake's and trust's negative transfer) is the
 * loop's or the seed's.
 *
 * With one seed a row keeps its run's numbers without an interval, and the figure's band falls back to
 * the run's own evaluation episodes resampled (what Figure 7 drew before loops had seeds).
 */
import * as ss from "simple-statistics";
import { bootstrapRng, DEFAULT_LEVEL, describeBootstrap, estimate, MethodTally, type BootstrapConfig, type Estimate } from "../stats/bootstrap.js";

/**
 * The percentile intervals the rows print (an estimate from one unit prints none), so the first note
 * counts them, or says there are none instead of naming a method no cell used.
 */
function tallyOf(rows: readonly object[], keys: readonly string[]): MethodTally {
  const tally = new MethodTally();
  for (const r of rows)
    for (const k of keys) {
      const e = (r as Record<string, unknown>)[k] as Estimate | null | undefined;
      if (e && e.point !== null && e.lo !== null && e.hi !== null && !(e.n === 1 && e.lo === e.hi)) tally.add("percentile");
    }
  return tally;
}
import { coverageAt, flagEstimate } from "../stats/coverage.js";
import type { TrainingPoint, TrainingRow, TrainingSeries } from "./curveTables.js";
import type { TrainingMetrics } from "../metrics/curves.js";
import { compareText } from "../load/dataset.js";
import { groupBy } from "../load/runs.js";
import { withInstrumentNote } from "./instruments.js";
import type { Table } from "./table.js";

/** The metrics averaged over loop seeds (n_above too: a mean count). */
const SEED_METRICS = ["y0", "y_final", "d_final", "avg", "max", "auc_plus", "n_above"] as const;
type SeedMetric = (typeof SEED_METRICS)[number];

/** A row of training.csv: one (model, game) over its loop seeds. */
export type TrainingSeedRow = {
  model: string;
  game: string;
  /** Loop seeds (training runs) the row averages. */
  n_seeds: number;
  /** Their run seeds, ascending, e.g. "0 100 200". */
  run_seeds: string;
  /** Updated epochs per run (the fewest over the seeds). */
  n_updated: number;
} & Record<SeedMetric, Estimate>;

/** One epoch of a (model, game) over its loop seeds. */
export interface TrainingEpochRow {
  model: string;
  game: string;
  epoch: number;
  /** Mean over the seeds of each seed's epoch mean, with the interval over seeds (one seed: its episodes'). */
  score: Estimate;
  n_seeds: number;
  /** Evaluation episodes per seed at this epoch (the fewest). */
  n_episodes: number;
}

/** Figure 7's data for one (model, game): the mean over seeds with its band, and each seed's own line. */
export interface TrainingBandSeries {
  model: string;
  game: string;
  /** What the band resamples: the loop seeds (two or more) or, with one seed, its evaluation episodes. */
  band: "seeds" | "episodes";
  /** n_seeds: the seeds that evaluated the epoch; indicative: an interval over too few seeds (coverage.ts). */
  points: (TrainingPoint & { n_seeds: number; indicative: boolean })[];
  seeds: { run_id: string; run_seed: number; points: { x: number; y: number }[] }[];
}

/** Mean of `values` with the percentile interval of B resampled means (stream keyed by `key`); no interval for one value. */
function overSeeds(values: readonly number[], cfg: BootstrapConfig, key: readonly string[]): Estimate {
  if (values.length === 0) return estimate(null, null);
  const point = ss.mean([...values]);
  if (values.length < 2 || cfg.B === 0) return { ...estimate(point, null), n: values.length };
  const rng = bootstrapRng(cfg.seed, "training-seeds", ...key);
  const reps = new Float64Array(cfg.B);
  for (let b = 0; b < cfg.B; b++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[rng.int(values.length)] as number;
    reps[b] = sum / values.length;
  }
  // A mean over few loops: the percentile interval of a mean is marked as the curve tables mark it (coverage.ts, avg).
  return flagEstimate({ ...estimate(point, reps, cfg.level ?? DEFAULT_LEVEL), n: values.length }, "avg");
}

const groupKey = (r: { model: string; game: string }): string => `${r.model}\u0000${r.game}`;
const bySeed = <T extends { run_seed: number; run_id: string }>(a: T, b: T): number => a.run_seed - b.run_seed || compareText(a.run_id, b.run_id);

/** training.csv's rows: per (model, game), each metric's mean over the loop seeds with its interval. */
export function trainingSeedRows(rows: readonly TrainingRow[], cfg: BootstrapConfig): TrainingSeedRow[] {
  const out: TrainingSeedRow[] = [];
  for (const runs of groupBy([...rows], groupKey).values()) {
    const sorted = [...runs].sort(bySeed);
    const first = sorted[0]!;
    const metric = (m: SeedMetric): Estimate => {
      const v = sorted.map((r) => (r as TrainingMetrics)[m]).filter((x): x is number => x !== null);
      return overSeeds(v, cfg, [first.model, first.game, m]);
    };
    out.push({
      model: first.model,
      game: first.game,
      n_seeds: sorted.length,
      run_seeds: sorted.map((r) => r.run_seed).join(" "),
      ...(Object.fromEntries(SEED_METRICS.map((m) => [m, metric(m)])) as Record<SeedMetric, Estimate>),
      n_updated: Math.min(...sorted.map((r) => r.n_updated)),
    });
  }
  return out.sort((a, b) => compareText(a.model, b.model) || compareText(a.game, b.game));
}

/** Figure 7's series: per (model, game) and epoch, the mean over the seeds that evaluated it, with the band. */
export function trainingBands(series: readonly TrainingSeries[], cfg: BootstrapConfig): TrainingBandSeries[] {
  const out: TrainingBandSeries[] = [];
  for (const runs of groupBy([...series], groupKey).values()) {
    const sorted = [...runs].sort(bySeed);
    const first = sorted[0]!;
    const epochs = [...new Set(sorted.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
    const points = epochs.map((x) => {
      const at = sorted.flatMap((s) => s.points.filter((p) => p.x === x));
      if (sorted.length === 1) return { ...at[0]!, n_seeds: 1, indicative: false };
      const e = overSeeds(
        at.map((p) => p.y),
        cfg,
        [first.model, first.game, `epoch ${x}`],
      );
      return { x, y: e.point as number, lo: e.lo, hi: e.hi, n: Math.min(...at.map((p) => p.n)), n_seeds: at.length, indicative: e.indicative === true };
    });
    out.push({
      model: first.model,
      game: first.game,
      band: sorted.length > 1 ? "seeds" : "episodes",
      points,
      seeds: sorted.map((s) => ({ run_id: s.run_id, run_seed: s.run_seed, points: s.points.map((p) => ({ x: p.x, y: p.y })) })),
    });
  }
  return out.sort((a, b) => compareText(a.model, b.model) || compareText(a.game, b.game));
}

/** The note on the loop-seed intervals: how many seeds and what such an interval covers. */
function seedNote(ns: readonly number[]): string[] {
  const few = [...new Set(ns.filter((n) => n >= 2))].sort((a, b) => a - b);
  const one = ns.some((n) => n === 1);
  return [
    ...(few.length > 0
      ? [
          `Each number is the mean over the row's loop seeds (n_seeds: independent train-loop runs, each exploring, fine-tuning and evaluating on boards of its own); intervals: percentile over the seeds. n=K beside an interval: it rests on K loops, and the percentile interval of a mean covered ${few.map((n) => `${coverageAt("avg", n)?.toFixed(0) ?? "?"}% at ${n}`).join(", ")} units in bench/coverage: indicative only, read it as the seeds' spread.`,
        ]
      : []),
    ...(one ? ["Rows with n_seeds 1: one loop, no interval (a single loop's curve moves with the boards it explored; run train-loop with more --run-seed values)."] : []),
  ];
}

/** Figure 7's numbers: a row per (model, game), means over loop seeds with intervals over them. */
export function trainingTable(rows: TrainingSeedRow[], cfg: BootstrapConfig): Table<TrainingSeedRow> {
  return withInstrumentNote(
    {
      name: "training",
      title: "Training pathway: checkpoint (epoch) curves, over loop seeds",
      columns: [
        { key: "model", kind: "text" },
        { key: "game", kind: "text" },
        { key: "n_seeds", kind: "int" },
        { key: "run_seeds", kind: "text" },
        ...SEED_METRICS.map((key) => ({ key, kind: "estimate" as const })),
        { key: "n_updated", kind: "int" },
      ],
      rows,
      notes: [
        describeBootstrap({ ...cfg, method: "percentile" }, "the loop seeds (training runs) of the row", tallyOf(rows, SEED_METRICS)),
        "Epoch 0 is the base model (y0); avg and max are over the valid updated epochs (1..K-1), n_above counts those above y0 (mean over seeds), AUC+ uses spacing 1. y_final is the last recorded epoch (missing when it failed).",
        ...seedNote(rows.map((r) => r.n_seeds)),
      ],
    },
    [],
  );
}

/** Figure 7 as numbers: each epoch's mean score over the loop seeds, with its interval. */
export function trainingEpochsTable(series: readonly TrainingBandSeries[], cfg: BootstrapConfig): Table<TrainingEpochRow> {
  const rows: TrainingEpochRow[] = series.flatMap((s) =>
    s.points.map((p) => ({
      model: s.model,
      game: s.game,
      epoch: p.x,
      score: { point: p.y, lo: p.lo, hi: p.hi, n: s.band === "seeds" ? p.n_seeds : p.n, ...(p.indicative ? { indicative: true } : {}) },
      n_seeds: p.n_seeds,
      n_episodes: p.n,
    })),
  );
  const oneSeed = series.filter((s) => s.band === "episodes").map((s) => `${s.model} / ${s.game}`);
  return withInstrumentNote(
    {
      name: "training_epochs",
      title: "Training pathway: score by epoch, mean over loop seeds (Figure 7's points)",
      columns: [
        { key: "model", kind: "text" },
        { key: "game", kind: "text" },
        { key: "epoch", kind: "int" },
        { key: "score", kind: "estimate" },
        { key: "n_seeds", kind: "int" },
        { key: "n_episodes", kind: "int" },
      ],
      rows,
      notes: [
        describeBootstrap({ ...cfg, method: "percentile" }, "the loop seeds that evaluated the epoch (a row with one seed: its evaluation episodes)", tallyOf(rows, ["score"])),
        "score: the mean over the seeds of each seed's mean over its n_episodes evaluation episodes at that epoch; Figure 7 draws these points and intervals as its lines and bands.",
        ...seedNote(series.filter((s) => s.band === "seeds").flatMap((s) => s.points.map((p) => p.n_seeds))),
        ...(oneSeed.length > 0 ? [`One loop seed (interval: its evaluation episodes resampled): ${oneSeed.join(", ")}.`] : []),
      ],
    },
    [],
  );
}
