/**
 * `s3gym figure`: one figure outside a report.
 *
 *   s3gym figure --spec FILE.vl.json [--out DIR] [--theme theme.json]
 *     re-renders an edited vega-lite spec (a report's `<name>.vl.json`) to `<name>.pdf|.svg|.png`
 *   s3gym figure curves --game G --models A,B[,..] [--pathways history,memory] --data DIR --out DIR
 *                       [--figure-size column|page|slide] [--theme FILE] [--captions-in-figure] [--bootstrap B] [--seed N]
 *     the models' checkpoint curves overlaid on shared axes (compareSpecs.ts), written like a report's figure
 *
 * Exit codes: 0 done; 1 the data could not be read; 2 bad arguments.
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import type { TopLevelSpec } from "vega-lite";
import { asGiven, listOf, optionFlags, optionRows, readOption, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { folderFlag, HelpRequested, UsageError } from "../shared/args.js";
import { FIGURE_OPTIONS, figureOptionsFromFlags } from "../shared/figureFlags.js";
import { BOOTSTRAP_OPTIONS, DEFAULT_B } from "../../analysis/stats/bootstrap.js";
import { filterModels, loadDataset } from "../../analysis/load/dataset.js";
import { buildReport } from "../../report/buildReport.js";
import { saveFigure } from "../../report/writeReport.js";
import { compareCurvesSpec } from "../../report/figures/compareSpecs.js";
import { loadTheme } from "../../report/figures/theme.js";
import { ConfigError } from "../../util/errors.js";

/**
 * figure's own rows (the figure rows are FIGURE_OPTIONS, shared with `report`): the parser spec and
 * the usage derive from them, and each value is read by its row where the command needs it.
 */
const FIGURE_COMMAND_OPTIONS: OptionTable<{
  spec: string | undefined;
  out: string | undefined;
  game: string | undefined;
  models: string[] | undefined;
  pathways: string[] | undefined;
  data: string[] | undefined;
  bootstrap: number;
  seed: number;
}> = {
  spec: {
    name: "spec",
    kind: { type: "text", shown: "FILE.vl.json", parse: asGiven },
    default: undefined,
    help: "an edited <name>.vl.json of a report: rendered as it is to <name>.pdf, .svg and .png\n                  (in --out, default the spec's folder)",
  },
  out: { name: "out", kind: { type: "text", shown: "DIR", parse: asGiven }, default: undefined, help: "where the figure is written (curves: required)" },
  game: { name: "game", kind: { type: "text", shown: "G", parse: (v: string) => v.trim() }, default: undefined, help: "curves: the game (one game name)" },
  models: { name: "models", kind: { type: "text", shown: "A,B[,..]", parse: listOf }, default: undefined, help: "curves: the models to compare (model names as logged, two or more)" },
  pathways: { name: "pathways", kind: { type: "text", shown: "history,memory", parse: listOf }, default: undefined, help: "curves: only these pathways' panels" },
  data: { name: "data", kind: { type: "text", shown: "DIR", parse: listOf }, default: undefined, multiple: true, help: "curves: a data directory holding runs/<run_id>/ (repeat, or a comma list)" },
  bootstrap: { ...BOOTSTRAP_OPTIONS.bootstrap, help: `curves: bootstrap resamples of the bands (default ${DEFAULT_B})` },
  seed: { ...BOOTSTRAP_OPTIONS.seed, help: "curves: seed of the bootstrap streams (default 0)" },
};

/** Every row, in the order `--help` lists them. */
const ROWS: Option<unknown>[] = [...optionRows(FIGURE_COMMAND_OPTIONS), ...optionRows(FIGURE_OPTIONS)];

export const FIGURE_USAGE = [
  `usage: s3gym figure ${usageToken(FIGURE_COMMAND_OPTIONS.spec).slice(1, -1)} [--out DIR] [--theme theme.json]`,
  "       s3gym figure curves --game G --models A,B[,..] --data DIR --out DIR [flags]",
  "",
  "  curves: the named models' checkpoint curves on shared axes for one game, a panel per pathway",
  "  (none dashed in each as the control), bands the 95% bootstrap intervals; written as",
  "  compare_<game>.pdf|.svg|.png|.vl.json|.caption.md|.caption.tex",
  ...usageLines(ROWS),
].join("\n");

const OPTIONS = { ...optionFlags(ROWS), help: { type: "boolean", short: "h" } } as const;

/** The `figure` subcommand; `argv` is everything after `figure`. */
export async function figureCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split("\n")[0]}\n${FIGURE_USAGE}`);
  }
  const v = parsed.values as { [flag: string]: string | boolean | string[] | undefined; spec?: string; out?: string; theme?: string; "figure-size"?: string; "captions-in-figure"?: boolean };
  if (v.help) throw new HelpRequested(FIGURE_USAGE);
  const [what, ...extra] = parsed.positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'\n${FIGURE_USAGE}`);
  if (what === undefined) {
    if (v.spec === undefined) throw new UsageError(`give --spec FILE.vl.json or 'curves'\n${FIGURE_USAGE}`);
    return rerender(v.spec, v.out, v.theme);
  }
  if (what !== "curves") throw new UsageError(`unknown figure '${what}': valid figures are curves (or --spec FILE.vl.json)`);
  const o = FIGURE_COMMAND_OPTIONS;
  const read = <T>(row: Option<T>): T => readOption(row, v[row.name]) as T;
  const game = read(o.game);
  if (!game) throw new UsageError("figure curves: --game is required (one game name)");
  const models = read(o.models) ?? [];
  if (models.length === 0) throw new UsageError("figure curves: --models is required: a comma list of model names as logged (two or more to compare)");
  const data = read(o.data) ?? [];
  if (data.length === 0) throw new UsageError("figure curves: --data is required: a data directory holding runs/<run_id>/");
  if (v.out === undefined || v.out.trim() === "") throw new UsageError("figure curves: --out is required: the directory to write the figure into");
  folderFlag("out", v.out);
  const opts = figureOptionsFromFlags(v["figure-size"], v.theme, v["captions-in-figure"] ?? false);
  const B = read(o.bootstrap);
  const seed = read(o.seed);
  const ds = await loadDataset(data);
  const present = [...new Set(ds.runs.map((r) => r.model))].sort();
  const unknown = models.filter((m) => !present.includes(m));
  if (unknown.length > 0) throw new UsageError(`--models: unknown model '${unknown[0]}': valid values are ${present.join(", ") || "(none: no runs)"}`);
  const games = [...new Set(ds.runs.map((r) => r.game))].sort();
  if (!games.includes(game)) throw new UsageError(`--game: unknown game '${game}': valid values are ${games.join(", ") || "(none: no runs)"}`);
  const report = buildReport(filterModels(ds, models), { B, seed, reference: ds });
  const pathways = read(o.pathways);
  const spec = compareCurvesSpec(game, report.curves, models, report.bootstrap, pathways);
  const name = `compare_${game.replace(/[^A-Za-z0-9._-]+/g, "_")}`;
  const saved = await saveFigure({ name, spec, estimand: "the mean evaluation score (game units) of each model and pathway at each checkpoint, over the held-out evaluation seeds" }, v.out, opts);
  process.stdout.write(`s3gym figure: wrote ${saved.files.join(", ")}\n`);
  if (saved.overflow) process.stderr.write(`warning: ${name}: ${saved.overflow}\n`);
  return 0;
}

/** `--spec`: an edited spec to PDF, SVG and PNG, as it is. */
async function rerender(specPath: string, out: string | undefined, themePath: string | undefined): Promise<number> {
  let spec: TopLevelSpec;
  try {
    spec = JSON.parse(readFileSync(specPath, "utf8")) as TopLevelSpec;
  } catch (e) {
    throw new ConfigError(`--spec ${specPath}: cannot read it as JSON (${(e as Error).message.split("\n")[0]}); give a <name>.vl.json a report wrote`);
  }
  const { renderAsIs, printedPng, printedPdf } = await import("../../report/figures/printRender.js");
  let printed;
  try {
    printed = await renderAsIs(spec, themePath === undefined ? undefined : loadTheme(themePath));
  } catch (e) {
    throw new ConfigError(`--spec ${specPath}: vega-lite could not render it (${(e as Error).message.split("\n")[0]}); check the edit`);
  }
  const dir = out ?? dirname(specPath);
  await mkdir(dir, { recursive: true });
  const name = basename(specPath).replace(/\.vl\.json$|\.json$/, "");
  const files = [join(dir, `${name}.pdf`), join(dir, `${name}.svg`), join(dir, `${name}.png`)];
  await writeFile(files[0]!, await printedPdf(printed, name));
  await writeFile(files[1]!, printed.svg);
  await writeFile(files[2]!, printedPng(printed));
  process.stdout.write(`s3gym figure: wrote ${files.join(", ")}\n`);
  return 0;
}
