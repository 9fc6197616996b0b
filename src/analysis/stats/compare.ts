/**
 * Paired comparisons on shared evaluation seeds (metrics.md, "Comparisons and power"): pathway vs
 * pathway, model vs model, checkpoint x vs checkpoint 0. Per game and metric: the two sides' values,
 * their difference with a paired bootstrap interval (one seed draw for both sides), and an exact
 * sign-flip permutation p-value over seeds (every flip pattern up to 16 seeds, else 10,000 seeded
 * ones), Holm-adjusted across the games of each metric.
 *
 * Pairing: a run of side A is paired with the run of side B that agrees with it on every identity
 * field neither selector names (model, pathway), on the same evaluation seeds. Two such runs on
 * different seeds are refused with an error, never silently compared unpaired.
 */
import { MethodTally, bootstrapRng, describeBootstrap, methodOf, type BootstrapConfig } from "./bootstrap.js";
import { curveMetricsSorted, type CurveMetrics } from "../metrics/curves.js";
import { compareText, type Dataset, type RunData } from "../load/dataset.js";
import { isTraining } from "../load/runs.js";
import { ANY_RANGE, simpleDesign, tableInterval } from "./intervals.js";
import { minSupportedUnits } from "./coverage.js";
import { seedCurve, type SeedCurve } from "./seedCurves.js";
import { withInstrumentNote } from "../tables/instruments.js";
import { DEFAULT_FLIPS, EXACT_MAX_SEEDS, signFlipTest, type SignFlipResult } from "./signFlip.js";
import type { Table } from "../tables/table.js";
import type { Rng } from "../../util/rng.js";
import { holmAdjust } from "./multiplicity.js";

/** Which runs (and which checkpoint) a side of a comparison takes. */
export interface Selector {
  pathway?: string;
  model?: string;
  /** A checkpoint x: the side's value is then y(x), the checkpoint's mean score. */
  checkpoint?: number;
}

/** The curve metrics a comparison can use, and `y` (the score at a selected checkpoint). */
export const COMPARE_METRICS = ["avg", "max", "auc_plus", "naba"] as const;
export type CompareMetric = (typeof COMPARE_METRICS)[number] | "y";

/** A comparison that cannot be made as asked (bad selector, unpaired runs): the message says why and what to do. */
export class CompareError extends Error {
  override name = "CompareError";
}

const SELECTOR_KEYS = ["pathway", "model", "checkpoint"] as const;

/** Parses `key=value[,key=value]` (keys pathway, model, checkpoint). */
export function parseSelector(text: string, flag = "selector"): Selector {
  const out: Selector = {};
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length === 0) throw new CompareError(`${flag} is empty: expected key=value with key one of ${SELECTOR_KEYS.join(", ")} (e.g. pathway=memory)`);
  for (const part of parts) {
    const eq = part.indexOf("=");
    const key = eq < 0 ? part : part.slice(0, eq).trim();
    const value = eq < 0 ? "" : part.slice(eq + 1).trim();
    if (!(SELECTOR_KEYS as readonly string[]).includes(key)) throw new CompareError(`${flag}: unknown key '${key}': expected one of ${SELECTOR_KEYS.join(", ")} (e.g. pathway=memory)`);
    if (value === "") throw new CompareError(`${flag}: '${key}' needs a value (e.g. ${key}=${key === "checkpoint" ? "30" : key === "model" ? "gpt-4o" : "memory"})`);
    if (key === "checkpoint") {
      if (!/^\d+$/.test(value)) throw new CompareError(`${flag}: checkpoint must be a non-negative integer, got '${value}'`);
      out.checkpoint = Number(value);
    } else out[key as "pathway" | "model"] = value;
  }
  return out;
}

/** One side of a pair, aligned with the other: checkpoint rows x seeds (NaN where absent). */
interface Side {
  xs: number[];
  scores: Float64Array;
}

/** A pair of runs on the same seeds, as aligned matrices. */
interface Pair {
  a: RunData;
  b: RunData;
  keys: number[];
  A: Side;
  B: Side;
}

/** A row of the comparison table. */
export interface CompareRow {
  game: string;
  metric: CompareMetric;
  n_seeds: number;
  /** Side A's value (mean over the game's pairs). */
  a: number | null;
  b: number | null;
  diff: number | null;
  lo: number | null;
  hi: number | null;
  /**
   * `n=K` when the interval rests on fewer seeds than bench/coverage showed a paired curve contrast
   * needs (coverage.ts, dnaba): indicative only; empty otherwise.
   */
  indicative: string;
  /** Two-sided sign-flip permutation p-value over seeds. */
  p: number | null;
  /** Holm-adjusted across the games of this metric. */
  p_holm: number | null;
  /** The pairs behind the row (run_ids, `a vs b`). */
  pairs: string[];
  /** "exact" (all 2^n flips) or "random" (FLIPS seeded flips). */
  flips: "exact" | "random" | null;
}

export interface CompareOptions extends BootstrapConfig {
  a: Selector;
  b: Selector;
  /** Default avg, auc_plus, naba (or y when the selectors name checkpoints). */
  metrics?: readonly CompareMetric[];
  /** Only these games (default every game with pairs). */
  games?: readonly string[];
  /** Random flips when there are more than EXACT_MAX_SEEDS seeds (default 10,000). */
  flips?: number;
}

export { EXACT_MAX_SEEDS, DEFAULT_FLIPS };

function matches(run: RunData, s: Selector): boolean {
  return (s.pathway === undefined || run.pathway === s.pathway) && (s.model === undefined || run.model === s.model);
}

/** A side's checkpoint rows: one row (the selected checkpoint) or the whole curve on `xs`. */
function sideOf(sc: SeedCurve, keys: number[], xs: number[], checkpoint: number | undefined): Side {
  const K = keys.length;
  const rows = checkpoint === undefined ? xs : [checkpoint];
  const scores = new Float64Array(rows.length * K).fill(Number.NaN);
  const col = new Map(sc.keys.map((k, i) => [k, i]));
  rows.forEach((x, r) => {
    const c = sc.xs.indexOf(x);
    if (c < 0) return;
    keys.forEach((k, j) => {
      const i = col.get(k);
      if (i !== undefined) scores[r * K + j] = sc.scores[c * sc.keys.length + i] as number;
    });
  });
  // A single selected checkpoint is compared as row 0 on both sides (x = 0), so its metric is y(x).
  return { xs: checkpoint === undefined ? xs : [0], scores };
}

/** Curve metrics of a side under seed weights (or an explicit column list), into `out`. */
function sideMetrics(side: Side, K: number, w: ArrayLike<number>, xsBuf: Float64Array, ysBuf: Float64Array, out: CurveMetrics): CurveMetrics {
  let n = 0;
  for (let r = 0; r < side.xs.length; r++) {
    let sum = 0;
    let W = 0;
    for (let k = 0; k < K; k++) {
      const wk = w[k] as number;
      if (wk === 0) continue;
      const v = side.scores[r * K + k] as number;
      if (Number.isNaN(v)) continue;
      sum += wk * v;
      W += wk;
    }
    if (W === 0) continue;
    xsBuf[n] = side.xs[r] as number;
    ysBuf[n] = sum / W;
    n++;
  }
  return curveMetricsSorted(xsBuf, ysBuf, n, n > 0 && xsBuf[0] === 0, out);
}

function metricValue(m: CurveMetrics, metric: CompareMetric): number {
  return (metric === "y" ? m.avg : m[metric]) ?? Number.NaN;
}

/** The game's statistic under weights: mean over pairs of metric(A) and metric(B), and their difference. */
function makeStat(pairs: readonly Pair[], metric: CompareMetric, K: number): { stat: (w: ArrayLike<number>) => number; sides: (w: ArrayLike<number>) => [number, number] } {
  const rows = Math.max(...pairs.map((p) => p.A.xs.length));
  const xb = new Float64Array(rows);
  const yb = new Float64Array(rows);
  const m: CurveMetrics = { avg: null, max: null, auc_plus: null, naba: null };
  const sides = (w: ArrayLike<number>): [number, number] => {
    let a = 0;
    let b = 0;
    for (const p of pairs) {
      a += metricValue(sideMetrics(p.A, K, w, xb, yb, m), metric);
      b += metricValue(sideMetrics(p.B, K, w, xb, yb, m), metric);
    }
    return [a / pairs.length, b / pairs.length];
  };
  return {
    stat: (w) => {
      const [a, b] = sides(w);
      return a - b;
    },
    sides,
  };
}

/**
 * Two-sided sign-flip permutation p-value (signFlip.ts): swapping the A and B scores of a seed (at
 * all checkpoints, in every pair) is one flip.
 */
export function signFlipP(pairs: readonly Pair[], metric: CompareMetric, K: number, flips: number, rng: Rng): SignFlipResult {
  const swapped = pairs.map((p) => ({ ...p, A: { xs: p.A.xs, scores: new Float64Array(p.A.scores.length) }, B: { xs: p.B.xs, scores: new Float64Array(p.B.scores.length) } }));
  const { stat } = makeStat(swapped, metric, K);
  const ones = new Int32Array(K).fill(1);
  return signFlipTest(K, flips, rng, (flip) => {
    pairs.forEach((p, i) => {
      const s = swapped[i] as Pair;
      const rows = p.A.xs.length;
      for (let r = 0; r < rows; r++) {
        for (let k = 0; k < K; k++) {
          const j = r * K + k;
          s.A.scores[j] = (flip[k] ? p.B.scores[j] : p.A.scores[j]) as number;
          s.B.scores[j] = (flip[k] ? p.A.scores[j] : p.B.scores[j]) as number;
        }
      }
    });
    return stat(ones);
  });
}

/** Holm's step-down adjustment of p-values (nulls stay null and do not count): the one the tables use (multiplicity.ts). */
export const holm = holmAdjust;

/** The pairs of one game, or a CompareError saying why runs cannot be paired. */
function gamePairs(runs: readonly RunData[], opts: CompareOptions): Pair[] {
  const aRuns = runs.filter((r) => matches(r, opts.a));
  const bRuns = runs.filter((r) => matches(r, opts.b));
  // The identity fields neither selector names must agree within a pair.
  const free = (["model", "pathway"] as const).filter((k) => opts.a[k] === undefined && opts.b[k] === undefined);
  const keyOf = (r: RunData): string => free.map((k) => r[k]).join("\u0000");
  const pairs: Pair[] = [];
  for (const a of aRuns) {
    const partners = bRuns.filter((b) => keyOf(b) === keyOf(a) && (b !== a || opts.a.checkpoint !== opts.b.checkpoint));
    if (partners.length === 0) continue;
    const sa = seedCurve(a);
    const same = partners.filter((b) => {
      const sb = seedCurve(b);
      return sb.pairedBy === sa.pairedBy && sb.keys.join(",") === sa.keys.join(",");
    });
    if (same.length === 0) {
      const b = partners[0] as RunData;
      throw new CompareError(
        `runs ${a.run_id} and ${b.run_id} were evaluated on different seeds (${seedCurve(a).keys.join(",") || "none"} vs ${seedCurve(b).keys.join(",") || "none"}): a paired comparison needs shared evaluation seeds; compare runs of the same run seed`,
      );
    }
    if (same.length > 1) throw new CompareError(`run ${a.run_id} matches ${same.length} runs on side b (${same.map((r) => r.run_id).join(", ")}): narrow --b (e.g. add model=... or pathway=...)`);
    const b = same[0] as RunData;
    const sb = seedCurve(b);
    const keys = sa.keys;
    const xs = [...new Set([...sa.xs, ...sb.xs])].sort((x, y) => x - y);
    pairs.push({ a, b, keys, A: sideOf(sa, keys, xs, opts.a.checkpoint), B: sideOf(sb, keys, xs, opts.b.checkpoint) });
  }
  return pairs;
}

/**
 * The runs compare can pair, and those it leaves out: a run with no valid checkpoint (every call
 * failed) has no seeds and no curve, and used to break the pairing of the complete runs beside it
 * ("2 different seed lists"). One bad run never takes the others down.
 */
function pairableRuns(ds: Dataset): { runs: RunData[]; leftOut: RunData[] } {
  const loop = ds.runs.filter((r) => !isTraining(r));
  const leftOut = loop.filter((r) => !r.checkpoints.some((c) => c.valid));
  return { runs: loop.filter((r) => !leftOut.includes(r)), leftOut };
}

/**
 * The comparison table: one row per (game, metric). Pure given the data set and options (seeded).
 * Throws CompareError for selectors that pick nothing, sides that cannot be paired, or runs on
 * different seeds.
 */
export function compareTable(ds: Dataset, opts: CompareOptions): Table<CompareRow> {
  const checkpoints = opts.a.checkpoint !== undefined || opts.b.checkpoint !== undefined;
  if (checkpoints && (opts.a.checkpoint === undefined || opts.b.checkpoint === undefined)) {
    throw new CompareError("name a checkpoint on both sides (e.g. --a checkpoint=30 --b checkpoint=0), or on neither to compare whole curves");
  }
  const metrics: readonly CompareMetric[] = checkpoints ? ["y"] : (opts.metrics ?? ["avg", "auc_plus", "naba"]);
  if (checkpoints && opts.metrics !== undefined && opts.metrics.some((m) => m !== "y")) {
    throw new CompareError("with checkpoint selectors the compared value is the checkpoint's score y(x); leave out --metrics");
  }
  const { runs, leftOut } = pairableRuns(ds);
  const games = [...new Set(runs.map((r) => r.game))].sort(compareText).filter((g) => opts.games === undefined || opts.games.includes(g));
  const unknown = (opts.games ?? []).filter((g) => !runs.some((r) => r.game === g));
  if (unknown.length > 0) throw new CompareError(`unknown game '${unknown[0]}': the data has ${[...new Set(runs.map((r) => r.game))].sort(compareText).join(", ") || "no games"}`);
  for (const [side, sel] of [
    ["a", opts.a],
    ["b", opts.b],
  ] as const) {
    for (const k of ["model", "pathway"] as const) {
      const v = sel[k];
      if (v !== undefined && !runs.some((r) => r[k] === v)) {
        throw new CompareError(`side ${side}: no run has ${k}=${v}: the data has ${[...new Set(runs.map((r) => r[k]))].sort(compareText).join(", ") || "no runs"}`);
      }
    }
  }
  const level = opts.level ?? 0.95;
  const method = methodOf(opts, "curve");
  const flips = opts.flips ?? DEFAULT_FLIPS;
  const rows: CompareRow[] = [];
  const used = new MethodTally();
  const need = minSupportedUnits("dnaba");
  for (const game of games) {
    const pairs = gamePairs(
      runs.filter((r) => r.game === game),
      opts,
    );
    if (pairs.length === 0) continue;
    const lists = new Set(pairs.map((p) => p.keys.join(",")));
    if (lists.size > 1)
      throw new CompareError(`game ${game}: the pairs use ${lists.size} different seed lists (several run seeds); select one model or pathway per side so that every pair shares the seeds`);
    const K = (pairs[0] as Pair).keys.length;
    for (const metric of metrics) {
      const { stat, sides } = makeStat(pairs, metric, K);
      const ones = new Int32Array(K).fill(1);
      const [a, b] = sides(ones);
      const diff = a - b;
      let lo: number | null = null;
      let hi: number | null = null;
      // One seed gives no interval (every resample is the data): the point alone, n_seeds = 1.
      if (opts.B > 0 && Number.isFinite(diff) && K > 1) {
        const r = tableInterval(simpleDesign(K), stat, opts.B, bootstrapRng(opts.seed, "compare", game, metric), method, level, ANY_RANGE);
        ({ lo, hi } = r.interval);
        used.add(r.method, r.fellBack);
      }
      const perm = signFlipP(pairs, metric, K, flips, bootstrapRng(opts.seed, "compare-flips", game, metric));
      const fin = (v: number): number | null => (Number.isFinite(v) ? v : null);
      rows.push({
        game,
        metric,
        n_seeds: K,
        a: fin(a),
        b: fin(b),
        diff: fin(diff),
        lo,
        hi,
        indicative: lo !== null && (need === null || K < need) ? `n=${K}` : "",
        p: perm.p,
        p_holm: null,
        pairs: pairs.map((p) => `${p.a.run_id} vs ${p.b.run_id}`),
        flips: perm.p === null ? null : perm.kind,
      });
    }
  }
  if (rows.length === 0)
    throw new CompareError(`no runs pair up: side a (${describeSelector(opts.a)}) and side b (${describeSelector(opts.b)}) share no game with runs that agree on the fields neither names`);
  for (const metric of metrics) {
    const mine = rows.filter((r) => r.metric === metric);
    holm(mine.map((r) => r.p)).forEach((p, i) => ((mine[i] as CompareRow).p_holm = p));
  }
  const exact = rows.some((r) => r.flips === "exact");
  const random = rows.some((r) => r.flips === "random");
  const minSeeds = Math.min(...rows.map((r) => r.n_seeds));
  return withInstrumentNote(
    {
      name: "compare",
      title: `Paired comparison: a (${describeSelector(opts.a)}) - b (${describeSelector(opts.b)})`,
      columns: [
        { key: "game", kind: "text" },
        { key: "metric", kind: "text" },
        { key: "n_seeds", kind: "int" },
        { key: "a", kind: "num" },
        { key: "b", kind: "num" },
        { key: "diff", kind: "num" },
        { key: "lo", kind: "num" },
        { key: "hi", kind: "num" },
        { key: "indicative", kind: "text" },
        { key: "p", kind: "p" },
        { key: "p_holm", kind: "p" },
      ],
      rows,
      notes: [
        describeBootstrap({ ...opts, method }, "evaluation seeds, one draw for both sides of every pair (paired)", used),
        ...(rows.some((r) => r.indicative !== "")
          ? [
              `indicative n=K: the interval rests on K seeds, fewer than bench/coverage showed a paired curve contrast needs (${need === null ? "no size up to 30 covered 95% +- 3" : `${need} or more`}): its real coverage is lower; read the p-value instead.`,
            ]
          : []),
        `diff = a - b, each side the mean over the game's pairs (${rows
          .filter((r, i, all) => all.findIndex((x) => x.game === r.game) === i)
          .map((r) => `${r.game}: ${r.pairs.join(", ")}`)
          .join("; ")}).`,
        `p: two-sided sign-flip permutation test over seeds (${[exact ? `all 2^n flips up to n = ${EXACT_MAX_SEEDS}` : "", random ? `${flips} seeded flips above` : ""].filter((x) => x).join("; ")}); p_holm: Holm-adjusted across the ${games.length > 1 ? "games" : "game"} of each metric.`,
        ...(leftOut.length > 0 ? [`Left out: ${leftOut.map((r) => r.run_id).join(", ")} (no valid checkpoint: the run failed, nothing to pair).`] : []),
        ...(minSeeds <= 5
          ? [
              `With n <= 5 seeds the exact test cannot reach p < 0.05 (its smallest two-sided p is 2 / 2^n = ${(2 / 2 ** minSeeds).toFixed(4)} at n = ${minSeeds}): see \`s3gym power\` for what more evaluation episodes would detect.`,
            ]
          : []),
      ],
    },
    runs.map((r) => r.model),
  );
}

function describeSelector(s: Selector): string {
  const parts = SELECTOR_KEYS.filter((k) => s[k] !== undefined).map((k) => `${k}=${s[k]}`);
  return parts.join(",") || "all runs";
}
