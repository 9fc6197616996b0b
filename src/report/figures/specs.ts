/**
 * Vega-Lite specs of the report's figures, built from the analysis' data (never from the logs), so a
 * notebook can draw the same figure from the same rows. Specs embed their data inline.
 */
import type { TopLevelSpec } from "vega-lite";
import type { CurveSeries, TrainingSeries } from "../../analysis/curveTables.js";
import type { BlockRow } from "../../analysis/couplingTables.js";
import type { RewardRange } from "../../analysis/judging.js";
import type { CalibrationBin } from "../../analysis/judgingTables.js";

/** Fixed pathway colours, so History and Memory keep their colour in every figure. */
const PATHWAY_COLOR: Record<string, string> = { history: "#4c78a8", memory: "#f58518", none: "#9d9d9d" };
const OTHER_COLORS = ["#54a24b", "#e45756", "#72b7b2", "#b279a2"];

/** The pathway colour scale for the pathways present (known ones first, in a fixed order). */
function pathwayScale(pathways: Iterable<string>): { domain: string[]; range: string[] } {
  const present = new Set(pathways);
  const known = Object.keys(PATHWAY_COLOR).filter((p) => present.has(p));
  const other = [...present].filter((p) => !(p in PATHWAY_COLOR)).sort();
  return {
    domain: [...known, ...other],
    range: [...known.map((p) => PATHWAY_COLOR[p] as string), ...other.map((_, i) => OTHER_COLORS[i % OTHER_COLORS.length] as string)],
  };
}

const BASE = {
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  background: "white",
  config: { font: "DejaVu Sans, sans-serif", view: { stroke: "#ddd" } },
} as const;

/**
 * Paper Figures 3-6: one game's checkpoint curves, a panel per model, History and Memory (and None
 * when present) overlaid, each with its 95% bootstrap band (evaluation episodes resampled).
 */
export function curvesSpec(game: string, series: readonly CurveSeries[]): TopLevelSpec {
  const values = series
    .filter((s) => s.game === game)
    .flatMap((s) => s.points.map((p) => ({ model: s.model, pathway: s.pathway, x: p.x, y: p.y, lo: p.lo, hi: p.hi })));
  const x = { field: "x", type: "quantitative", title: "checkpoint x (exploration episodes)" } as const;
  const color = { field: "pathway", type: "nominal", scale: pathwayScale(values.map((v) => v.pathway)), title: "pathway" } as const;
  return {
    ...BASE,
    title: `${game}: evaluation score by checkpoint (95% bootstrap band)`,
    data: { values },
    facet: { field: "model", type: "nominal", title: null },
    columns: 4,
    spec: {
      width: 220,
      height: 150,
      layer: [
        {
          mark: { type: "area", opacity: 0.18 },
          encoding: { x, y: { field: "lo", type: "quantitative", title: "score (game units)" }, y2: { field: "hi" }, color },
        },
        {
          mark: { type: "line", point: { size: 18 } },
          encoding: { x, y: { field: "y", type: "quantitative", title: "score (game units)" }, color },
        },
      ],
    },
  };
}

/** Paper Figure 7: training curves (score by epoch), a panel per game, a line per model, y0 dashed. */
export function trainingSpec(series: readonly TrainingSeries[]): TopLevelSpec {
  const values: Record<string, unknown>[] = [];
  for (const s of series) {
    const label = s.model;
    for (const p of s.points) values.push({ kind: "point", game: s.game, model: label, run_id: s.run_id, x: p.x, y: p.y });
    const y0 = s.points.find((p) => p.x === 0);
    if (y0) values.push({ kind: "y0", game: s.game, model: label, run_id: s.run_id, y: y0.y });
  }
  return {
    ...BASE,
    title: "Training pathway: evaluation score by epoch (epoch 0 = base model, dashed)",
    data: { values },
    facet: { field: "game", type: "nominal", title: null },
    columns: 4,
    resolve: { scale: { y: "independent" } },
    spec: {
      width: 220,
      height: 150,
      layer: [
        {
          transform: [{ filter: "datum.kind === 'point'" }],
          mark: { type: "line", point: { size: 14 } },
          encoding: {
            x: { field: "x", type: "quantitative", title: "epoch" },
            y: { field: "y", type: "quantitative", title: "score (game units)" },
            color: { field: "model", type: "nominal" },
            detail: { field: "run_id", type: "nominal" },
          },
        },
        {
          transform: [{ filter: "datum.kind === 'y0'" }],
          mark: { type: "rule", strokeDash: [4, 3], opacity: 0.7 },
          encoding: { y: { field: "y", type: "quantitative" }, color: { field: "model", type: "nominal" } },
        },
      ],
    },
  };
}

/**
 * Calibration: per game, mean verifier reward against mean (clipped) self-score in equal-width bins of
 * the self-score, point area by step count; the diagonal is perfect calibration.
 */
export function calibrationSpec(bins: readonly CalibrationBin[], ranges: ReadonlyMap<string, RewardRange | null>): TopLevelSpec {
  const values: Record<string, unknown>[] = bins.map((b) => ({ kind: "bin", game: b.game, s: b.s_mean, r: b.r_mean, n: b.n }));
  for (const game of new Set(bins.map((b) => b.game))) {
    const rg = ranges.get(game);
    if (!rg) continue;
    values.push({ kind: "diag", game, s: rg.min, r: rg.min }, { kind: "diag", game, s: rg.max, r: rg.max });
  }
  return {
    ...BASE,
    title: "Calibration: verifier reward vs self-score (exploration steps, history + memory)",
    data: { values },
    facet: { field: "game", type: "nominal", title: null },
    columns: 4,
    resolve: { scale: { x: "independent", y: "independent" } },
    spec: {
      width: 180,
      height: 180,
      layer: [
        {
          transform: [{ filter: "datum.kind === 'diag'" }],
          mark: { type: "line", strokeDash: [4, 3], color: "#888" },
          encoding: { x: { field: "s", type: "quantitative" }, y: { field: "r", type: "quantitative" } },
        },
        {
          transform: [{ filter: "datum.kind === 'bin'" }],
          mark: { type: "circle", opacity: 0.8 },
          encoding: {
            x: { field: "s", type: "quantitative", title: "self-score s (clipped to the reward range)" },
            y: { field: "r", type: "quantitative", title: "mean verifier reward r" },
            size: { field: "n", type: "quantitative", title: "steps" },
          },
        },
      ],
    },
  };
}

/** The coupling scatter: block agreement A_t against block improvement g_t, coloured by game. */
export function couplingSpec(blocks: readonly BlockRow[]): TopLevelSpec {
  const values = blocks.map((b) => ({ game: b.game, pathway: b.pathway, model: b.model, t: b.t, A: b.A, g: b.g }));
  return {
    ...BASE,
    title: "Coupling: block agreement A_t vs improvement g_t",
    data: { values },
    width: 420,
    height: 300,
    mark: { type: "point", opacity: 0.6, filled: true, size: 22 },
    encoding: {
      x: { field: "A", type: "quantitative", title: "A_t (Agree over the block's scored steps)", scale: { domain: [0, 1] } },
      y: { field: "g", type: "quantitative", title: "g_t (normalised improvement)" },
      color: { field: "game", type: "nominal" },
      shape: { field: "pathway", type: "nominal" },
    },
  };
}
