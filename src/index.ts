/**
 * The kit's library entry (`dist/index.js`): what notebooks and scripts import. Notebooks run under
 * tslab's Node10 resolution, so they import this built file (or `dist/analysis/index.js`) directly.
 *
 * tslab loads it with `require()`: nothing imported statically from here may reach vega (its node
 * build has a top-level await, which `require()` refuses). The renderer is reached through the lazy
 * wrappers of `report/notebooks/figures.ts` and `report/writeReport.ts`; tests/report/notebooks checks the graph.
 */
export * from "./analysis/index.js";
export * from "./logs/schema.js";
export { readDeduped, readMergedRun, type DedupedRun, type MergedRun, type MergedEpisode } from "./logs/mergedRun.js";
export * from "./logs/syntheticRuns.js";
export * from "./logs/synthetic.js";
export { GAMES, getGame, parseGameList } from "./games/registry.js";
export { GAME_NAMES, CONFIG_NAMES } from "./games/types.js";
export type { Game, GameName, EpisodeState, PolicyContext, PolicyDecision } from "./games/types.js";
export { parseResponse } from "./agent/parseResponse.js";
export * from "./report/tables.js";
export * from "./report/entries.js";
export * from "./report/buildReport.js";
export * from "./report/writeReport.js";
export { curvesSpec, trainingSpec, calibrationSpec, couplingSpec, specCaption } from "./report/figures/specs.js";
export { compareCurvesSpec } from "./report/figures/compareSpecs.js";
export { DEFAULT_THEME, parseTheme, loadTheme, applyTheme, type Theme } from "./report/figures/theme.js";
export { FIGURE_SIZES, DEFAULT_FIGURE_OPTIONS, type FigureOptions, type FigureSize } from "./report/figures/printLayout.js";
export { toLatex, paperTable4, latexText } from "./report/latex.js";
export { viewsSpec, costGainSpec } from "./report/figures/viewSpecs.js";
export { successThreshold, isSolved } from "./games/successThreshold.js";
export * from "./report/notebooks/html.js";
export * from "./report/notebooks/settings.js";
export * from "./report/notebooks/figures.js";
export * from "./report/notebooks/display.js";
export * from "./report/notebooks/export.js";
export * from "./report/notebooks/datasetSnapshot.js";
