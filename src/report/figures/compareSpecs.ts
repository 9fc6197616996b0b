/**
 * Comparison figures: several models on shared axes, the one comparison a paper shows (a user's
 * model against its baseline). One game, one panel per pathway asked for (History and Memory side
 * by side, `none` in each panel as the dashed control when present), every model a colour, each
 * model's line with its 95% bootstrap band, the pathway also told by dash and marker.
 */
import type { TopLevelSpec } from "vega-lite";
import type { BootstrapConfig } from "../../analysis/stats/bootstrap.js";
import type { CurveSeries } from "../../analysis/tables/curveTables.js";
import { BASE, bootText, countRange, integerAxis, pathwayScales, wrapLines } from "./specs.js";
import { DEFAULT_THEME } from "./theme.js";

/**
 * One game's checkpoint curves with the named models overlaid on shared axes, a panel per learning
 * pathway of `pathways` (default: every pathway present but `none`), `none` drawn in every panel as the
 * control. Models and pathways with no series are left out (the caption names the models drawn).
 */
export function compareCurvesSpec(game: string, series: readonly CurveSeries[], models: readonly string[], boot: BootstrapConfig, pathways?: readonly string[]): TopLevelSpec {
  const mine = series.filter((s) => s.game === game && models.includes(s.model));
  const present = [...new Set(mine.map((s) => s.pathway))];
  const panelsOf = (pathways ?? present.filter((p) => p !== "none")).filter((p) => p !== "none" && present.includes(p));
  const shown = panelsOf.length > 0 ? panelsOf : present;
  const values = shown.flatMap((panel) =>
    mine
      .filter((s) => s.pathway === panel || (s.pathway === "none" && panel !== "none"))
      .flatMap((s) =>
        s.points.map((p) => ({ panel, model: s.model, band: s.model, pathway: s.pathway, line: `${s.model} / ${s.pathway}`, x: p.x, y: p.y, lo: p.lo ?? p.y, hi: p.hi ?? p.y, n: p.n_episodes })),
      ),
  );
  const drawn = models.filter((m) => mine.some((s) => s.model === m));
  const color = { field: "model", type: "nominal", title: "model", scale: { domain: drawn, range: drawn.map((_, i) => DEFAULT_THEME.palette[i % DEFAULT_THEME.palette.length]) } };
  const scales = pathwayScales(values.map((v) => v.pathway));
  const x = {
    field: "x",
    type: "quantitative",
    axis: integerAxis(
      values.map((v) => v.x),
      "checkpoint x (exploration episodes)",
    ),
    scale: { nice: false },
  };
  const y = { field: "y", type: "quantitative", title: "score (game units)", scale: { zero: false, nice: true } };
  const panels = shown.map((panel) => ({
    title: { text: panel === "history" ? "History ICL" : panel === "memory" ? "Summary Memory" : panel, anchor: "middle", fontSize: 12 },
    width: 260,
    height: 180,
    transform: [{ filter: { field: "panel", equal: panel } }],
    layer: [
      {
        mark: { type: "area", opacity: 0.18, clip: true },
        encoding: { x, y: { ...y, field: "lo" }, y2: { field: "hi" }, fill: { ...color, field: "band", legend: null }, detail: { field: "line", type: "nominal" } },
      },
      {
        mark: { type: "line", strokeWidth: 2 },
        encoding: { x, y, color, strokeDash: { field: "pathway", type: "nominal", title: "pathway", scale: scales.strokeDash }, detail: { field: "line", type: "nominal" } },
      },
      { mark: { type: "point", filled: true, opacity: 1, size: 40 }, encoding: { x, y, color, shape: { field: "pathway", type: "nominal", title: "pathway", scale: scales.shape } } },
    ],
  }));
  const nEp = countRange(values.map((v) => v.n));
  return {
    ...BASE,
    title: {
      text: `${game}: ${drawn.join(" vs ")}, evaluation score by checkpoint`,
      subtitle: wrapLines([
        `Lines: mean score of the evaluation episodes at each checkpoint (n = ${nEp} episodes per point), one colour per model, on shared axes; a panel per pathway${present.includes("none") ? ", the none pathway (no experience) dashed in each as the control" : ""}.`,
        `Bands: ${bootText(boot)}, each run's evaluation episodes resampled within each checkpoint.`,
      ]),
    },
    data: { values },
    concat: panels,
    columns: panels.length,
    resolve: { scale: { y: "shared", x: "shared" } },
  } as unknown as TopLevelSpec;
}
