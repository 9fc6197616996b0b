/**
 * A figure rendered for print: lays the spec out for its size (printLayout.ts), applies the theme
 * (theme.ts), renders, measures the SVG, and lays it out again until it fills the size's width
 * without passing it. Then the SVG says its size in points, and the PNG (300 dpi at that size) and
 * the PDF (vector, fonts embedded) are made from it. Loaded lazily, like render.ts (vega).
 */
import type { TopLevelSpec } from "vega-lite";
import { renderSvg, svgToPng } from "./render.js";
import { svgToPdf } from "./pdf.js";
import { applyTheme } from "./theme.js";
import { NO_TUNE, printLayout, sizeWidthPt, type FigureOptions, type LayoutTune } from "./printLayout.js";

/** The dots per inch of a figure's PNG at its print size. */
export const PNG_DPI = 300;

export interface PrintedFigure {
  /** The final vega-lite spec (laid out and themed): what `<name>.vl.json` holds. */
  spec: TopLevelSpec;
  /** The SVG, its width and height in points (1 SVG pixel = 1 pt). */
  svg: string;
  widthPt: number;
  heightPt: number;
  /** The same SVG sized in pixels (what resvg rasterises: it reads `pt` sizes as 4/3 px). */
  pixelSvg: string;
  /** Set when the figure could not be laid out within its size's width (then it prints wider). */
  overflow: string | null;
}

/** The root `<svg>` element's width and height in pixels (vega writes plain numbers). */
export function svgSize(svg: string): { width: number; height: number } {
  const root = /<svg\b[^>]*>/.exec(svg)?.[0] ?? "";
  const w = /\swidth="([\d.]+)(?:pt|px)?"/.exec(root);
  const h = /\sheight="([\d.]+)(?:pt|px)?"/.exec(root);
  return { width: w ? Number(w[1]) : NaN, height: h ? Number(h[1]) : NaN };
}

/** The SVG with its root's width and height in points (the viewBox keeps the pixel grid). */
export function inPoints(svg: string): string {
  return svg.replace(/<svg\b[^>]*>/, (root) => root.replace(/\swidth="([\d.]+)"/, ' width="$1pt"').replace(/\sheight="([\d.]+)"/, ' height="$1pt"'));
}

/**
 * The SVG without the characters XML 1.0 forbids (C0 controls but tab and line ends): a model name
 * from a log may hold one, vega writes it into a label as is, and resvg and svg-to-pdfkit refuse the
 * whole file. Each becomes U+FFFD, so the label still shows that a character was there.
 */
export function xmlSafe(svg: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 forbids, replaced so the renderers accept the file
  return svg.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "\ufffd");
}

/** Lays out, themes and renders `spec` for print (see the module note). */
export async function renderForPrint(spec: TopLevelSpec, opts: FigureOptions): Promise<PrintedFigure> {
  const target = sizeWidthPt(opts.size);
  let tune: LayoutTune = NO_TUNE;
  let laid = applyTheme(printLayout(spec, opts, tune), opts.theme);
  let svg = await renderSvg(laid);
  // Each pass moves the panels by the measured miss; a grid still too wide after two passes (its
  // panels at their narrowest: long titles or legends) loses a panel a row and starts again.
  let passesAtColumns = 0;
  for (let pass = 0; pass < 6; pass++) {
    const { width } = svgSize(svg);
    if (width <= target && width >= target * 0.94) break;
    const cols = Math.max(1, Number((laid as { columns?: number }).columns ?? 1));
    if (passesAtColumns >= 2 && width > target && cols > 1) {
      tune = { ...tune, columns: cols - 1, panelDelta: 0 };
      passesAtColumns = 0;
    } else {
      tune = { ...tune, panelDelta: tune.panelDelta + (target - width) / cols - (width > target ? 2 : 0) };
      passesAtColumns++;
    }
    laid = applyTheme(printLayout(spec, opts, tune), opts.theme);
    svg = await renderSvg(laid);
  }
  svg = xmlSafe(svg);
  const { width, height } = svgSize(svg);
  const overflow = width > target + 0.5 ? `${Math.round(width)} pt wide, wider than the ${opts.size} size's ${target} pt (long labels): it prints at that width` : null;
  return { spec: laid, svg: inPoints(svg), pixelSvg: svg, widthPt: width, heightPt: height, overflow };
}

/** The PNG of a printed figure: 300 dots per inch of its print size. */
export function printedPng(fig: PrintedFigure): Buffer {
  return svgToPng(fig.pixelSvg, PNG_DPI / 72);
}

/** The PDF of a printed figure, page = the figure's print size. */
export function printedPdf(fig: PrintedFigure, title = ""): Promise<Buffer> {
  // The pixel SVG: svg-to-pdfkit reads a `pt` root size as 4/3 of the page and would crop the figure.
  return svgToPdf(fig.pixelSvg, fig.widthPt, fig.heightPt, title);
}

/**
 * An edited `<name>.vl.json` rendered as it is (no new layout: the edit is the user's), with a theme
 * applied when one is given: the SVG in points, ready for `printedPng` and `printedPdf`.
 */
export async function renderAsIs(spec: TopLevelSpec, theme?: FigureOptions["theme"]): Promise<PrintedFigure> {
  const final = theme ? applyTheme(spec, theme) : spec;
  const svg = xmlSafe(await renderSvg(final));
  const { width, height } = svgSize(svg);
  return { spec: final, svg: inPoints(svg), pixelSvg: svg, widthPt: width, heightPt: height, overflow: null };
}
