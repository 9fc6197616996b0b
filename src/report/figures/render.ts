/**
 * Headless rendering of Vega-Lite specs: compile (vega-lite) -> parse and render to SVG (vega, no
 * canvas, no browser) -> PNG (resvg, prebuilt binary, system fonts). Nothing is downloaded.
 * Within a `reproduce`, both steps go through its render cache (renderCache.ts).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Resvg } from "@resvg/resvg-js";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { cachedPng, cachedSvg } from "./renderCache.js";
import { xmlSafeValues } from "../../util/escape/xml.js";

/** The render in progress: renders run one at a time (see renderSvg). */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Renders a Vega-Lite spec to an SVG string. The bytes depend on the spec alone: vega numbers the
 * SVG's clip paths and gradients (`clip1`, `gradient1`, ...) from counters global to the process, so
 * each render starts them afresh, and renders run one at a time so no other render moves them midway.
 * Without this, a clipped mark (the curves' bands) got a different id in a notebook than in `report`
 * depending on what had been drawn before in the same process.
 */
export function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Labels from the logs (model names, training labels) may hold control characters, which XML
  // cannot carry: they are drawn as visible escapes (util/escape/xml.ts).
  return cachedSvg(xmlSafeValues(spec), renderSvgNow);
}

function renderSvgNow(spec: TopLevelSpec): Promise<string> {
  const run = queue.then(async () => {
    const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
    try {
      await view.runAsync();
      vega.resetSVGDefIds();
      return await view.toSVG();
    } finally {
      view.finalize();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

/** Rasterises an SVG to PNG at `scale` times its size (2 by default, for readable text). */
export function svgToPng(svg: string, scale = 2): Buffer {
  return cachedPng(svg, scale, svgToPngNow);
}

function svgToPngNow(svg: string, scale: number): Buffer {
  const r = new Resvg(svg, {
    fitTo: { mode: "zoom", value: scale },
    background: "white",
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  });
  return r.render().asPng();
}

/** Writes `<dir>/<name>.svg` and `<dir>/<name>.png`; returns the two paths. */
export async function writeFigure(spec: TopLevelSpec, dir: string, name: string): Promise<string[]> {
  const svg = await renderSvg(spec);
  const svgPath = join(dir, `${name}.svg`);
  const pngPath = join(dir, `${name}.png`);
  await writeFile(svgPath, svg);
  await writeFile(pngPath, svgToPng(svg));
  return [svgPath, pngPath];
}

/** A file-name-safe form of a label (game or model names may hold ':' or '/'). */
export function fileSafe(label: string): string {
  return label.replace(/[^A-Za-z0-9._-]+/g, "_");
}
