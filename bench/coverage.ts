/**
 * bench/coverage (`npm run bench:coverage [-- --quick] [--json FILE]`): how often the kit's 95%
 * bootstrap intervals cover the truth, per table metric, method and number of resampling units.
 *
 * Data are simulated with KNOWN truth under the protocol's structure (metrics.md, "Uncertainty"):
 * - curves: 11 checkpoints x = 0, 3, ..., 30; an evaluation seed's effect (a skewed, mean-zero
 *   shift: easy or hard boards) is shared by every checkpoint, plus per-episode noise; truth = the
 *   metric of the mean curve. Two scenarios: improving (mu rises 0.40 -> 0.58) and flat.
 * - dNABA: memory and history curves on the SAME seeds (shared seed effects), paired.
 * - per-model Agree / NMAE: 2 runs, episodes with their own level around the run's (correlated steps
 *   within an episode), 8..30 steps each; truth = the runs' expected value (the row is conditional on
 *   its runs). Units = episodes per run.
 * - pooled Agree / NMAE: runs whose levels differ (models differ), 30 episodes each; truth = the
 *   population mean. Units = runs.
 * - coupling rho(A, g): runs of 10 blocks; a run's curve is a noisy cumulative sum, so consecutive
 *   gains correlate negatively; A depends on the block's true gain. Truth = Spearman over 200k blocks
 *   (Monte Carlo). Units = runs.
 * - run-level Pearson over (model, game) cells of 2 runs, cell effects correlated 0.5, run noise:
 *   truth 0.4 exactly. Units = cells.
 * Every method resamples the same units the tables do (the Design of src/analysis/intervals.ts).
 * Each cell's number of data sets grows from 500 until the coverage of every method is known to
 * +-2 points (1.96 binomial standard errors) or 1600 data sets (enough for +-2 down to 80% coverage;
 * cells far below that are known to +-2.5); the table prints that half-width.
 * B = 400 resamples per interval (160 for the bootstrap-t, which runs a jackknife per resample).
 * The cells are split over `--jobs N` processes (default 2: the machine's cores).
 */
import { writeFileSync } from "node:fs";
import * as ss from "simple-statistics";
import { curveMetricsSorted, type CurveMetrics } from "../src/analysis/curves.js";
import { WeightedSpearman, pearsonWeighted } from "../src/analysis/coupling.js";
import {
  INTERVAL_METHODS,
  clusterDesign,
  simpleDesign,
  twoStageDesign,
  unitBootstrap,
  withinDesign,
  type Design,
  type IntervalMethod,
  type WeightedStatistic,
} from "../src/analysis/intervals.js";
import { curveStatistic, type SeedCurve } from "../src/analysis/seedCurves.js";
import { Rng } from "../src/util/rng.js";

const args = process.argv.slice(2);
const QUICK = args.includes("--quick");
const jsonAt = args.indexOf("--json");
const JSON_OUT = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
const jobsAt = args.indexOf("--jobs");
const JOBS = jobsAt >= 0 ? Math.max(1, Number(args[jobsAt + 1])) : 2;
const partAt = args.indexOf("--part");
const PART = partAt >= 0 ? (args[partAt + 1] as string).split("/").map(Number) : null;
const B = QUICK ? 200 : 400;
/** The bootstrap-t needs a jackknife per replicate: fewer replicates keep it affordable. */
const B_STUDENT = QUICK ? 80 : 160;
const N_MIN = QUICK ? 100 : 500;
const N_MAX = QUICK ? 100 : 1600;
const HALF_WIDTH = 2;
const UNITS = [3, 5, 10, 30];

function normal(rng: Rng): number {
  const u = 1 - rng.float();
  const v = rng.float();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
function uniform(rng: Rng, a: number, b: number): number {
  return a + (b - a) * rng.float();
}

/** One simulated data set: a statistic over a design, and the truth it estimates. */
interface Problem {
  design: Design;
  stat: WeightedStatistic;
  truth: number;
}

/** A metric scenario: a name, the unit, and how to simulate a data set with n units. */
interface Scenario {
  metric: string;
  scenario: string;
  unit: string;
  make: (rng: Rng, n: number) => Problem;
}

// ---- curves --------------------------------------------------------------------------------------
const XS = Array.from({ length: 11 }, (_, i) => 3 * i);
const SIGMA_SEED = 0.15;
const SIGMA_EP = 0.12;
function muCurve(kind: "improving" | "flat", shift = 0): number[] {
  return XS.map((x) => (kind === "flat" ? 0.5 : 0.4 + shift + 0.18 * (1 - Math.exp(-x / 10))));
}
function metricsOf(ys: readonly number[]): CurveMetrics {
  const out: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  return curveMetricsSorted(Float64Array.from(XS), Float64Array.from(ys), ys.length, true, out);
}
/** Seed effect: a centred exponential (skewed: a few very hard boards), sd SIGMA_SEED. */
function seedEffect(rng: Rng): number {
  return SIGMA_SEED * (-Math.log(1 - rng.float()) - 1);
}
function simCurve(rng: Rng, mu: readonly number[], effects: readonly number[]): SeedCurve {
  const K = effects.length;
  const scores = new Float64Array(XS.length * K);
  for (let c = 0; c < XS.length; c++) for (let k = 0; k < K; k++) scores[c * K + k] = (mu[c] as number) + (effects[k] as number) + SIGMA_EP * normal(rng);
  return { run_id: "sim", game: "sim", xs: XS, keys: Array.from({ length: K }, (_, k) => k), pairedBy: "seed", scores };
}
function curveScenario(name: keyof CurveMetrics, kind: "improving" | "flat"): Scenario {
  const mu = muCurve(kind);
  return {
    metric: name,
    scenario: kind,
    unit: "evaluation seeds",
    make: (rng, n) => {
      const sc = simCurve(rng, mu, Array.from({ length: n }, () => seedEffect(rng)));
      return { design: simpleDesign(n), stat: curveStatistic(sc, name), truth: metricsOf(mu)[name] as number };
    },
  };
}
const dnabaScenario: Scenario = {
  metric: "dnaba",
  scenario: "paired",
  unit: "evaluation seeds (paired)",
  make: (rng, n) => {
    const muM = muCurve("improving");
    const muH = XS.map((x) => 0.4 + 0.09 * (1 - Math.exp(-x / 10)));
    const eff = Array.from({ length: n }, () => seedEffect(rng));
    const m = simCurve(rng, muM, eff);
    const h = simCurve(rng, muH, eff);
    const sm = curveStatistic(m, "naba");
    const sh = curveStatistic(h, "naba");
    return { design: simpleDesign(n), stat: (w) => sm(w) - sh(w), truth: (metricsOf(muM).naba as number) - (metricsOf(muH).naba as number) };
  },
};

// ---- step metrics (additive episode counts) -------------------------------------------------------
interface Episodes {
  num: Float64Array;
  den: Float64Array;
}
function ratioStat(ep: Episodes): WeightedStatistic {
  return (w) => {
    let a = 0;
    let b = 0;
    for (let i = 0; i < w.length; i++) {
      const wi = w[i] as number;
      if (wi === 0) continue;
      a += wi * (ep.num[i] as number);
      b += wi * (ep.den[i] as number);
    }
    return b > 0 ? a / b : Number.NaN;
  };
}
/** Episodes of one run with level `level` (Agree: a probability; NMAE: a mean error). */
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
    metric: pooled ? `${kind}_pooled` : kind,
    scenario: pooled ? "models differ" : "2 runs",
    unit: pooled ? "runs" : "episodes per run (2 runs)",
    make: (rng, n) => {
      const num: number[] = [];
      const den: number[] = [];
      const runs = pooled ? n : 2;
      const nEp = pooled ? 30 : n;
      const levels: number[] = [];
      for (let r = 0; r < runs; r++) {
        const level = kind === "agree" ? (pooled ? uniform(rng, 0.3, 0.9) : uniform(rng, 0.5, 0.8)) : pooled ? uniform(rng, 0.1, 0.35) : uniform(rng, 0.15, 0.3);
        levels.push(level);
        simEpisodes(rng, level, nEp, kind, num, den);
      }
      // Steps per episode do not depend on the level, so the step-weighted truth is the mean level.
      const truth = pooled ? (kind === "agree" ? 0.6 : 0.225) : ss.mean(levels);
      const sizes = Array.from({ length: runs }, () => nEp);
      return { design: pooled ? twoStageDesign(sizes) : withinDesign(sizes), stat: ratioStat({ num: Float64Array.from(num), den: Float64Array.from(den) }), truth };
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
  metric: "rho_agree",
  scenario: "10 blocks/run",
  unit: "runs",
  make: (rng, n) => {
    const A: number[] = [];
    const g: number[] = [];
    for (let r = 0; r < n; r++) simRunBlocks(rng, A, g);
    const ws = new WeightedSpearman(A, g);
    return { design: clusterDesign(Array.from({ length: n }, () => 10)), stat: (w) => ws.rho(w) ?? Number.NaN, truth: couplingTruth() };
  },
};
const cellsScenario: Scenario = {
  metric: "pearson_cells",
  scenario: "2 runs/cell",
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
    return { design: clusterDesign(Array.from({ length: n }, () => 2)), stat: (w) => pearsonWeighted(X, Y, w) ?? Number.NaN, truth: 0.4 };
  },
};

const SCENARIOS: Scenario[] = [
  curveScenario("avg", "improving"),
  curveScenario("max", "improving"),
  curveScenario("auc_plus", "improving"),
  curveScenario("naba", "improving"),
  curveScenario("max", "flat"),
  curveScenario("auc_plus", "flat"),
  dnabaScenario,
  stepScenario("agree", false),
  stepScenario("nmae", false),
  stepScenario("agree", true),
  stepScenario("nmae", true),
  couplingScenario,
  cellsScenario,
];

interface CellResult {
  metric: string;
  scenario: string;
  unit: string;
  units: number;
  method: IntervalMethod;
  datasets: number;
  coverage: number | null;
  halfWidth: number | null;
  /** Median interval width (the bootstrap-t's mean is dominated by a few huge intervals at n = 3). */
  medianWidth: number | null;
  undefinedShare: number;
}

function halfWidthOf(p: number, n: number): number {
  return 196 * Math.sqrt(Math.max(p * (1 - p), 1e-4) / n);
}

function runCell(sc: Scenario, n: number): CellResult[] {
  const hits: Record<IntervalMethod, number> = { percentile: 0, bca: 0, studentized: 0 };
  const defined: Record<IntervalMethod, number> = { percentile: 0, bca: 0, studentized: 0 };
  const widths: Record<IntervalMethod, number[]> = { percentile: [], bca: [], studentized: [] };
  const dataRng = Rng.fromKey(`bench/coverage/${sc.metric}/${sc.scenario}/${n}/data`);
  const bootRng = Rng.fromKey(`bench/coverage/${sc.metric}/${sc.scenario}/${n}/boot`);
  let d = 0;
  let studentizable = true;
  const methods = INTERVAL_METHODS;
  for (;;) {
    const prob = sc.make(dataRng, n);
    studentizable = prob.design.studentizable;
    for (const method of methods) {
      if (method === "studentized" && !prob.design.studentizable) continue;
      const r = unitBootstrap(prob.design, prob.stat, method === "studentized" ? B_STUDENT : B, bootRng, method);
      const { lo, hi } = r.interval;
      // An undefined interval (or point) does not cover: a table would print nothing useful either.
      if (lo === null || hi === null || !Number.isFinite(r.point)) continue;
      defined[method]++;
      widths[method].push(hi - lo);
      if (lo <= prob.truth && prob.truth <= hi) hits[method]++;
    }
    d++;
    if (d >= N_MAX) break;
    if (d >= N_MIN && d % 100 === 0) {
      const worst = Math.max(...methods.map((m) => (defined[m] > 0 || hits[m] > 0 ? halfWidthOf(hits[m] / d, d) : 0)));
      if (worst <= HALF_WIDTH) break;
    }
  }
  return methods.map((method) => {
    const ok = method !== "studentized" || studentizable;
    return {
      metric: sc.metric,
      scenario: sc.scenario,
      unit: sc.unit,
      units: n,
      method,
      datasets: d,
      coverage: ok ? (100 * hits[method]) / d : null,
      halfWidth: ok ? halfWidthOf(hits[method] / d, d) : null,
      medianWidth: ok && defined[method] > 0 ? ss.median(widths[method]) : null,
      undefinedShare: ok ? 1 - defined[method] / d : 1,
    };
  });
}

const CELLS: [Scenario, number][] = SCENARIOS.flatMap((sc) => UNITS.map((n) => [sc, n] as [Scenario, number]));

async function runParts(): Promise<CellResult[]> {
  if (PART !== null) {
    const [i, n] = PART as [number, number];
    return CELLS.filter((_, k) => k % n === i).flatMap(([sc, u]) => runCell(sc, u));
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
      const child = spawn(process.execPath, [...process.execArgv, process.argv[1] as string, ...(QUICK ? ["--quick"] : []), "--part", `${i}/${JOBS}`, "--json", file], { stdio: ["ignore", "ignore", "inherit"] });
      return new Promise<CellResult[]>((resolve, reject) =>
        child.on("exit", (code) => (code === 0 ? resolve((JSON.parse(readFileSync(file, "utf8")) as { results: CellResult[] }).results) : reject(new Error(`part ${i} exited ${code}`)))),
      );
    }),
  );
  const all = parts.flat();
  // Back in the cells' order.
  return CELLS.flatMap(([sc, u]) => all.filter((r) => r.metric === sc.metric && r.scenario === sc.scenario && r.units === u));
}

const t0 = process.hrtime.bigint();
const results = await runParts();
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
if (PART !== null) {
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ results }) + "\n");
  process.exit(0);
}
process.stdout.write(`bench/coverage: B = ${B} (studentized ${B_STUDENT}), data sets ${N_MIN}..${N_MAX} per cell until +-${HALF_WIDTH} points, ${JOBS} process(es)${QUICK ? " (--quick: too few for +-2)" : ""}\n\n`);
process.stdout.write("| metric | scenario | unit | n | data sets | percentile | BCa | studentized | median width (pct / BCa / stud) |\n| :-- | :-- | :-- | --: | --: | --: | --: | --: | --: |\n");
for (const [sc, n] of CELLS) {
  const cell = results.filter((r) => r.metric === sc.metric && r.scenario === sc.scenario && r.units === n);
  const cov = (m: IntervalMethod): string => {
    const r = cell.find((c) => c.method === m) as CellResult;
    return r.coverage === null ? "n/a" : `${r.coverage.toFixed(1)} +- ${(r.halfWidth as number).toFixed(1)}`;
  };
  const wid = INTERVAL_METHODS.map((m) => {
    const r = cell.find((c) => c.method === m) as CellResult;
    return r.medianWidth === null ? "n/a" : r.medianWidth.toFixed(3);
  }).join(" / ");
  process.stdout.write(`| ${sc.metric} | ${sc.scenario} | ${sc.unit} | ${n} | ${(cell[0] as CellResult).datasets} | ${cov("percentile")} | ${cov("bca")} | ${cov("studentized")} | ${wid} |\n`);
}

// The default method: the one that covers 95% +- 3 at 10 and 30 units for the most metrics (ties go
// to the cheaper: percentile, then BCa). Scenarios whose truth sits on a boundary the statistic
// cannot cross (AUC+ of a flat curve is 0, every estimate is >= 0) are reported but not counted.
const counted = results.filter((r) => !(r.metric === "auc_plus" && r.scenario === "flat"));
const score = (m: IntervalMethod): number =>
  counted.filter((r) => r.method === m && r.units >= 10 && r.coverage !== null && Math.abs(r.coverage - 95) <= 3).length;
const best = [...INTERVAL_METHODS].sort((a, b) => score(b) - score(a))[0] as IntervalMethod;
process.stdout.write(`\ncells within 95 +- 3 at n >= 10: ${INTERVAL_METHODS.map((m) => `${m} ${score(m)}`).join(", ")} of ${counted.filter((r) => r.method === "percentile" && r.units >= 10).length}; best: ${best}\n`);
process.stdout.write(`wall ${wall.toFixed(1)} s\n`);
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ B, B_STUDENT, results, best, wall_s: wall }, null, 1) + "\n");
