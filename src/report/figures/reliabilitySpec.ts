/**
 * The reliability diagram: per game a panel, per model a line through its bins' (mean self-score,
 * mean reward) points, the diagonal for perfect calibration. It sits beside the calibration figure,
 * which pools the models and carries the bins' intervals; here every point shows how many steps it
 * rests on (its area), and a bin of fewer than THIN_BIN steps is drawn hollow, so a reader does not
 * take a two-step mean for a trend. Models differ by colour AND marker AND dash (a reader who cannot
 * tell the colours apart, or prints in grey, still can tell the lines apart).
 */
import type { TopLevelSpec } from "vega-lite";
import type { RewardRange } from "../../analysis/metrics/judging.js";
import type { ReliabilityBin } from "../../analysis/tables/judgingTables.js";
import { BASE, paddedDomain, short, wrapLines } from "./specs.js";
import { DEFAULT_THEME } from "./theme.js";

/** Bins with fewer steps than this are drawn hollow. */
export const THIN_BIN = 10;

/** Eight colours (Tableau 10, colour-blind aware), then dashes and markers that repeat on other cycles. */
const COLORS = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d"];
const DASHES = [
  [1, 0],
  [6, 3],
  [2, 2],
  [8, 2, 2, 2],
  [4, 4],
  [1, 3],
  [10, 4],
];
const SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "wedge"];

/** Colour, dash and marker scales for the models, in sorted order (the same model, the same style in every panel). */
export function modelScales(models: readonly string[]): { color: object; strokeDash: object; shape: object } {
  const domain = [...new Set(models)].sort();
  return {
    color: { domain, range: domain.map((_, i) => COLORS[i % COLORS.length]) },
    strokeDash: { domain, range: domain.map((_, i) => DASHES[i % DASHES.length]) },
    shape: { domain, range: domain.map((_, i) => SHAPES[i % SHAPES.length]) },
  };
}

export function reliabilitySpec(bins: readonly ReliabilityBin[], ranges: ReadonlyMap<string, RewardRange | null>): TopLevelSpec {
  const games = [...new Set(bins.map((b) => b.game))].sort();
  const scales = modelScales(bins.map((b) => b.model));
  const values: Record<string, unknown>[] = bins.map((b) => ({ kind: "bin", game: b.game, model: b.model, s: b.s_mean, r: b.r_mean, n: b.n, thin: b.n < THIN_BIN }));
  const maxN = Math.max(1, ...bins.map((b) => b.n));
  const thin = bins.filter((b) => b.n < THIN_BIN).length;
  const allSteps = bins.reduce((a, b) => a + b.n, 0);
  const allModels = new Set(bins.map((b) => b.model)).size;
  const panels = games.map((game) => {
    const gb = bins.filter((b) => b.game === game);
    const rg = ranges.get(game) ?? null;
    const lo = Math.min(rg?.min ?? Infinity, ...gb.map((b) => Math.min(b.s_mean, b.r_mean)));
    const hi = Math.max(rg?.max ?? -Infinity, ...gb.map((b) => Math.max(b.s_mean, b.r_mean)));
    const constant = hi - lo <= 1e-12;
    const domain = constant ? paddedDomain(lo) : [lo, hi];
    values.push({ kind: "diag", game, s: domain[0], r: domain[0] }, { kind: "diag", game, s: domain[1], r: domain[1] });
    const steps = gb.reduce((a, b) => a + b.n, 0);
    const models = new Set(gb.map((b) => b.model)).size;
    const x = { field: "s", type: "quantitative", title: "mean self-score s in the bin (clipped)", scale: { domain, nice: false } };
    const y = { field: "r", type: "quantitative", title: "mean verifier reward r", scale: { domain, nice: false } };
    const color = { field: "model", type: "nominal", scale: scales.color, title: "model" };
    const size = { field: "n", type: "quantitative", title: "steps in bin", scale: { domain: [0, maxN], range: [16, 360] } };
    const bin = (filled: boolean) => ({
      transform: [{ filter: `datum.kind === 'bin' && datum.thin === ${!filled}` }],
      mark: { type: "point", filled, opacity: 1, strokeWidth: 1.5 },
      encoding: { x, y, color, shape: { field: "model", type: "nominal", scale: scales.shape, title: "model" }, size },
    });
    return {
      title: {
        text: game,
        subtitle: constant ? `constant: r = s = ${short(lo)} (n = ${steps} steps)` : `n = ${steps} scored steps, ${models} model(s)`,
        anchor: "middle",
        fontSize: 12,
      },
      width: 200,
      height: 200,
      transform: [{ filter: { field: "game", equal: game } }],
      layer: [
        { transform: [{ filter: "datum.kind === 'diag'" }], mark: { type: "line", strokeDash: [2, 4], color: DEFAULT_THEME.neutral }, encoding: { x, y } },
        {
          transform: [{ filter: "datum.kind === 'bin'" }],
          mark: { type: "line", strokeWidth: 1.5, opacity: 0.9 },
          encoding: { x, y, color, strokeDash: { field: "model", type: "nominal", scale: scales.strokeDash, title: "model" }, order: { field: "s", type: "quantitative" } },
        },
        bin(true),
        bin(false),
      ],
    };
  });
  return {
    ...BASE,
    title: {
      text: "Reliability: mean verifier reward per self-score bin, per model (exploration steps of history + memory runs)",
      subtitle: wrapLines([
        `n = ${allSteps} scored steps of ${allModels} model(s) over ${games.length} game(s). Each point: one model's scored steps whose self-score (clipped to the game's reward range) falls in one of 10 equal-width bins; x its mean self-score, y its mean reward; area: steps in the bin; hollow: fewer than ${THIN_BIN} steps (${thin} such bin(s)), a mean too thin to read as a trend. Light dashed diagonal: perfect calibration.`,
        "Models differ by colour, marker and dash. No intervals here: the calibration figure pools the models and gives each bin's interval; self_judging gives each model's balanced accuracy and AUROC.",
      ]),
    },
    data: { values },
    ...(panels.length > 0 ? { concat: panels, columns: 4 } : { mark: "text", encoding: { text: { value: "no scored exploration steps in this data set" } } }),
    resolve: { scale: { x: "independent", y: "independent" } },
  } as unknown as TopLevelSpec;
}
