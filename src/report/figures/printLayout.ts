/**
 * Print layout: a figure's vega-lite spec laid out for a page width, with text of a given size in
 * points. Pure (spec in, spec out); the render (printRender.ts) measures the result and adjusts.
 *
 * The unit is the point: the layout makes one SVG pixel print as one point, so a 7 px font in the
 * SVG is 7 pt on paper. The SVG's `width`/`height` say so (`<w>pt`), the PDF page is that size, and
 * the PNG is drawn at 300 dpi of it. A figure that still comes out wider than its size (long labels)
 * is scaled down to fit, and its fonts grown first by the same factor (printRender.ts), so text is
 * never under 7 pt at print size.
 *
 * What the layout changes, and nothing else: the figure's title and caption go (the caption is
 * written apart, captions.ts) unless the caption is asked for in the figure; every panel gets the
 * width that fills the size with at most `maxColumns` panels a row; axis, legend, panel-title and
 * mark-text fonts get the size's (or the theme's) points; long axis and panel titles wrap to their
 * panel; the legend moves under the panels where the width is short.
 */
import type { TopLevelSpec } from "vega-lite";
import { DEFAULT_THEME, type FontSizes, type Theme } from "./theme.js";
import { wrapLines } from "./specs.js";

/** The print sizes: a journal column, a full page width, a 16:9 slide. */
export const FIGURE_SIZES = {
  column: { widthIn: 3.3, maxColumns: 2, legend: "bottom", aspect: 0.75, font: { tick: 7, axisTitle: 7, legend: 7, panelTitle: 8, note: 7, caption: 7 } },
  page: { widthIn: 7, maxColumns: 3, legend: "bottom", aspect: 0.68, font: { tick: 8, axisTitle: 8, legend: 8, panelTitle: 9, note: 7.5, caption: 8 } },
  slide: { widthIn: 13.3, maxColumns: 4, legend: "right", aspect: 0.6, font: { tick: 12, axisTitle: 13, legend: 12, panelTitle: 14, note: 11, caption: 12 } },
} as const satisfies Record<string, { widthIn: number; maxColumns: number; legend: "bottom" | "right"; aspect: number; font: FontSizes }>;

export type FigureSize = keyof typeof FIGURE_SIZES;
export const FIGURE_SIZE_NAMES = Object.keys(FIGURE_SIZES) as FigureSize[];

/** What `report` and the notebooks use when no size is asked for. */
export const DEFAULT_FIGURE_SIZE: FigureSize = "page";

/** How a figure is written: its size, theme, and whether its caption is drawn in it. */
export interface FigureOptions {
  size: FigureSize;
  theme: Theme;
  /** Draw the title and caption into the image (the screen look); default: the plot only. */
  captionsInFigure: boolean;
}

export const DEFAULT_FIGURE_OPTIONS: FigureOptions = { size: DEFAULT_FIGURE_SIZE, theme: DEFAULT_THEME, captionsInFigure: false };

/** The width of a size in points (72 a inch). */
export function sizeWidthPt(size: FigureSize): number {
  return Math.round(FIGURE_SIZES[size].widthIn * 72);
}

/** The font sizes of a size under a theme (the theme's keys win), each times `grow` (>= 1). */
export function fontsFor(size: FigureSize, theme: Theme, grow = 1): FontSizes {
  const base: FontSizes = { ...FIGURE_SIZES[size].font, ...theme.fontSize };
  const out = {} as FontSizes;
  for (const k of Object.keys(base) as (keyof FontSizes)[]) out[k] = Number((base[k] * grow).toFixed(2));
  return out;
}

/** The knobs the render adjusts between passes. */
export interface LayoutTune {
  /** Points added to (or taken from) every panel's width after measuring the last pass. */
  panelDelta: number;
  /** Font growth for a figure that must be scaled down to fit (>= 1). */
  grow: number;
  /** Panels a row (null: the size's). */
  columns: number | null;
}

export const NO_TUNE: LayoutTune = { panelDelta: 0, grow: 1, columns: null };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** Roughly how wide a text is at `pt` points (DejaVu Sans averages about 0.58 em a character). */
function charsIn(widthPt: number, pt: number): number {
  return Math.max(8, Math.floor(widthPt / (pt * 0.58)));
}

/**
 * Lines of at most `width` characters, cut at spaces, and inside a longer word after `:`, `?`, `&`,
 * `=`, `/`, `_` or `-` (model names: `builtin:learner?judge=0.25`), else anywhere.
 */
export function wrapWords(lines: readonly string[], width: number): string[] {
  const out: string[] = [];
  for (const line of wrapLines(lines, width)) {
    let rest = line;
    while (rest.length > width) {
      const head = rest.slice(0, width);
      const cut = Math.max(head.lastIndexOf(" "), ...[":", "?", "&", "=", "/", "_", "-"].map((c) => head.lastIndexOf(c)));
      const at = cut > 0 ? cut + 1 : width;
      out.push(rest.slice(0, at).trimEnd());
      rest = rest.slice(at).trimStart();
    }
    out.push(rest);
  }
  return out;
}

/** A title string wrapped to a width (an array of lines when it needs more than one). */
function wrapTitle(t: unknown, widthPt: number, pt: number): unknown {
  if (typeof t === "string") {
    const lines = wrapWords([t], charsIn(widthPt, pt));
    return lines.length > 1 ? lines : t;
  }
  if (Array.isArray(t) && t.every((x) => typeof x === "string")) return wrapWords(t as string[], charsIn(widthPt, pt));
  return t;
}

/** The fields that get a legend (nominal colour, shape, dash, size channels without `legend: null`), with their longest label. */
function legendFields(spec: Obj): Map<string, number> {
  const fields = new Map<string, number>();
  const values = (isObj(spec.data) && Array.isArray(spec.data.values) ? spec.data.values : []) as Obj[];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isObj(v)) return;
    if (isObj(v.encoding)) {
      for (const c of ["color", "fill", "stroke", "shape", "strokeDash", "size"]) {
        const def = v.encoding[c];
        if (isObj(def) && typeof def.field === "string" && def.legend !== null && !fields.has(def.field)) {
          const longest = Math.max(String(def.title ?? def.field).length, ...values.map((r) => String(r[def.field as string] ?? "").length));
          fields.set(def.field, longest);
        }
      }
    }
    for (const [k, x] of Object.entries(v)) if (k !== "data" && k !== "encoding") walk(x);
  };
  walk(spec);
  return fields;
}

/** An x or y channel's title (or its axis' title) wrapped to `room` points. */
function wrapChannel(def: unknown, room: number, pt: number): unknown {
  if (!isObj(def)) return def;
  const out: Obj = { ...def };
  if (def.title !== undefined) out.title = wrapTitle(def.title, room, pt);
  if (isObj(def.axis) && def.axis.title !== undefined) out.axis = { ...def.axis, title: wrapTitle(def.axis.title, room, pt) };
  return out;
}

/** Sets fonts on panel titles and text marks, and wraps axis and panel titles, everywhere in a view. */
function restyleView(view: Obj, f: FontSizes, panelW: number, panelH: number): Obj {
  // Marker areas shrink with the panel (a marker's bounds count in the layout: a 400 px^2 bubble at
  // the edge of a 70 pt panel widened the grid past the page).
  const origW = typeof view.width === "number" ? view.width : 220;
  const area = Math.min(1, Math.max(0.2, (panelW / origW) ** 2));
  const shrink = (x: unknown): unknown => (typeof x === "number" ? Math.round(x * area * 10) / 10 : Array.isArray(x) ? x.map(shrink) : x);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isObj(v)) return v;
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "data") out[k] = x;
      else if (k === "title" && isObj(x) && "text" in x) {
        // A panel's own title (model or game) and its note.
        out[k] = {
          ...x,
          text: wrapTitle(x.text, panelW, f.panelTitle),
          ...(x.subtitle !== undefined ? { subtitle: wrapTitle(x.subtitle, panelW, f.note) } : {}),
          fontSize: f.panelTitle,
          subtitleFontSize: f.note,
        };
      } else if (k === "mark" && isObj(x) && x.type === "text") out[k] = { ...x, fontSize: f.note };
      else if (k === "mark" && isObj(x) && typeof x.size === "number") out[k] = { ...x, size: shrink(x.size) };
      else if (k === "encoding" && isObj(x)) {
        const enc: Obj = {};
        for (const [c, def] of Object.entries(x)) {
          if (c === "size" && isObj(def) && isObj(def.scale) && Array.isArray(def.scale.range)) enc[c] = { ...def, scale: { ...def.scale, range: shrink(def.scale.range) } };
          else enc[c] = c === "x" || c === "x2" ? wrapChannel(def, panelW, f.axisTitle) : c === "y" || c === "y2" ? wrapChannel(def, panelH, f.axisTitle) : def;
        }
        out[k] = enc;
      } else out[k] = walk(x);
    }
    return out;
  };
  return walk(view) as Obj;
}

/**
 * The spec laid out for print: see the module note. `tune` comes from the render's measurement of
 * the previous pass (none on the first).
 */
export function printLayout(spec: TopLevelSpec, opts: FigureOptions, tune: LayoutTune = NO_TUNE): TopLevelSpec {
  const s = structuredClone(spec) as unknown as Obj;
  const size = FIGURE_SIZES[opts.size];
  const f = fontsFor(opts.size, opts.theme, tune.grow);
  const target = sizeWidthPt(opts.size);
  // Side-by-side panels become a wrapped grid, so a column can hold them one under another.
  if (Array.isArray(s.hconcat)) {
    s.concat = s.hconcat;
    s.columns = s.hconcat.length;
    delete s.hconcat;
  }
  const panels = Array.isArray(s.concat) ? (s.concat as Obj[]) : null;
  const n = panels?.length ?? 1;
  const cols = Math.max(1, Math.min(n, tune.columns ?? size.maxColumns, typeof s.columns === "number" ? s.columns : n));
  const legendRight = size.legend === "right";
  // Room each panel's y axis takes (tick labels + title) and the legend's, in points.
  const axisRoom = f.tick * 3.4 + f.axisTitle * 1.5 + 8;
  const legendRoom = legendRight ? 8 * f.legend + 30 : 0;
  const spacing = Math.round(f.tick * 1.4);
  const panelW = Math.max(60, Math.floor((target - legendRoom - cols * axisRoom - (cols - 1) * spacing) / cols + tune.panelDelta));
  const panelH = Math.max(55, Math.round(panelW * size.aspect));

  if (panels) {
    s.concat = panels.map((p) => ({ ...restyleView(p, f, panelW, panelH), width: panelW, height: panelH }));
    s.columns = cols;
  } else {
    Object.assign(s, restyleView(s, f, panelW, panelH), { width: panelW, height: panelH });
  }

  const title = s.title;
  if (!opts.captionsInFigure) delete s.title;
  else if (isObj(title)) {
    s.title = {
      ...title,
      text: wrapTitle(title.text, target, f.caption + 1),
      subtitle: wrapTitle(Array.isArray(title.subtitle) ? (title.subtitle as string[]).join(" ") : title.subtitle, target, f.caption),
    };
  }

  const config = isObj(s.config) ? s.config : {};
  // Legends sit side by side under the panels: columns so that all of them fit the width together,
  // each label cut at its share of the width (vega ends a cut label with an ellipsis).
  const legends = [...legendFields(s).values()];
  const labelLimit = Math.round(Math.max(60, target / Math.max(1, legends.length) - 3 * f.legend));
  const entryW = legends.map((chars) => Math.min(labelLimit, chars * f.legend * 0.58) + 2.5 * f.legend + 8);
  const legendColumns = Math.max(
    1,
    Math.floor(
      (target - 10 * legends.length) /
        Math.max(
          1,
          entryW.reduce((a, b) => a + b, 0),
        ),
    ),
  );
  s.config = {
    ...config,
    font: `${opts.theme.font}, DejaVu Sans, sans-serif`,
    axis: { ...(isObj(config.axis) ? config.axis : {}), labelFontSize: f.tick, titleFontSize: f.axisTitle, titlePadding: 3, labelPadding: 2, tickSize: 3 },
    legend: {
      ...(isObj(config.legend) ? config.legend : {}),
      labelFontSize: f.legend,
      titleFontSize: f.legend,
      labelLimit,
      orient: size.legend,
      ...(legendRight ? {} : { direction: "horizontal", columns: legendColumns, symbolSize: f.legend * 8 }),
    },
    header: { labelFontSize: f.panelTitle, titleFontSize: f.panelTitle },
    title: { ...(isObj(config.title) ? config.title : {}), fontSize: f.caption + 1, subtitleFontSize: f.caption },
    text: { fontSize: f.note },
    concat: { spacing },
    padding: 4,
  };
  return s as unknown as TopLevelSpec;
}
