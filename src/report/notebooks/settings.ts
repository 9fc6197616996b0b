/**
 * Where a notebook reads and writes, from the environment, so one notebook serves any data set:
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `S3GYM_DATA` | `data` | data directory (or a comma list of shard directories) holding `runs/<run_id>/` |
 * | `S3GYM_OUT` | `figures` | where tables (`tables/*.csv|.md`) and figures (`*.svg|.png`) are written |
 * | `S3GYM_BOOTSTRAP` | `2000` | bootstrap resamples per interval (the `report` default) |
 * | `S3GYM_SEED` | `0` | seed of the bootstrap streams (the `report` default) |
 * | `S3GYM_FIGURE_SIZE` | `page` | the figures' print size (`report --figure-size`): column, page or slide |
 * | `S3GYM_THEME` | (none) | a theme file for every figure (`report --theme`) |
 * | `S3GYM_CAPTIONS_IN_FIGURE` | (unset) | `1`: each figure's title and caption drawn into it (`report --captions-in-figure`) |
 *
 * Relative paths are taken from the kit's root (the folder holding `dist/` and `notebooks/`), so a
 * notebook run from `notebooks/` (Jupyter's working directory) and `s3gym report` run from the root
 * read and write the same places.
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_B } from "../../analysis/stats/bootstrap.js";
import { DEFAULT_FIGURE_SIZE, FIGURE_SIZE_NAMES, type FigureOptions, type FigureSize } from "../figures/printLayout.js";
import { DEFAULT_THEME, loadTheme } from "../figures/theme.js";

export interface NotebookSettings {
  /** Absolute data directories (shards merged by the loader). */
  data: string[];
  /** Absolute output directory. */
  out: string;
  /** Bootstrap resamples. */
  B: number;
  /** Bootstrap seed. */
  seed: number;
  /** The kit's root. */
  root: string;
  /** How the notebook's figures are written: the same as `report` with the same flags. */
  figures: FigureOptions;
}

/** The kit's root: three folders above this compiled module (`<root>/dist/report/notebooks/settings.js`). */
export function kitRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
}

function intFrom(name: string, raw: string | undefined, dflt: number, min: number): number {
  if (raw === undefined || raw.trim() === "") return dflt;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min} (got '${raw}')`);
  return n;
}

/**
 * Reads `S3GYM_DATA`, `S3GYM_OUT`, `S3GYM_BOOTSTRAP`, `S3GYM_SEED`. Throws a readable error when
 * the data directory does not exist (with the command that creates it).
 */
export function notebookSettings(env: Record<string, string | undefined> = process.env): NotebookSettings {
  const root = kitRoot();
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(root, p));
  const data = (env.S3GYM_DATA?.trim() || "data")
    .split(",")
    .map((d) => d.trim())
    .filter(Boolean)
    .map(abs);
  const missing = data.filter((d) => !existsSync(d));
  if (missing.length > 0) {
    throw new Error(
      `S3GYM_DATA: ${missing.join(", ")} does not exist. Run 'npm run reproduce' (writes data/), ` + `'s3gym run ... --data DIR', or set S3GYM_DATA to a data directory holding runs/<run_id>/.`,
    );
  }
  return {
    data,
    out: abs(env.S3GYM_OUT?.trim() || "figures"),
    B: intFrom("S3GYM_BOOTSTRAP", env.S3GYM_BOOTSTRAP, DEFAULT_B, 1),
    seed: intFrom("S3GYM_SEED", env.S3GYM_SEED, 0, 0),
    root,
    figures: figureOptionsFrom(env, abs),
  };
}

/** The figure options from `S3GYM_FIGURE_SIZE`, `S3GYM_THEME`, `S3GYM_CAPTIONS_IN_FIGURE`. */
function figureOptionsFrom(env: Record<string, string | undefined>, abs: (p: string) => string): FigureOptions {
  const raw = env.S3GYM_FIGURE_SIZE?.trim() || DEFAULT_FIGURE_SIZE;
  if (!(FIGURE_SIZE_NAMES as string[]).includes(raw)) throw new Error(`S3GYM_FIGURE_SIZE must be one of ${FIGURE_SIZE_NAMES.join(", ")} (got '${raw}')`);
  const theme = env.S3GYM_THEME?.trim();
  return { size: raw as FigureSize, theme: theme ? loadTheme(abs(theme)) : DEFAULT_THEME, captionsInFigure: env.S3GYM_CAPTIONS_IN_FIGURE?.trim() === "1" };
}
