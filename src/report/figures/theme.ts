/**
 * Figure themes: the one place a figure's colours, fonts, line widths and band opacity come from.
 *
 * The spec builders (specs.ts, doseSpecs.ts, viewSpecs.ts) write the DEFAULT theme's colours, by role:
 * `palette[i]` for the i-th categorical colour (History is palette[0], Memory palette[1], ...),
 * `sequential[i]` for ordered settings, `neutral` for the control and the reference lines, `frame`
 * and `text` for the panel frame and notes. `applyTheme` replaces each default colour by the theme's
 * colour of the same role, so a theme file restyles every figure without touching a builder; a test
 * checks that every colour a builder writes is one of the default theme's (a colour outside it would
 * not follow a theme). Marker shapes and dashes are not theme keys: with the colours they keep a
 * figure readable in grey and to colour-blind readers, whatever the palette.
 *
 * A theme file (`--theme theme.json`) gives any subset of the keys; the rest keep the default. It is
 * validated with zod, and an error names the key and the fix. Font sizes are in points at print size
 * and at least 7 (the size journals ask for): a theme cannot make a figure's text smaller than that.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../../util/errors.js";
import { formatIssues } from "../../util/zodIssues.js";

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const color = z.string().regex(HEX, "a colour is a hex string like '#1f77b4'");
/** The smallest text at print size, in points. */
export const MIN_FONT_PT = 7;
const fontPt = z.number().min(MIN_FONT_PT, `a font size is in points at print size and at least ${MIN_FONT_PT}`).max(72);

/** Font sizes in points at print size, by kind of text. */
export const FontSizes = z
  .object({
    /** Tick labels of every axis. */
    tick: fontPt,
    /** Axis titles. */
    axisTitle: fontPt,
    /** Legend labels and titles. */
    legend: fontPt,
    /** A panel's title (the model or game it shows). */
    panelTitle: fontPt,
    /** A panel's note under its title ("bands clipped at the axis") and labels drawn on marks. */
    note: fontPt,
    /** The figure's title and caption, drawn only with --captions-in-figure. */
    caption: fontPt,
  })
  .strict();
export type FontSizes = z.infer<typeof FontSizes>;

/** A whole theme (every key present): what `applyTheme` and the print layout read. */
export const Theme = z
  .object({
    /** Font family of every text (the PDF embeds DejaVu Sans for it when the family is not found). */
    font: z.string().min(1).max(200),
    /** Per-size font sizes; a size left out gets the size's default (printLayout.ts). */
    fontSize: FontSizes.partial(),
    /** Categorical colours, in order: pathways (history, memory, others), models, games. At least 4. */
    palette: z.array(color).min(4).max(20),
    /** Colours of an ordered setting (the judge dial's judge settings), low to high. At least 2. */
    sequential: z.array(color).min(2).max(20),
    /** The control (`none`) and reference lines (no gain, perfect calibration). */
    neutral: color,
    /** The panel frame. */
    frame: color,
    /** Notes and captions drawn in the figure. */
    text: color,
    /** Width of the main lines, in points (thin lines keep their ratio to it). */
    lineWidth: z.number().positive().max(10),
    /** Opacity of interval bands (0 draws none). */
    bandOpacity: z.number().min(0).max(1),
  })
  .strict();
export type Theme = z.infer<typeof Theme>;

/** A theme file: any subset of the keys. */
export const ThemeFile = Theme.partial().strict();
export type ThemeFile = z.infer<typeof ThemeFile>;

/**
 * The default theme: the colours the figures always had (Tableau-like, and told apart by dash and
 * marker as well), DejaVu Sans (shipped with the kit, so the PDF embeds the same font everywhere).
 */
export const DEFAULT_THEME: Theme = {
  font: "DejaVu Sans",
  fontSize: {},
  palette: ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d"],
  // viridis, ten stops: readable in grey and to colour-blind readers.
  sequential: ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"],
  neutral: "#7f7f7f",
  frame: "#dddddd",
  text: "#444444",
  lineWidth: 2,
  bandOpacity: 0.18,
};

/**
 * `n` colours along the default sequential ramp, evenly spaced from its first to its last stop (a
 * ramp of more settings than stops repeats stops). The builders use it for ordered settings.
 */
export function sequentialColours(n: number, theme: Theme = DEFAULT_THEME): string[] {
  const stops = theme.sequential;
  if (n <= 1) return stops.slice(0, Math.max(0, n));
  return Array.from({ length: n }, (_, i) => stops[Math.round((i / (n - 1)) * (stops.length - 1))]!);
}

/** The theme a file's keys give over the default. */
export function mergeTheme(file: ThemeFile, base: Theme = DEFAULT_THEME): Theme {
  return { ...base, ...file, fontSize: { ...base.fontSize, ...(file.fontSize ?? {}) } };
}

/** Parses a theme file's JSON text; a ConfigError names the key and what it must be. */
export function parseTheme(text: string, where = "theme"): Theme {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${where}: not JSON (${(e as Error).message.split("\n")[0]}); a theme is a JSON object with keys ${Object.keys(Theme.shape).join(", ")}`);
  }
  const parsed = ThemeFile.safeParse(raw);
  if (!parsed.success)
    throw new ConfigError(
      `${where}: ${formatIssues(parsed.error, { style: "brackets" })} (valid keys: ${Object.keys(Theme.shape).join(", ")}; fontSize keys: ${Object.keys(FontSizes.shape).join(", ")})`,
    );
  return mergeTheme(parsed.data);
}

/** Reads and parses a theme file. */
export function loadTheme(path: string): Theme {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`--theme ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); give a JSON theme file`);
  }
  return parseTheme(text, `--theme ${path}`);
}

/** Colours the builders write that are not in the palette lists, by the role they stand for. */
const DEFAULT_ROLES: Record<string, (t: Theme) => string> = {
  "#7f7f7f": (t) => t.neutral,
  "#888": (t) => t.neutral,
  "#888888": (t) => t.neutral,
  "#999": (t) => t.neutral,
  "#999999": (t) => t.neutral,
  "#ddd": (t) => t.frame,
  "#dddddd": (t) => t.frame,
  "#444": (t) => t.text,
  "#444444": (t) => t.text,
  white: () => "white",
};

/**
 * Every colour the default theme lets a builder write (lower case): the palette, the sequential
 * colours, and the role colours. A test checks each figure's spec against it.
 */
export function defaultColours(): Set<string> {
  return new Set([...DEFAULT_THEME.palette, ...DEFAULT_THEME.sequential, ...Object.keys(DEFAULT_ROLES)].map((c) => c.toLowerCase()));
}

/** The theme's colour for a default colour (by role), or null for a string that is not one. */
function themedColour(value: string, theme: Theme): string | null {
  const v = value.toLowerCase();
  const i = DEFAULT_THEME.palette.indexOf(v);
  if (i >= 0) return theme.palette[i % theme.palette.length]!;
  const j = DEFAULT_THEME.sequential.indexOf(v);
  if (j >= 0) {
    // Same position along the ramp, whatever the theme's number of stops.
    const at = Math.round((j / (DEFAULT_THEME.sequential.length - 1)) * (theme.sequential.length - 1));
    return theme.sequential[at]!;
  }
  const role = DEFAULT_ROLES[v];
  return role ? role(theme) : null;
}

/** Keys whose string values are colours in a vega-lite spec. */
const COLOUR_KEYS = new Set(["color", "fill", "stroke", "subtitleColor", "titleColor", "labelColor", "domainColor", "tickColor", "gridColor", "background"]);

/**
 * The spec with the theme's colours, line widths and band opacity: default colours (in colour keys
 * and in scale ranges) replaced by role, `strokeWidth` scaled by lineWidth / 2 (the default main
 * line), the bands' 0.18 opacity replaced by bandOpacity. The input is not changed.
 */
export function applyTheme<S>(spec: S, theme: Theme): S {
  const widthScale = theme.lineWidth / DEFAULT_THEME.lineWidth;
  const walk = (v: unknown, key: string | null, inRange: boolean): unknown => {
    if (typeof v === "string") {
      if (inRange || (key !== null && COLOUR_KEYS.has(key))) return themedColour(v, theme) ?? v;
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key, inRange));
    if (v === null || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      if (k === "data")
        out[k] = x; // data values are never colours
      else if (k === "strokeWidth" && typeof x === "number") out[k] = Number((x * widthScale).toFixed(3));
      else if (k === "opacity" && x === DEFAULT_THEME.bandOpacity && o.type === "area") out[k] = theme.bandOpacity;
      else out[k] = walk(x, k, inRange || k === "range" || k === "category");
    }
    return out;
  };
  return walk(spec, null, false) as S;
}
