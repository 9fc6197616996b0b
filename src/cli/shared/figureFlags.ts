/**
 * The figure flags `report` and `figure` share: `--figure-size column|page|slide`, `--theme FILE`,
 * `--captions-in-figure`, read into the options every figure is written with (printLayout.ts).
 */
import { UsageError } from "./args.js";
import { DEFAULT_FIGURE_SIZE, FIGURE_SIZE_NAMES, FIGURE_SIZES, type FigureOptions, type FigureSize } from "../../report/figures/printLayout.js";
import { DEFAULT_THEME, loadTheme } from "../../report/figures/theme.js";
import type { OptionTable } from "../../util/options.js";

/** A flag's value among `choices` (its default when absent); a UsageError names the flag and the choices. */
export function oneOf<const T extends string>(flag: string, raw: string | undefined, choices: readonly T[], dflt: T): T {
  if (raw === undefined) return dflt;
  const v = raw.trim() as T;
  if (!choices.includes(v)) throw new UsageError(`${flag} must be one of ${choices.join(", ")} (got '${raw}')`);
  return v;
}

/** The figure rows `report` offers (`figure` reads the same flags): the values as typed, read by figureOptionsFromFlags. */
export const FIGURE_OPTIONS: OptionTable<{ figureSize: string | undefined; theme: string | undefined; captionsInFigure: boolean }> = {
  figureSize: {
    name: "figure-size",
    kind: { type: "text", shown: FIGURE_SIZE_NAMES.join("|"), parse: (v) => v },
    default: undefined,
    help: `lay every figure out for ${FIGURE_SIZE_NAMES.map((n) => `${n} (${FIGURE_SIZES[n].widthIn} in${n === DEFAULT_FIGURE_SIZE ? "; the default" : ""})`).join(", ")} width,\n                      text >= 7 pt at that size; each figure is written as PDF, SVG and PNG (300 dpi)`,
  },
  theme: {
    name: "theme",
    kind: { type: "text", shown: "theme.json", parse: (v) => v },
    default: undefined,
    help: "a JSON theme (font, fontSize, palette, sequential, neutral, frame, text, lineWidth,\n                      bandOpacity: docs/paper.md) applied to every figure",
  },
  captionsInFigure: {
    name: "captions-in-figure",
    kind: { type: "switch", on: true },
    default: false,
    help: "draw each figure's title and caption into the image (default: the plot only; the\n                      caption is written apart as <figure>.caption.md and .caption.tex)",
  },
};

/** The figure options from the flags' raw values. A bad theme file is a ConfigError naming its key. */
export function figureOptionsFromFlags(size: string | undefined, theme: string | undefined, captionsInFigure: boolean): FigureOptions {
  const s: FigureSize = oneOf("--figure-size", size, FIGURE_SIZE_NAMES, DEFAULT_FIGURE_SIZE);
  return { size: s, theme: theme === undefined ? DEFAULT_THEME : loadTheme(theme), captionsInFigure };
}

/** One line per size for usage texts. */
export const FIGURE_SIZE_HELP = FIGURE_SIZE_NAMES.map((n) => `${n} (${FIGURE_SIZES[n].widthIn} in)`).join(", ");
