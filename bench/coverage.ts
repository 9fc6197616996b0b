/**
 * bench/coverage (`npm run bench:coverage [-- --quick] [--json FILE]`): how well the kit's 95%
 * bootstrap intervals do, per table metric x outcome shape x method x number of resampling units:
 * coverage, width (median, 95th and 99th percentile) relative to the true sampling distribution's
 * central 95% range, and the share of intervals that are not finite or leave what the statistic can
 * take. Coverage bought with an interval of 1e14 is not coverage (issue 24): a method is the default
 * for a metric at n units only where, in EVERY shape, it covers 95 +- 3, its 99th-percentile width
 * ratio is at most 3, and no interval is out of range.
 *
 * Data are simulated with KNOWN truth under the protocol's structure (metrics.md, "Uncertainty"):
 * - curves: 11 checkpoints x = 0, 3, ..., 30; an evaluation seed's effect is shared by every checkpoint
 *   (a hard board stays hard), plus per-episode noise; truth = the metric of the mean curve. Outcome
 *   shapes: `continuous` (skewed seed effects, normal noise, mu 0.40 -> 0.58), `heavy` (Student-t(3)
 *   seed effects and noise), `binary` (win/loss: a seed's win probability mu + U(-0.3, 0.3)), `count`
 *   (Poisson, mean 2 -> 5 times a seed factor), `negative` (Trust-like: mu -10 -> 30, sd 15 / 20), and
 *   `flat` (continuous, no improvement). dNABA pairs a second, slower curve on the SAME seeds.
 * - per-model Agree / NMAE: 2 runs, episodes with their own level around the run's (correlated steps
 *   within an episode), 8..30 steps each; truth = the runs' expected value (the row is conditional on
 *   its runs: "these runs"). Units = episodes per run.
 * - pooled Agree / NMAE: models whose levels differ, 2 correlated runs each, 30 episodes per run,
 *   resampled models -> runs -> episodes (threeStageDesign); truth = the population mean. Units = models.
 * - coupling rho(A, g): runs of 10 blocks; a run's curve is a noisy cumulative sum, so consecutive
 *   gains correlate negatively. Truth = Spearman over 200k blocks (Monte Carlo). Units = runs.
 * - run-level Pearson over (model, game) cells of 2 runs, cell effects correlated 0.5: truth 0.4.
 * - per-model balanced accuracy and AUROC: 2 runs, a run's share of r > 0 steps q ~ U(0.15, 0.35) and
 *   its separation d ~ U(0.8, 1.6), an episode's q and d around its run's (+-0.1, +-0.4), 8..30 steps;
 *   a step's self-score s = d * 1[r > 0] - 0.6 + N(0, 1). Truth ("these runs", infinitely many
 *   episodes): balanced accuracy (sum_r q_r E[Phi(d_e - 0.6)] / sum_r q_r + Phi(0.6)) / 2, AUROC
 *   sum_r q_r E[Phi(d_e / sqrt 2)] / sum_r q_r (E over the episode's d, by quadrature). Units =
 *   episodes per run; the bootstrap-t's jackknife is the table's one-sweep one.
 * Every method resamples the same units the tables do (the Design of src/analysis/stats/intervals.ts);
 * column `table` is what the tables print (tableIntervalMany asked for the bootstrap-t: percentile
 * below STUDENT_MIN_UNITS, BCa for multi-stage designs, percentile where an interval leaves its range).
 * Each cell's true sampling distribution comes from N_TRUTH extra data sets (points only).
 * The cells are split over `--jobs N` processes (default 2: the machine's cores).
 */
import { writeFileSync } from "node:fs";
import * as ss from "simple-statistics";
import { curveMetricsSorted, type CurveMetrics } from "../src/analysis/metrics/curves.js";
import { WeightedSpearman, pearsonWeighted } from "../src/analysis/metrics/coupling.js";
import { COVERAGE_TOLERANCE } from "../src/analysis/stats/coverage.js";
import { percentileInterval } from "../src/analysis/stats/bootstrap.js";
import {
  ANY_RANGE,
  CORRELATION_RANGE,
  INTERVAL_METHODS,
  NONNEGATIVE_RANGE,
  RATE_RANGE,
  clusterDesign,
  intervalInRange,
  observedRange,
  simpleDesign,
  tableMethod,
  threeStageDesign,
  unitBootstrapMany,
  withinDesign,
  type Design,
  type IntervalMethod,
  type StatRange,
  type WeightedStatistics,
} from "../src/analysis/stats/intervals.js";
import { curveBuffers, curveMetricsUnderWeights, type SeedCurve } from "../src/analysis/stats/seedCurves.js";
import { WeightedDiscrimination, type UnitSteps } from "../src/analysis/stats/discrimination.js";
import { normalCdf, type GroupJackknife } from "../src/analysis/stats/intervals.js";
import { Rng } from "../src/util/rng.js";
import { designCell, designCells, formatDesign, type DesignRow } from "./coverageDesign.js";

const args = process.argv.slice(2);
// A worker of the default-design table: its share of the cells, written as JSON.
const designPartAt = args.indexOf("--design-part");
if (designPartAt >= 0) {
  const [i, k] = (args[designPartAt + 1] as string).split("/").map(Number) as [number, number];
  const N = Number(process.env.COVERAGE_DATASETS ?? 800);
  const rows = designCells()
    .filter((_, c) => c % k === i)
    .flatMap(([s, r]) => designCell(s, r, N));
  writeFileSync(args[args.indexOf("--json") + 1] as string, JSON.stringify(rows));
  process.exit(0);
}
const QUICK = args.includes("--quick");
const jsonAt = args.indexOf("--json");
const JSON_OUT = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
const jobsAt = args.indexOf("--jobs");
const JOBS = jobsAt >= 0 ? Math.max(1, Number(args[jobsAt + 1])) : 2;
const partAt = args.indexOf("--part");
const PART = partAt >= 0 ? (args[partAt + 1] as string).split("/").map(Number) : null;
/** `--only a,b`: only the scenarios measuring one of these metrics (a look at new metrics without the rest). */
const onlyAt = args.indexOf("--only");
const ONLY = onlyAt >= 0 ? new Set((args[onlyAt + 1] as string).split(",")) : null;
const B = QUICK ? 200 : 400;
/** The bootstrap-t needs a jackknife per replicate: fewer replicates keep it affordable. */
const B_STUDENT = QUICK ? 100 : 200;
/** Data sets per cell: coverage near 95% is then known to about +-2.1 points (1.96 binomial se). */
const N_DATA = QUICK ? 80 : 400;
/** Point-only data sets that give each cell's true sampling distribution (its central 95% range). */
const N_TRUTH = QUICK ? 500 : 4000;
const UNITS = [3, 5, 10, 30];
/** The method the tables ask for (coverage.ts DEFAULT_METHOD); `table` is what tableIntervalMany makes of it. */
const ASKED: IntervalMethod = "studentized";
type Column = IntervalMethod | "table";
const COLUMNS: readonly Column[] = [...INTERVAL_METHODS, "table"];

function normal(rng: Rng): number {
  const u = 1 - rng.float();
  const v = rng.float();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
function uniform(rng: Rng, a: number, b: number): number {
  return a + (b - a) * rng.float();
}
/** Student-t with 3 degrees of freedom scaled to sd 1 (variance of t3 is 3). */
function t3(rng: Rng): number {
  const z = normal(rng);
  let chi = 0;
  for (let i = 0; i < 3; i++) chi += normal(rng) ** 2;
  return z / Math.sqrt(chi / 3) / Math.sqrt(3);
}
function poisson(rng: Rng, lambda: number): number {
  const L = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  for (;;) {
    p *= rng.float();
    if (p <= L) return k;
    k++;
  }
}

/** One simulated data set: m statistics over one design, their truths and ranges. */
interface Problem {
  design: Design;
  stats: WeightedStatistics;
  truths: number[];
  ranges: StatRange[];
  /** A faster leave-one-group-out than re-evaluating `stats` (what the table uses, when it has one). */
  jackknife?: GroupJackknife;
}

/** A scenario: the metrics it measures (one statistic each), the outcome shape, the unit, a simulator. */
interface Scenario {
  metrics: string[];
  shape: string;
  unit: string;
  make: (rng: Rng, n: number) => Problem;
}

// ---- curves --------------------------------------------------------------------------------------
const XS = Array.from({ length: 11 }, (_, i) => 3 * i);
const rise = (x: number): number => 1 - Math.exp(-x / 10);
function metricsOf(ys: readonly number[]): CurveMetrics {
  const out: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  return curveMetricsSorted(Float64Array.from(XS), Float64Array.from(ys), ys.length, true, out);
}

/** An outcome shape: the mean curve of the faster (a) and slower (b) pathway, and a seed's episode score. */
interface Shape {
  name: string;
  mu: (x: number, slow: boolean) => number;
  /** A seed's effect, shared by every checkpoint and both pathways. */
  effect: (rng: Rng) => number;
  /** An episode's score at mean m for a seed with effect e; its expectation over e and noise is m. */
  score: (rng: Rng, m: number, e: number) => number;
}
const SHAPES: Shape[] = [
  {
    name: "continuous",
    mu: (x, slow) => 0.4 + (slow ? 0.09 : 0.18) * rise(x),
    effect: (rng) => 0.15 * (-Math.log(1 - rng.float()) - 1),
    score: (rng, m, e) => m + e + 0.12 * normal(rng),
  },
  { name: "heavy", mu: (x, slow) => 0.4 + (slow ? 0.09 : 0.18) * rise(x), effect: (rng) => 0.15 * t3(rng), score: (rng, m, e) => m + e + 0.12 * t3(rng) },
  {
    name: "binary",
    mu: (x, slow) => 0.4 + (slow ? 0.09 : 0.18) * rise(x),
    effect: (rng) => uniform(rng, -0.3, 0.3),
    score: (rng, m, e) => (rng.float() < m + e ? 1 : 0),
  },
  { name: "count", mu: (x, slow) => 2 + (slow ? 1.5 : 3) * rise(x), effect: (rng) => uniform(rng, -0.5, 0.5), score: (rng, m, e) => poisson(rng, m * (1 + e)) },
  { name: "negative", mu: (x, slow) => -10 + (slow ? 20 : 40) * rise(x), effect: (rng) => 15 * normal(rng), score: (rng, m, e) => m + e + 20 * normal(rng) },
  { name: "flat", mu: () => 0.5, effect: (rng) => 0.15 * (-Math.log(1 - rng.float()) - 1), score: (rng, m, e) => m + e + 0.12 * normal(rng) },
];
const CURVE_METRICS = ["avg", "max", "auc_plus", "naba"] as const;

function simCurve(rng: Rng, shape: Shape, slow: boolean, effects: readonly number[]): SeedCurve {
  const K = effects.length;
  const scores = new Float64Array(XS.length * K);
  for (let c = 0; c < XS.length; c++) for (let k = 0; k < K; k++) scores[c * K + k] = shape.score(rng, shape.mu(XS[c] as number, slow), effects[k] as number);
  return { run_id: "sim", game: "sim", xs: XS, keys: Array.from({ length: K }, (_, k) => k), pairedBy: "seed", scores };
}
function curveScenario(shape: Shape): Scenario {
  const truthA = metricsOf(XS.map((x) => shape.mu(x, false)));
  const truthB = metricsOf(XS.map((x) => shape.mu(x, true)));
  return {
    metrics: [...CURVE_METRICS, "dnaba"],
    shape: shape.name,
    unit: "evaluation seeds",
    make: (rng, n) => {
      const eff = Array.from({ length: n }, () => shape.effect(rng));
      const a = simCurve(rng, shape, false, eff);
      const b = simCurve(rng, shape, true, eff);
      const bufA = curveBuffers(a);
      const bufB = curveBuffers(b);
      const mA: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
      const mB: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
      const scoreRange = observedRange(a.scores);
      return {
        design: simpleDesign(n),
        stats: (w, out) => {
          curveMetricsUnderWeights(a, w, bufA, mA);
          curveMetricsUnderWeights(b, w, bufB, mB);
          CURVE_METRICS.forEach((k, j) => (out[j] = mA[k] ?? Number.NaN));
          out[4] = mA.naba !== null && mB.naba !== null ? mA.naba - mB.naba : Number.NaN;
        },
        truths: [...CURVE_METRICS.map((k) => truthA[k] as number), (truthA.naba as number) - (truthB.naba as number)],
        ranges: [scoreRange, scoreRange, NONNEGATIVE_RANGE, NONNEGATIVE_RANGE, ANY_RANGE],
      };
    },
  };
}

// ---- step metrics (additive episode counts) -------------------------------------------------------
function ratioStats(num: Float64Array, den: Float64Array): WeightedStatistics {
  return (w, out) => {
    let a = 0;
    let b = 0;
    for (let i = 0; i < w.length; i++) {
      const wi = w[i] as number;
      if (wi === 0) continue;
      a += wi * (num[i] as number);
      b += wi * (den[i] as number);
    }
    out[0] = b > 0 ? a / b : Number.NaN;
  };
}
/** Episodes of one run with level `level` (Agree: a probability; NMAE: a mean error in [0, 1]). */
function simEpisodes(rng: Rng, level: number, nEp: number, kind: "agree" | "nmae", num: number[], den: number[]): void {
  for (let e = 0; e < nEp; e++) {
    const steps = 8 + rng.int(23);
    let a = 0;
    if (kind === "agree") {
      const p = level + uniform(rng, -0.2, 0.2);
      for (let s = 0; s < steps; s++) a += rng.float() < p ? 1 : 0;
    } else {
      const m = level + uniform(rng, -0.1, 0.1);
      for (let s = 0; s < steps; s++) a += 2 * m * rng.float();
    }
    num.push(a);
    den.push(steps);
  }
}
function stepScenario(kind: "agree" | "nmae", pooled: boolean): Scenario {
  return {
    metrics: [pooled ? `${kind}_pooled` : kind],
    shape: pooled ? "models x 2 runs" : "2 runs",
    unit: pooled ? "models (2 runs each)" : "episodes per run (2 runs)",
    make: (rng, n) => {
      const num: number[] = [];
      const den: number[] = [];
      const nEp = pooled ? 30 : n;
      const sizes: number[][] = [];
      const levels: number[] = [];
      if (pooled) {
        // A model's level; its two runs scatter around it (sd 0.05): the runs of one model correlate.
        for (let c = 0; c < n; c++) {
          const model = kind === "agree" ? uniform(rng, 0.35, 0.85) : uniform(rng, 0.12, 0.33);
          for (let r = 0; r < 2; r++) simEpisodes(rng, model + uniform(rng, -0.05, 0.05), nEp, kind, num, den);
          sizes.push([nEp, nEp]);
        }
      } else {
        for (let r = 0; r < 2; r++) {
          const level = kind === "agree" ? uniform(rng, 0.5, 0.8) : uniform(rng, 0.15, 0.3);
          levels.push(level);
          simEpisodes(rng, level, nEp, kind, num, den);
        }
      }
      // Steps per episode do not depend on the level, so the step-weighted truth is the mean level.
      const truth = pooled ? (kind === "agree" ? 0.6 : 0.225) : ss.mean(levels);
      return {
        design: pooled ? threeStageDesign(sizes) : withinDesign([nEp, nEp]),
        stats: ratioStats(Float64Array.from(num), Float64Array.from(den)),
        truths: [truth],
        ranges: [RATE_RANGE],
      };
    },
  };
}

// ---- coupling -----------------------------------------------------------------------------------
function simRunBlocks(rng: Rng, A: number[], g: number[]): void {
  const base = 0.6 + 0.1 * normal(rng);
  const gains = Array.from({ length: 10 }, () => 0.05 + 0.05 * normal(rng));
  const y = [0];
  for (const d of gains) y.push((y[y.length - 1] as number) + d);
  const obs = y.map((v) => v + 0.08 * normal(rng));
  const spread = Math.max(...obs) - Math.min(...obs);
  for (let t = 1; t <= 10; t++) {
    g.push(spread > 0 ? ((obs[t] as number) - (obs[t - 1] as number)) / spread : 0);
    A.push(base + 1.5 * ((gains[t - 1] as number) - 0.05) + 0.08 * normal(rng));
  }
}
let rhoTruth: number | null = null;
function couplingTruth(): number {
  if (rhoTruth !== null) return rhoTruth;
  const rng = Rng.fromKey("bench/coverage/coupling-truth");
  const A: number[] = [];
  const g: number[] = [];
  for (let r = 0; r < (QUICK ? 4000 : 20000); r++) simRunBlocks(rng, A, g);
  rhoTruth = ss.sampleRankCorrelation(A, g);
  return rhoTruth;
}
const couplingScenario: Scenario = {
  metrics: ["rho_agree"],
  shape: "10 blocks/run",
  unit: "runs",
  make: (rng, n) => {
    const A: number[] = [];
    const g: number[] = [];
    for (let r = 0; r < n; r++) simRunBlocks(rng, A, g);
    const ws = new WeightedSpearman(A, g);
    return {
      design: clusterDesign(Array.from({ length: n }, () => 10)),
      stats: (w, out) => (out[0] = ws.rho(w) ?? Number.NaN),
      truths: [couplingTruth()],
      ranges: [CORRELATION_RANGE],
    };
  },
};
const cellsScenario: Scenario = {
  metrics: ["pearson_cells"],
  shape: "2 runs/cell",
  unit: "model x game cells",
  make: (rng, n) => {
    const x: number[] = [];
    const y: number[] = [];
    for (let c = 0; c < n; c++) {
      const a = normal(rng);
      const b = 0.5 * a + Math.sqrt(0.75) * normal(rng);
      for (let r = 0; r < 2; r++) {
        x.push(a + 0.5 * normal(rng));
        y.push(b + 0.5 * normal(rng));
      }
    }
    const X = Float64Array.from(x);
    const Y = Float64Array.from(y);
    // cov = 0.5, var = 1 + 0.25 on both sides: the population Pearson over runs is 0.4.
    return {
      design: clusterDesign(Array.from({ length: n }, () => 2)),
      stats: (w, out) => (out[0] = pearsonWeighted(X, Y, w) ?? Number.NaN),
      truths: [0.4],
      ranges: [CORRELATION_RANGE],
    };
  },
};

// ---- balanced accuracy and AUROC (rank-based: not additive counts) -------------------------------
const THRESHOLD = 0.6;
/** E over an episode's separation d ~ U(center - 0.4, center + 0.4) of f(d), by the midpoint rule. */
function overD(center: number, f: (d: number) => number): number {
  const K = 400;
  let acc = 0;
  for (let i = 0; i < K; i++) acc += f(center - 0.4 + (0.8 * (i + 0.5)) / K);
  return acc / K;
}
const discriminationScenario: Scenario = {
  metrics: ["balanced_accuracy", "auroc"],
  shape: "2 runs",
  unit: "episodes per run (2 runs)",
  make: (rng, n) => {
    const units: UnitSteps[] = [];
    const runs: { q: number; d: number }[] = [];
    for (let r = 0; r < 2; r++) {
      const run = { q: uniform(rng, 0.15, 0.35), d: uniform(rng, 0.8, 1.6) };
      runs.push(run);
      for (let e = 0; e < n; e++) {
        const q = run.q + uniform(rng, -0.1, 0.1);
        const d = run.d + uniform(rng, -0.4, 0.4);
        const steps = 8 + rng.int(23);
        const s: number[] = [];
        const rr: number[] = [];
        for (let k = 0; k < steps; k++) {
          const pos = rng.float() < q;
          s.push((pos ? d : 0) - THRESHOLD + normal(rng));
          rr.push(pos ? 1 : 0);
        }
        units.push({ s, r: rr });
      }
    }
    const sumQ = runs.reduce((a, r) => a + r.q, 0);
    const tpr = runs.reduce((a, r) => a + r.q * overD(r.d, (d) => normalCdf(d - THRESHOLD)), 0) / sumQ;
    const auc = runs.reduce((a, r) => a + r.q * overD(r.d, (d) => normalCdf(d / Math.SQRT2)), 0) / sumQ;
    const design = withinDesign([n, n]);
    const wd = new WeightedDiscrimination(units, design.members);
    return { design, stats: wd.stats, truths: [(tpr + normalCdf(THRESHOLD)) / 2, auc], ranges: [RATE_RANGE, RATE_RANGE], jackknife: wd.jackknife };
  },
};

const ALL_SCENARIOS: Scenario[] = [
  ...SHAPES.map(curveScenario),
  stepScenario("agree", false),
  stepScenario("nmae", false),
  stepScenario("agree", true),
  stepScenario("nmae", true),
  couplingScenario,
  cellsScenario,
  discriminationScenario,
];
const SCENARIOS = ONLY === null ? ALL_SCENARIOS : ALL_SCENARIOS.filter((sc) => sc.metrics.some((m) => ONLY.has(m)));

/** One (metric, shape, n, column) result. */
interface CellResult {
  metric: string;
  shape: string;
  unit: string;
  units: number;
  method: Column;
  datasets: number;
  /** % of data sets whose interval holds the truth (an undefined interval does not). */
  coverage: number | null;
  /** Width / the true sampling distribution's central 95% range: median, 95th, 99th percentile. */
  widthRatio: { p50: number; p95: number; p99: number } | null;
  /** % of data sets whose interval is not finite or leaves the statistic's range. */
  outOfRange: number | null;
  /** % of data sets with no interval. */
  undefinedShare: number;
}

/** The true sampling distribution's central 95% range of each statistic at n units. */
function trueRanges(sc: Scenario, n: number): number[] {
  const rng = Rng.fromKey(`bench/coverage/${sc.shape}/${n}/truth`);
  const m = sc.metrics.length;
  const pts: number[][] = Array.from({ length: m }, () => []);
  const out = new Float64Array(m);
  for (let d = 0; d < N_TRUTH; d++) {
    const p = sc.make(rng, n);
    p.stats(new Int32Array(p.design.n).fill(1), out);
    for (let j = 0; j < m; j++) if (Number.isFinite(out[j])) (pts[j] as number[]).push(out[j] as number);
  }
  return pts.map((v) => {
    const s = v.sort((a, b) => a - b);
    return s.length > 0 ? ss.quantileSorted(s, 0.975) - ss.quantileSorted(s, 0.025) : Number.NaN;
  });
}

function runCell(sc: Scenario, n: number): CellResult[] {
  const m = sc.metrics.length;
  const spread = trueRanges(sc, n);
  const acc = () => ({ hits: 0, defined: 0, out: 0, widths: [] as number[] });
  const tally = COLUMNS.map(() => Array.from({ length: m }, acc));
  const dataRng = Rng.fromKey(`bench/coverage/${sc.shape}/${n}/data`);
  const bootRng = Rng.fromKey(`bench/coverage/${sc.shape}/${n}/boot`);
  let studentizable = true;
  const record = (col: number, j: number, lo: number | null, hi: number | null, truth: number, range: StatRange): void => {
    const t = tally[col]![j]!;
    if (lo === null || hi === null) return;
    t.defined++;
    if (!intervalInRange({ lo, hi }, range)) t.out++;
    if (Number.isFinite(hi - lo)) t.widths.push((hi - lo) / (spread[j] as number));
    else t.widths.push(Infinity);
    if (lo <= truth && truth <= hi) t.hits++;
  };
  for (let d = 0; d < N_DATA; d++) {
    const prob = sc.make(dataRng, n);
    studentizable = prob.design.studentizable;
    const byMethod = new Map<IntervalMethod, ReturnType<typeof unitBootstrapMany>>();
    INTERVAL_METHODS.forEach((method, col) => {
      if (method === "studentized" && !prob.design.studentizable) return;
      const rs = unitBootstrapMany(prob.design, prob.stats, m, method === "studentized" ? B_STUDENT : B, bootRng, method, undefined, prob.jackknife);
      byMethod.set(method, rs);
      rs.forEach((r, j) => record(col, j, Number.isFinite(r.point) ? r.interval.lo : null, r.interval.hi, prob.truths[j] as number, prob.ranges[j] as StatRange));
    });
    // `table`: what tableIntervalMany prints, rebuilt from the runs above (same method, same fallback).
    const used = tableMethod(prob.design, ASKED);
    const rs = byMethod.get(used)!;
    rs.forEach((r, j) => {
      let iv = r.interval;
      if (used !== "percentile" && Number.isFinite(r.point) && !intervalInRange(iv, prob.ranges[j])) iv = percentileInterval(r.replicates);
      record(COLUMNS.length - 1, j, Number.isFinite(r.point) ? iv.lo : null, iv.hi, prob.truths[j] as number, prob.ranges[j] as StatRange);
    });
  }
  const q = (v: number[], p: number): number => ss.quantileSorted(v, p);
  return COLUMNS.flatMap((method, col) =>
    sc.metrics.map((metric, j) => {
      const t = tally[col]![j]!;
      const ok = method !== "studentized" || studentizable;
      const w = t.widths.sort((a, b) => a - b);
      return {
        metric,
        shape: sc.shape,
        unit: sc.unit,
        units: n,
        method,
        datasets: N_DATA,
        coverage: ok ? (100 * t.hits) / N_DATA : null,
        widthRatio: ok && w.length > 0 ? { p50: q(w, 0.5), p95: q(w, 0.95), p99: q(w, 0.99) } : null,
        outOfRange: ok && t.defined > 0 ? (100 * t.out) / t.defined : null,
        undefinedShare: ok ? 100 * (1 - t.defined / N_DATA) : 100,
      };
    }),
  );
}

const CELLS: [Scenario, number][] = SCENARIOS.flatMap((sc) => UNITS.map((n) => [sc, n] as [Scenario, number]));

async function runParts(): Promise<CellResult[]> {
  if (PART !== null) {
    const [i, k] = PART as [number, number];
    return CELLS.filter((_, c) => c % k === i).flatMap(([sc, u]) => runCell(sc, u));
  }
  if (JOBS === 1) return CELLS.flatMap(([sc, u]) => runCell(sc, u));
  const { spawn } = await import("node:child_process");
  const { mkdtempSync, readFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "s3gym-coverage-"));
  const parts = await Promise.all(
    Array.from({ length: JOBS }, (_, i) => {
      const file = join(dir, `part${i}.json`);
      const only = ONLY === null ? [] : ["--only", [...ONLY].join(",")];
      const child = spawn(process.execPath, [...process.execArgv, process.argv[1] as string, ...(QUICK ? ["--quick"] : []), ...only, "--part", `${i}/${JOBS}`, "--json", file], {
        stdio: ["ignore", "ignore", "inherit"],
      });
      return new Promise<CellResult[]>((resolve, reject) =>
        child.on("exit", (code) => (code === 0 ? resolve((JSON.parse(readFileSync(file, "utf8")) as { results: CellResult[] }).results) : reject(new Error(`part ${i} exited ${code}`)))),
      );
    }),
  );
  return parts.flat();
}

/** The rule a method must meet at n units for a metric, in EVERY shape (issue 24). */
const MAX_P99_RATIO = 3;
function meets(rows: readonly CellResult[], needCoverage: boolean): boolean {
  return (
    rows.length > 0 &&
    rows.every((r) => r.coverage !== null && r.outOfRange === 0 && r.widthRatio !== null && r.widthRatio.p99 <= MAX_P99_RATIO && (!needCoverage || Math.abs(r.coverage - 95) <= COVERAGE_TOLERANCE))
  );
}
/** Shapes whose truth sits on a bound the statistic cannot cross (AUC+ of a flat curve is 0): reported, not judged. */
const judged = (r: CellResult): boolean => !(r.shape === "flat" && (r.metric === "auc_plus" || r.metric === "naba" || r.metric === "dnaba"));

// By default the bench prints the default-design table (bench/coverageDesign.ts); `--sweep` runs the
// per-method sweep over unit sizes below (minutes more).
if (!args.includes("--sweep") && PART === null) {
  const N = Number(process.env.COVERAGE_DATASETS ?? (QUICK ? 80 : 800));
  const d0 = process.hrtime.bigint();
  const cells = designCells();
  let rows: DesignRow[];
  if (JOBS === 1) rows = cells.flatMap(([s, r]) => designCell(s, r, N));
  else {
    const { spawn } = await import("node:child_process");
    const { mkdtempSync, readFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "s3gym-coverage-design-"));
    const parts = await Promise.all(
      Array.from({ length: JOBS }, (_, i) => {
        const file = join(dir, `design${i}.json`);
        const child = spawn(process.execPath, [...process.execArgv, process.argv[1] as string, "--design-part", `${i}/${JOBS}`, "--json", file], {
          stdio: ["ignore", "ignore", "inherit"],
          env: { ...process.env, COVERAGE_DATASETS: String(N) },
        });
        return new Promise<DesignRow[]>((resolve, reject) =>
          child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(readFileSync(file, "utf8")) as DesignRow[]) : reject(new Error(`design part ${i} exited ${code}`)))),
        );
      }),
    );
    const order = (r: DesignRow): number => cells.findIndex(([s, n]) => s.name === r.shape && n === r.runs);
    rows = parts.flat().sort((a, b) => order(a) - order(b));
  }
  const wallD = Number(process.hrtime.bigint() - d0) / 1e9;
  process.stdout.write(formatDesign(rows, N, wallD));
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ N, rows, wall_s: wallD }, null, 1) + "\n");
  process.exit(0);
}

const t0 = process.hrtime.bigint();
const results = await runParts();
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
if (PART !== null) {
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ results }) + "\n");
  process.exit(0);
}
const fmt = (v: number | null, d = 1): string => (v === null ? "n/a" : Number.isFinite(v) ? v.toFixed(d) : "inf");
const ratio = (r: CellResult): string => (r.widthRatio === null ? "n/a" : `${fmt(r.widthRatio.p50, 2)} / ${fmt(r.widthRatio.p95, 2)} / ${fmt(r.widthRatio.p99, 2)}`);
process.stdout.write(
  `bench/coverage: B = ${B} (studentized ${B_STUDENT}), ${N_DATA} data sets per cell (+-2.1 points near 95%), true spread from ${N_TRUTH} data sets, ${JOBS} process(es)${QUICK ? " (--quick: rough)" : ""}\n`,
);
process.stdout.write("width ratio = interval width / the true sampling distribution's central 95% range (p50 / p95 / p99); out = % of intervals not finite or outside the statistic's range\n\n");
process.stdout.write("| metric | shape | n | method | coverage | width ratio p50 / p95 / p99 | out % |\n| :-- | :-- | --: | :-- | --: | --: | --: |\n");
const metrics = [...new Set(results.map((r) => r.metric))];
const order = (r: CellResult): number => SCENARIOS.findIndex((s) => s.shape === r.shape && s.metrics.includes(r.metric));
for (const metric of metrics) {
  const rows = results.filter((r) => r.metric === metric).sort((a, b) => order(a) - order(b) || a.units - b.units || COLUMNS.indexOf(a.method) - COLUMNS.indexOf(b.method));
  for (const r of rows) process.stdout.write(`| ${metric} | ${r.shape} | ${r.units} | ${r.method} | ${fmt(r.coverage)} | ${ratio(r)} | ${fmt(r.outOfRange)} |\n`);
}

// Per metric: the worst shape of each method at each n, and whether the method meets the rule there.
process.stdout.write("\nWorst shape per metric x method x n (coverage farthest from 95, largest p99 ratio, most out of range); `ok` = meets the rule (95 +- 3, p99 <= 3, 0 out):\n\n");
process.stdout.write(`| metric | method | ${UNITS.map((u) => `n=${u}`).join(" | ")} |\n| :-- | :-- | ${UNITS.map(() => "--:").join(" | ")} |\n`);
const summary: Record<string, { method: Column; K: number | null; coverage: Record<number, number | null> }[]> = {};
for (const metric of metrics) {
  summary[metric] = [];
  for (const method of COLUMNS) {
    const cells = UNITS.map((u) => results.filter((r) => r.metric === metric && r.method === method && r.units === u && judged(r)));
    const text = cells.map((rows) => {
      if (rows.some((r) => r.coverage === null)) return "n/a";
      const worstCov = rows.reduce((a, r) => (Math.abs((r.coverage as number) - 95) > Math.abs((a.coverage as number) - 95) ? r : a));
      const p99 = Math.max(...rows.map((r) => r.widthRatio?.p99 ?? Infinity));
      const out = Math.max(...rows.map((r) => r.outOfRange ?? 100));
      return `${fmt(worstCov.coverage)} (${worstCov.shape}), p99 ${fmt(p99, 2)}, out ${fmt(out)}${meets(rows, true) ? " ok" : ""}`;
    });
    let K: number | null = null;
    for (let i = UNITS.length - 1; i >= 0; i--) {
      if (meets(cells[i] as CellResult[], true)) K = UNITS[i] as number;
      else break;
    }
    const coverage: Record<number, number | null> = {};
    UNITS.forEach((u, i) => {
      const rows = cells[i] as CellResult[];
      coverage[u] = rows.some((r) => r.coverage === null) ? null : Math.min(...rows.map((r) => r.coverage as number));
    });
    summary[metric]!.push({ method, K, coverage });
    process.stdout.write(`| ${metric} | ${method} | ${text.join(" | ")} |\n`);
  }
}
process.stdout.write("\nFewest units from which each column meets the rule in every shape (- = no size measured):\n");
for (const metric of metrics) process.stdout.write(`  ${metric}: ${summary[metric]!.map((s) => `${s.method} ${s.K ?? "-"}`).join(", ")}\n`);
process.stdout.write(`wall ${wall.toFixed(1)} s\n`);
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ B, B_STUDENT, N_DATA, N_TRUTH, results, summary, wall_s: wall }, null, 1) + "\n");
