/**
 * The judge swap's figure (docs/judging.md): per game (columns) and pathway (rows), gain_vs_none under
 * each judge as a point with its interval, one colour per model; a dashed line at 0. The contrasts
 * are the table's (judge_swap): the figure shows what they are differences of.
 */
import type { TopLevelSpec } from "vega-lite";
import type { BootstrapConfig } from "../../analysis/stats/bootstrap.js";
import type { JudgeSwapRow } from "../../analysis/tables/judgeSwapTables.js";
import { BASE, wrapLines } from "./specs.js";

export function judgeSwapSpec(rows: readonly JudgeSwapRow[], boot: BootstrapConfig): TopLevelSpec {
  const values = rows
    .filter((r) => r.quantity === "gain_vs_none" && r.estimate.point !== null)
    .map((r) => ({
      model: r.model,
      game: r.game,
      pathway: `${r.pathway} (${r.form})`,
      judge: r.judge,
      y: r.estimate.point,
      lo: r.estimate.lo ?? r.estimate.point,
      hi: r.estimate.hi ?? r.estimate.point,
    }));
  const judges = [...new Set(values.map((v) => v.judge))];
  const x = { field: "judge", type: "nominal", title: "judge of the experience", sort: judges, axis: { labelAngle: -30 } };
  // A little room above and below the data, so a bar that ends at the domain's edge reads as ended, not cut.
  const y = { field: "y", type: "quantitative", title: "gain_vs_none", scale: { zero: false, nice: true, padding: 8 } };
  return {
    ...BASE,
    title: {
      text: "Judge swap: the same evidence, another judge",
      subtitle: wrapLines([
        "Each point: gain_vs_none (mean over checkpoints x >= 3 of y_judge(x) - y_none(x)) of a model's runs under one judge; a column per game, a row per pathway (rejudge: each recorded exploration judged anew).",
        `Bars: the table's ${Math.round((boot.level ?? 0.95) * 100)}% intervals: one recorded run, over its evaluation seeds (the inverted sign-flip test); two or more, over the runs (t over runs). The contrasts (value of judging, placebo, external) with their intervals are in judge_swap.`,
      ]),
    },
    data: { values },
    facet: { row: { field: "pathway", type: "nominal", title: null }, column: { field: "game", type: "nominal", title: null } },
    spec: {
      width: 150,
      height: 130,
      layer: [
        { mark: { type: "rule", strokeDash: [3, 3], color: "#999" }, encoding: { y: { datum: 0 } } },
        {
          mark: { type: "rule", strokeWidth: 1.5 },
          encoding: { x, y: { ...y, field: "lo" }, y2: { field: "hi" }, color: { field: "model", type: "nominal", title: "model" }, xOffset: { field: "model", type: "nominal" } },
        },
        { mark: { type: "point", filled: true, size: 45, opacity: 1 }, encoding: { x, y, color: { field: "model", type: "nominal", title: "model" }, xOffset: { field: "model", type: "nominal" } } },
      ],
    },
    resolve: { scale: { y: "independent" } },
  } as unknown as TopLevelSpec;
}
