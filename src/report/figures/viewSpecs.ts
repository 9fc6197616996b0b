/**
 * The views' figures (views.md): `views_<game>` (one panel per view, and per model when there are
 * several; pathways as lines with their seed-level bands: the curves figure's layout, curvesSpec) and
 * `cost_gain` (gain against exploration cost, one point per run, a panel per game: gains are in each
 * game's own units).
 */
import type { TopLevelSpec } from "vega-lite";
import type { BootstrapConfig } from "../../analysis/stats/bootstrap.js";
import type { CurveSeries } from "../../analysis/tables/curveTables.js";
import type { CostRunRow, ViewSeries } from "../../analysis/tables/viewTables.js";
import { DEFAULT_THEME } from "./theme.js";
import { countRange, curvesSpec, FIGURE_CONFIG, pathwayScales, wrapLines } from "./specs.js";

function bootText(cfg: BootstrapConfig): string {
  return `${Math.round((cfg.level ?? 0.95) * 100)}% bootstrap intervals, B = ${cfg.B}, seed ${cfg.seed}`;
}

/** One game's view curves: a panel per view (per model and view with several models). */
export function viewsSpec(game: string, series: readonly ViewSeries[], boot: BootstrapConfig): TopLevelSpec {
  const mine = series.filter((s) => s.game === game);
  const models = new Set(mine.map((s) => s.model));
  const label = (s: ViewSeries) => (models.size > 1 ? `${s.model} · ${s.view} view` : `${s.view} view`);
  const asCurves: CurveSeries[] = mine.map((s) => ({
    model: label(s),
    game: s.game,
    pathway: s.pathway,
    points: s.points.map((p) => ({ x: p.x, y: p.y, lo: p.lo, hi: p.hi, n_runs: 1, n_episodes: p.n })),
  }));
  // The views play different numbers of episodes (the replay view re-plays only the first few
  // exploration seeds), so the caption gives each view's n, not one range over all of them.
  const views = [...new Set(mine.map((s) => s.view))];
  const perView = views.map((v) => `${v} ${countRange(mine.filter((s) => s.view === v).flatMap((s) => s.points.map((p) => p.n)))}`).join(", ");
  return curvesSpec(game, asCurves, boot, {
    title: `${game}: score by checkpoint in each evaluation view`,
    lines: () => [
      `eval: strict held-out config (OOD transfer); id: explore config, held-out seeds (ID transfer); replay: explore config, the first exploration seeds re-played (retention). Episodes per point: ${perView}.`,
      `Bands: ${bootText(boot)}, the view's seeds resampled once per resample at every checkpoint.${models.size === 1 ? ` Model: ${[...models][0]}.` : ""}`,
    ],
  });
}

/**
 * Gain (OODG = y_eval(last) - y_eval(0)) against the exploration + consolidation cost of each run.
 * The x axis is dollars when every run with a gain was priced, else millions of tokens the endpoints
 * counted; when no run counted one (built-in models report no usage), the prompt tokens the kit
 * counted itself for every step call (explore_prompt_tokens_counted), and only when those are missing
 * too (logs written before the kit logged its count) the number of calls. The axis and caption say which.
 * The x axis starts at the data, not at zero: runs of one game cost within a few percent of each
 * other, and an axis from zero would stack them in one column.
 */
export function costGainSpec(rows: readonly CostRunRow[], boot: BootstrapConfig, nEpisodes?: string): TopLevelSpec {
  const gained = rows.filter((r) => r.oodg !== null);
  const byUsd = gained.length > 0 && gained.every((r) => r.explore_usd !== null);
  const byTokens = !byUsd && rows.some((r) => r.explore_tokens > 0);
  const byCounted = !byUsd && !byTokens && rows.some((r) => r.explore_prompt_tokens_counted > 0);
  const costOf = (r: CostRunRow): number => (byUsd ? (r.explore_usd as number) : byTokens ? r.explore_tokens / 1e6 : byCounted ? r.explore_prompt_tokens_counted / 1e6 : r.explore_calls);
  const values = gained.map((r) => ({ game: r.game, model: r.model, pathway: r.pathway, cost: costOf(r), gain: r.oodg }));
  const games = [...new Set(values.map((v) => v.game))].sort();
  const xTitle = byUsd ? "explore + consolidate cost (USD)" : byTokens ? "explore + consolidate tokens (M)" : byCounted ? "exploration prompt tokens (M, kit's count)" : "explore + consolidate calls";
  const scales = pathwayScales(values.map((v) => v.pathway));
  const panels = games.map((game) => ({
    title: { text: `${game} (${values.filter((v) => v.game === game).length} runs)`, anchor: "middle", fontSize: 12 },
    width: 200,
    height: 150,
    transform: [{ filter: { field: "game", equal: game } }],
    layer: [
      { mark: { type: "rule", color: DEFAULT_THEME.neutral, strokeDash: [2, 2] }, encoding: { y: { datum: 0 } } },
      {
        mark: { type: "point", filled: true, size: 70, opacity: 1 },
        encoding: {
          x: { field: "cost", type: "quantitative", title: xTitle, scale: { zero: false, nice: true } },
          y: { field: "gain", type: "quantitative", title: "OODG (game units)", scale: { zero: false, nice: true } },
          color: { field: "pathway", type: "nominal", title: "pathway", scale: scales.color },
          shape: { field: "model", type: "nominal", title: "model" },
          tooltip: [{ field: "model" }, { field: "pathway" }, { field: "cost", format: ".3~f" }, { field: "gain", format: ".3~f" }],
        },
      },
    ],
  }));
  const xText = byUsd
    ? "exploration and consolidation dollars up to the last checkpoint (the models file's prices)"
    : byTokens
      ? "exploration and consolidation tokens (in + out, millions) up to the last checkpoint"
      : byCounted
        ? "the prompt tokens of the exploration step calls up to the last checkpoint, counted by the kit's tokenizer (built-in models report no usage; their replies and the memory summaries are not counted; explore_prompt_tokens_counted of cost_runs.csv)"
        : "exploration and consolidation calls up to the last checkpoint (no run counted a token: built-in models report none, and these logs predate the kit's own count; cost_runs.csv)";
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    background: "white",
    config: FIGURE_CONFIG,
    title: {
      text: "Gain against cost: one point per run",
      subtitle: wrapLines([
        `y: OODG = y_eval(last checkpoint) - y_eval(0) in each game's units, each a difference of two means over the run's evaluation episodes${nEpisodes ? ` (n = ${nEpisodes} per checkpoint)` : ""}; its interval is in views.csv (${bootText(boot)}).`,
        `x: ${xText}; the axis starts at the data, not at 0.`,
        `${values.length} run(s) over ${games.length} game(s); the dashed line is no gain.`,
      ]),
    },
    data: { values },
    concat: panels,
    columns: 4,
    resolve: { scale: { y: "independent", x: "independent" } },
  } as unknown as TopLevelSpec;
}
