/**
 * The figure flags `report` and `figure` share: `--figure-size column|page|slide`, `--theme FILE`,
 * `--captions-in-figure`, read into the options every figure is written with (printLayout.ts).
 */
import { UsageError } from "./args.js";
import { DEFAULT_FIGURE_SIZE, FIGURE_SIZE_NAMES, FIGURE_SIZES, type FigureOptions, type FigureSize } from "../../report/figures/printLayout.js";
import { DEFAULT_THEME, loadTheme } from "../../report/figures/theme.js";

/** A flag's value among `choices` (its default when absent); a UsageError names the flag and the choices. */
export function oneOf<const T extends string>(flag: string, raw: string | undefined, choices: readonly T[], dflt: T): T {
  if (raw === undefined) return dflt;
  const v = raw.trim() as T;
  if (!choices.includes(v)) throw new UsageError(`${flag} must be one of ${choices.join(", ")} (got '${raw}')`);
  return v;
}

/** The figure options from the flags' raw values. A bad theme file is a ConfigError naming its key. */
export function figureOptionsFromFlags(size: string | undefined, theme: string | undefined, captionsInFigure: boolean): FigureOptions {
  const s: FigureSize = oneOf("--figure-size", size, FIGURE_SIZE_NAMES, DEFAULT_FIGURE_SIZE);
  return { size: s, theme: theme === undefined ? DEFAULT_THEME : loadTheme(theme), captionsInFigure };
}

/** One line per size for usage texts. */
export const FIGURE_SIZE_HELP = FIGURE_SIZE_NAMES.map((n) => `${n} (${FIGURE_SIZES[n].widthIn} in)`).join(", ");
