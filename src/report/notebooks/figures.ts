/**
 * The headless renderer (`src/report/figures/render.ts`) behind lazy imports, for the library entry: vega's
 * node build has a top-level await, so a module that imports it statically cannot be `require()`d,
 * and tslab loads the kit into a notebook with `require()`.
 */
import type { TopLevelSpec } from "vega-lite";

/** Renders any vega-lite spec to SVG text (vega-lite -> vega -> SVG; no browser, no canvas). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  return (await import("../figures/render.js")).renderSvg(spec);
}

/** Rasterises SVG text to PNG bytes at `scale` times its size (resvg, system fonts). */
export async function renderPng(svg: string, scale = 2): Promise<Buffer> {
  return (await import("../figures/render.js")).svgToPng(svg, scale);
}
