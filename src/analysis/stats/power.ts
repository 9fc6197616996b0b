/**
 * What a paired comparison of this size can detect (metrics.md, "Comparisons and power"): from a
 * pilot data directory, per game and curve metric, the minimum detectable difference (MDD) at 80%
 * power and two-sided alpha 0.05 for N evaluation episodes per checkpoint, by SIMULATION from the
 * pilot, not by a normal formula:
 * - the pilot's pairs are the comparisons `compare` would make on it: per model, its memory run
 *   against its history run on the same seeds (else consecutive runs of the game on the same seeds);
 * - a simulated experiment draws N of the pilot's evaluation seeds with replacement and, for each, a
 *   random swap of the two sides (the sign-flip null: no difference, the seed-level variation of the
 *   pilot kept, checkpoints of a seed moving together); T = mean over pairs of metric(a) - metric(b);
 * - the test rejects when |T| exceeds the 95% quantile of |T| under that null; an effect d shifts T
 *   by d, and the MDD is the smallest d rejected in 80% of the simulated experiments.
 * With N <= 5 the exact sign-flip test `compare` uses cannot reach p < 0.05 at all (its smallest p is
 * 2 / 2^N), so the MDD there is missing: no difference is detectable with that few seeds.
 */
import { compareText, type Dataset, type RunData } from "../load/dataset.js";
import { isTraining } from "../load/runs.js";
import { curveMetricsSorted, type CurveMetrics } from "../metrics/curves.js";
import { bootstrapRng } from "./bootstrap.js";
import { COMPARE_METRICS } from "./compare.js";
import { seedCurve, type SeedCurve } from "./seedCurves.js";
import { withInstrumentNote } from "../tables/instruments.js";
import type { Table } from "../tables/table.js";

export type PowerMetric = (typeof COMPARE_METRICS)[number];

export interface PowerOptions {
  /** Evaluation episodes per checkpoint to assess (default 3, 5, 10, 20, 50). */
  episodes?: readonly number[];
  metrics?: readonly PowerMetric[];
  /** Simulated experiments per (game, metric, N) (default 2000). */
  sims?: number;
  seed?: number;
  alpha?: number;
  power?: number;
}

export const DEFAULT_EPISODES = [3, 5, 10, 20, 50] as const;

/** A row of the power table. */
export interface PowerRow {
  game: string;
  metric: PowerMetric;
  episodes: number;
  /** Minimum detectable difference in the metric's units; null when no difference is detectable. */
  mdd: number | null;
  /** Why mdd is missing: the test cannot reach alpha with N seeds, or the pilot does not vary. */
  note: string | null;
}

/** The pilot size below which `power` warns that its MDD is itself uncertain. */
export const PILOT_MIN_SEEDS = 10;

/** Two runs of a game on the same seeds, as the pilot's stand-in for a comparison. */
export interface PilotPair {
  a: SeedCurve;
  b: SeedCurve;
  xs: number[];
  /** Scores aligned on xs x keys (NaN where absent). */
  A: Float64Array;
  B: Float64Array;
}

/**
 * Two runs on the same seeds as a pilot pair, its A side CENTRED: at each checkpoint the mean
 * difference A - B over the seeds is removed (a pilot with a real effect would otherwise widen the
 * swap null by that effect: 36-49% wider, measured), and the per-seed deviations are scaled by
 * sqrt(K / (K - 1)) (drawing from K pilot seeds has the plug-in variance (K - 1) / K of the
 * population's: without it the MDD came out 15% small from 12-seed pilots).
 */
export function pilotPair(a: SeedCurve, b: SeedCurve): PilotPair {
  const xs = [...new Set([...a.xs, ...b.xs])].sort((x, y) => x - y);
  const K = a.keys.length;
  const align = (sc: SeedCurve): Float64Array => {
    const out = new Float64Array(xs.length * K).fill(Number.NaN);
    xs.forEach((x, r) => {
      const c = sc.xs.indexOf(x);
      if (c >= 0) for (let k = 0; k < K; k++) out[r * K + k] = sc.scores[c * K + k] as number;
    });
    return out;
  };
  const A = align(a);
  const B = align(b);
  const scale = K > 1 ? Math.sqrt(K / (K - 1)) : 1;
  for (let r = 0; r < xs.length; r++) {
    let sum = 0;
    let n = 0;
    for (let k = 0; k < K; k++) {
      const d = (A[r * K + k] as number) - (B[r * K + k] as number);
      if (Number.isNaN(d)) continue;
      sum += d;
      n++;
    }
    if (n === 0) continue;
    const mean = sum / n;
    for (let k = 0; k < K; k++) {
      const j = r * K + k;
      const d = (A[j] as number) - (B[j] as number);
      // Roundoff of the centring is no variation (a flat pilot must give "no variation", not an MDD of 1e-16).
      if (!Number.isNaN(d)) A[j] = (B[j] as number) + (Math.abs(d - mean) <= 1e-12 * Math.max(1, Math.abs(d)) ? 0 : scale * (d - mean));
    }
  }
  return { a, b, xs, A, B };
}

function samePair(a: SeedCurve, b: SeedCurve): boolean {
  return a.pairedBy === b.pairedBy && a.keys.join(",") === b.keys.join(",");
}

/** The pilot pairs of a game: memory vs history per model, else consecutive runs on the same seeds. */
export function pilotPairs(runs: readonly RunData[]): PilotPair[] {
  const curves = runs.map((r) => ({ run: r, sc: seedCurve(r) })).filter((c) => c.sc.keys.length > 0 && c.sc.xs.length > 0);
  const out: PilotPair[] = [];
  for (const model of [...new Set(curves.map((c) => c.run.model))].sort(compareText)) {
    const mem = curves.find((c) => c.run.model === model && c.run.pathway === "memory");
    const his = curves.find((c) => c.run.model === model && c.run.pathway === "history");
    if (mem && his && samePair(mem.sc, his.sc)) out.push(pilotPair(mem.sc, his.sc));
  }
  if (out.length > 0) return out;
  for (let i = 1; i < curves.length; i++) {
    const a = (curves[i - 1] as { sc: SeedCurve }).sc;
    const b = (curves[i] as { sc: SeedCurve }).sc;
    if (samePair(a, b)) out.push(pilotPair(a, b));
  }
  return out;
}

/** The simulated null distribution of T for N drawn seeds: sims values of the four metrics at once. */
export function nullDistribution(pairs: readonly PilotPair[], N: number, sims: number, seed: number, game: string): Record<PowerMetric, Float64Array> {
  const rng = bootstrapRng(seed, "power", game, String(N));
  const out: Record<PowerMetric, Float64Array> = { avg: new Float64Array(sims), max: new Float64Array(sims), auc_plus: new Float64Array(sims), naba: new Float64Array(sims) };
  const K = (pairs[0] as PilotPair).a.keys.length;
  const draw = new Int32Array(N);
  const swap = new Uint8Array(N);
  const rows = Math.max(...pairs.map((p) => p.xs.length));
  const xb = new Float64Array(rows);
  const ya = new Float64Array(rows);
  const yb = new Float64Array(rows);
  const ma: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  const mb: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  for (let s = 0; s < sims; s++) {
    for (let j = 0; j < N; j++) {
      draw[j] = rng.int(K);
      swap[j] = rng.int(2);
    }
    const acc: Record<PowerMetric, number> = { avg: 0, max: 0, auc_plus: 0, naba: 0 };
    for (const p of pairs) {
      let n = 0;
      for (let r = 0; r < p.xs.length; r++) {
        let sa = 0;
        let sb = 0;
        let ca = 0;
        let cb = 0;
        for (let j = 0; j < N; j++) {
          const k = draw[j] as number;
          let va = p.A[r * K + k] as number;
          let vb = p.B[r * K + k] as number;
          if (swap[j]) [va, vb] = [vb, va];
          if (!Number.isNaN(va)) {
            sa += va;
            ca++;
          }
          if (!Number.isNaN(vb)) {
            sb += vb;
            cb++;
          }
        }
        if (ca === 0 || cb === 0) continue; // a checkpoint must exist on both sides to be compared
        xb[n] = p.xs[r] as number;
        ya[n] = sa / ca;
        yb[n] = sb / cb;
        n++;
      }
      const hasY0 = n > 0 && xb[0] === 0;
      curveMetricsSorted(xb, ya, n, hasY0, ma);
      curveMetricsSorted(xb, yb, n, hasY0, mb);
      for (const m of COMPARE_METRICS) acc[m] += (ma[m] ?? Number.NaN) - (mb[m] ?? Number.NaN);
    }
    for (const m of COMPARE_METRICS) out[m][s] = acc[m] / pairs.length;
  }
  return out;
}

/** Quantile (linear interpolation) of sorted finite values. */
function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] as number;
  return a + (h - lo) * (b - a);
}

/**
 * The MDD from a simulated null sample of T: the test rejects |T| > c (c = the 1 - alpha quantile of
 * |T|); with an effect d, T + d; the smallest d >= 0 rejected with the given power (bisection: the
 * rejection rate grows with d for a null symmetric around 0). Null when the null sample is empty or
 * all zero (no variation: see PowerRow.note).
 */
export function mddFromNull(t: ArrayLike<number>, alpha = 0.05, power = 0.8, seeds?: number): number | null {
  const vals: number[] = [];
  for (let i = 0; i < t.length; i++) if (Number.isFinite(t[i] as number)) vals.push(t[i] as number);
  if (vals.length === 0) return null;
  const abs = vals.map(Math.abs).sort((a, b) => a - b);
  // A null that never moves (a flat pilot: every seed alike on both sides) detects "any" shift: no
  // MDD of 0, the caller says "no variation in the pilot".
  if ((abs[abs.length - 1] as number) === 0) return null;
  const c = quantile(abs, 1 - alpha);
  // The sign-flip test's critical value is conditional on the data: flipping seeds whose differences
  // carry an effect d spreads the flip distribution by d too (its second moment is sum (e + d)^2, not
  // sum e^2), so with N seeds c grows to c * sqrt(1 + d^2 / (N var T)). A fixed c made the MDD
  // about 20% too small (bench/power.ts: 68% power instead of 80% at N = 10); this approximation errs
  // the other way, 10-18% large (93-95% power): conservative, documented in docs/analysis.md.
  const varT = vals.reduce((a, v) => a + v * v, 0) / vals.length;
  const crit = (d: number): number => (seeds === undefined || varT === 0 ? c : c * Math.sqrt(1 + (d * d) / (seeds * varT)));
  const rate = (d: number): number => {
    const cd = crit(d);
    return vals.filter((v) => Math.abs(v + d) > cd).length / vals.length;
  };
  if (rate(0) >= power) return 0;
  let lo = 0;
  let hi = c + (abs[abs.length - 1] as number) + 1e-12;
  // With the conditional critical value the rate reaches 1 only when c / sqrt(N var T) < 1 (N above
  // about 4 seeds, always so where the exact test can reject): the doubling is capped, never endless.
  for (let i = 0; rate(hi) < power; i++) {
    if (i > 200) return null;
    hi *= 2;
  }
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (rate(mid) >= power) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The power table: one row per (game, metric, episodes). Pure and seeded. */
export function powerTable(ds: Dataset, opts: PowerOptions = {}): Table<PowerRow> {
  const episodes = opts.episodes ?? DEFAULT_EPISODES;
  const metrics = opts.metrics ?? ["avg", "auc_plus", "naba"];
  const sims = opts.sims ?? 2000;
  const seed = opts.seed ?? 0;
  const alpha = opts.alpha ?? 0.05;
  const power = opts.power ?? 0.8;
  const rows: PowerRow[] = [];
  const pilots: string[] = [];
  const skipped: string[] = [];
  const small: string[] = [];
  const runs = ds.runs.filter((r) => !isTraining(r));
  for (const game of [...new Set(runs.map((r) => r.game))].sort(compareText)) {
    const pairs = pilotPairs(runs.filter((r) => r.game === game));
    if (pairs.length === 0) {
      skipped.push(game);
      continue;
    }
    const K = (pairs[0] as PilotPair).a.keys.length;
    pilots.push(`${game}: ${pairs.length} pair${pairs.length > 1 ? "s" : ""} on ${K} seeds`);
    if (K < PILOT_MIN_SEEDS) small.push(`${game} (${K})`);
    for (const N of episodes) {
      // The exact sign-flip test cannot reject at alpha with too few seeds (smallest p = 2 / 2^N).
      const detectable = 2 / 2 ** N <= alpha;
      const dist = detectable ? nullDistribution(pairs, N, sims, seed, game) : null;
      for (const metric of metrics) {
        const mdd = dist === null ? null : mddFromNull(dist[metric], alpha, power, N);
        const note = dist === null ? `p < ${alpha} unreachable with ${N} seeds` : mdd === null ? "no variation in the pilot" : null;
        rows.push({ game, metric, episodes: N, mdd, note });
      }
    }
  }
  rows.sort((a, b) => compareText(a.game, b.game) || metrics.indexOf(a.metric) - metrics.indexOf(b.metric) || a.episodes - b.episodes);
  return withInstrumentNote(
    {
      name: "power",
      title: `Minimum detectable difference (paired, ${Math.round(power * 100)}% power, two-sided alpha ${alpha})`,
      columns: [
        { key: "game", kind: "text" },
        { key: "metric", kind: "text" },
        { key: "episodes", kind: "int" },
        { key: "mdd", kind: "num" },
        { key: "note", kind: "text" },
      ],
      rows,
      notes: [
        `Simulated from the pilot (${pilots.join("; ") || "no pairs"}): ${sims} experiments per row, seed ${seed}. Each draws N of the pilot's evaluation seeds with replacement and swaps the two sides of a seed at random (no difference; a seed's checkpoints move together); the difference is the mean over the game's pairs, as \`s3gym compare\` computes it. mdd: the smallest shift of that difference detected in ${Math.round(power * 100)}% of experiments, in the metric's own units.`,
        `An empty mdd: with N <= ${Math.floor(Math.log2(2 / alpha))} seeds the exact sign-flip test cannot reach p < ${alpha} at all (smallest p = 2 / 2^N), so no difference is detectable; the paper's 3 episodes per checkpoint is that case.`,
        "The null is centred (the pilot's mean difference removed at every checkpoint, so a pilot with a real effect does not widen it) and its seed deviations are scaled by sqrt(K / (K - 1)) for a K-seed pilot; bench/power.ts checks by simulation that an effect of the MDD is detected about 80% of the time.",
        ...(small.length > 0
          ? [
              `WARNING: pilots with fewer than ${PILOT_MIN_SEEDS} seeds: ${small.join(", ")}: the seed-level variance, and so every mdd, rests on that few seeds and may be far off (rerun the pilot with --eval-episodes ${PILOT_MIN_SEEDS} or more).`,
            ]
          : []),
        ...(skipped.length > 0 ? [`No pilot pairs (two runs of the game on the same seeds) for: ${skipped.join(", ")}.`] : []),
      ],
    },
    runs.map((r) => r.model),
  );
}
