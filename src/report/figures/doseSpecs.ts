/**
 * The judge dial's figures: the dose-response (x = mean Agree of a judge setting, y = its mean
 * normalised gain, a line per pathway with its band) and the coupling scatter faceted by game, the
 * learners' blocks coloured by judge setting, with a fitted trend line and rho in each facet's title.
 */
import type { TopLevelSpec } from "vega-lite";
import type { BootstrapConfig } from "../../analysis/stats/bootstrap.js";
import { spearman } from "../../analysis/metrics/coupling.js";
import type { BlockRow } from "../../analysis/tables/couplingTables.js";
import type { DoseRow } from "../../analysis/tables/doseResponse.js";
import { canLearn, learnerJudge } from "../../analysis/tables/learnerPool.js";
import { DEFAULT_THEME, sequentialColours } from "./theme.js";
import { BASE, bootText, pathwayScales, short, wrapLines, yScale } from "./specs.js";

/** Two panels (gain_vs_y0, gain_vs_none): a point per judge setting, a line per pathway, bands. */
export function doseResponseSpec(rows: readonly DoseRow[], boot: BootstrapConfig): TopLevelSpec {
  const values = rows.flatMap((r) =>
    (["gain_vs_y0", "gain_vs_none"] as const)
      .filter((g) => r[g].point !== null && r.agree.point !== null)
      .map((g) => ({ gain: g, pathway: r.pathway, band: r.pathway, judge: short(r.judge), x: r.agree.point, y: r[g].point, lo: r[g].lo ?? r[g].point, hi: r[g].hi ?? r[g].point, n: r.n_runs })),
  );
  const scales = pathwayScales(values.map((v) => v.pathway));
  const ns = [...new Set(values.map((v) => v.n))].sort((a, b) => a - b);
  const others = [...new Set(values.map((v) => v.pathway))].filter((p) => p !== "history");
  const panels = (["gain_vs_y0", "gain_vs_none"] as const).map((g) => {
    const vs = values.filter((v) => v.gain === g);
    const y = yScale(vs.flatMap((v) => [v.y, v.lo, v.hi, 0]));
    const x = { field: "x", type: "quantitative", title: "Agree (mean over the setting's runs)", scale: { zero: false, nice: true } };
    const yEnc = { field: "y", type: "quantitative", title: `${g} (/ score spread)`, scale: y.scale };
    return {
      title: { text: g === "gain_vs_y0" ? "gain over checkpoint 0" : "gain over the none pathway", anchor: "middle", fontSize: 12 },
      width: 300,
      height: 210,
      transform: [{ filter: { field: "gain", equal: g } }],
      layer: [
        { mark: { type: "rule", strokeDash: [3, 3], color: DEFAULT_THEME.neutral }, encoding: { y: { datum: 0 } } },
        { mark: { type: "area", opacity: 0.18 }, encoding: { x, y: { ...yEnc, field: "lo" }, y2: { field: "hi" }, fill: { field: "band", type: "nominal", scale: scales.color, legend: null } } },
        {
          mark: { type: "line", strokeWidth: 2 },
          encoding: {
            x,
            y: yEnc,
            color: { field: "pathway", type: "nominal", scale: scales.color, title: "pathway" },
            strokeDash: { field: "pathway", type: "nominal", scale: scales.strokeDash, title: "pathway" },
          },
        },
        {
          mark: { type: "point", filled: true, size: 50, opacity: 1 },
          encoding: {
            x,
            y: yEnc,
            color: { field: "pathway", type: "nominal", scale: scales.color, title: "pathway" },
            shape: { field: "pathway", type: "nominal", scale: scales.shape, title: "pathway" },
          },
        },
        // The judge of each point, History's above its point and the others' below: the two lines run
        // close together, and one label row over both overlapped ("judge 0.5" over "judge 0.5").
        {
          transform: [{ filter: { field: "pathway", equal: "history" } }],
          mark: { type: "text", dy: -10, fontSize: 10, color: DEFAULT_THEME.palette[0] },
          encoding: { x, y: yEnc, text: { field: "judge" } },
        },
        {
          transform: [{ filter: { field: "pathway", oneOf: others } }],
          mark: { type: "text", dy: 13, fontSize: 10, color: DEFAULT_THEME.palette[1] },
          encoding: { x, y: yEnc, text: { field: "judge" } },
        },
      ],
    };
  });
  return {
    ...BASE,
    title: {
      text: "The judge dial: gain against judging quality (builtin:learner, an instrument)",
      subtitle: wrapLines([
        `Each point: one judge setting (its label) and pathway, the mean over its runs (n = ${ns.join("/")} runs: games x run seeds); x its mean Agree, y its mean gain divided by the game's score spread.`,
        `Bands: ${bootText(boot)}, the setting's runs resampled. judge_dose_response_r gives r(Agree, gain) within games with its interval.`,
      ]),
    },
    data: { values },
    hconcat: panels,
    resolve: { scale: { y: "independent" } },
  } as unknown as TopLevelSpec;
}

/** A judge setting's label: `judge 0.25` for the learner family, the model's name otherwise. */
function settingOf(model: string): string {
  const j = learnerJudge(model);
  return j === null ? model : `judge ${j}`;
}

/**
 * The coupling scatter over the models that can learn (learnerPool.ts), a facet per game: block
 * agreement A_t against improvement g_t, coloured by judge setting (or model), a least-squares line,
 * and Spearman rho of the facet's blocks in its title. The non-learners' blocks are not drawn (their
 * rows in the coupling table are the null).
 */
export function couplingFacetSpec(blocks: readonly BlockRow[], boot: BootstrapConfig): TopLevelSpec {
  const pooled = blocks.filter((b) => canLearn(b.model));
  const left = new Set(blocks.filter((b) => !canLearn(b.model)).map((b) => b.model));
  const games = [...new Set(pooled.map((b) => b.game))].sort();
  const values = pooled.map((b) => ({ game: b.game, setting: settingOf(b.model), pathway: b.pathway, A: b.A, g: b.g }));
  const settings = [...new Set(values.map((v) => v.setting))].sort();
  const g = yScale(values.map((v) => v.g));
  const panels = games.map((game) => {
    const vs = values.filter((v) => v.game === game);
    const rho = spearman(
      vs.map((v) => v.A),
      vs.map((v) => v.g),
    );
    const runs = new Set(pooled.filter((b) => b.game === game).map((b) => b.run_id)).size;
    const x = { field: "A", type: "quantitative", title: "A_t (block Agree)", scale: { domain: [0, 1] } };
    // "~g": a facet whose g_t is constant gets one tick, which vega would print as "1.000000".
    const y = { field: "g", type: "quantitative", title: "g_t (normalised improvement)", scale: g.scale, axis: { format: "~g" } };
    return {
      title: { text: `${game}: rho = ${rho === null ? "n/a" : short(rho)} (${vs.length} blocks, ${runs} runs)`, anchor: "middle", fontSize: 11 },
      width: 190,
      height: 150,
      transform: [{ filter: { field: "game", equal: game } }],
      layer: [
        {
          mark: { type: "point", filled: true, opacity: 0.7, size: 30 },
          encoding: {
            x,
            y,
            color: { field: "setting", type: "nominal", title: "judge setting / model", scale: { domain: settings, range: sequentialColours(settings.length) } },
            shape: { field: "pathway", type: "nominal", title: "pathway" },
          },
        },
        {
          transform: [{ regression: "g", on: "A" }],
          mark: { type: "line", color: DEFAULT_THEME.palette[3], strokeWidth: 1.5, clip: true },
          encoding: { x: { field: "A", type: "quantitative" }, y: { field: "g", type: "quantitative" } },
        },
      ],
    };
  });
  return {
    ...BASE,
    title: {
      text: "Coupling over the models that can learn: block agreement A_t vs improvement g_t",
      subtitle: [
        `n = ${values.length} blocks (one point each: exploration between two checkpoints) from ${new Set(pooled.map((b) => b.run_id)).size} run(s); red: least-squares line; rho: Spearman of the facet's blocks.`,
        `Table 6 (coupling) gives rho with intervals (${bootText(boot)}).${left.size > 0 ? ` Not drawn (the null rows): ${[...left].sort().join(", ")}.` : ""}`,
      ],
    },
    data: { values },
    ...(panels.length > 0 ? { concat: panels, columns: 4 } : { mark: "text", encoding: { text: { value: "no blocks of a model that can learn in this data set" } } }),
  } as unknown as TopLevelSpec;
}
