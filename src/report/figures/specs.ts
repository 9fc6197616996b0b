/**
 * Vega-Lite specs of the report's figures, built from the analysis' data (never from the logs), so a
 * notebook can draw the same figure from the same rows. Specs embed their data inline.
 *
 * Rules every figure follows, so a reader can trust it:
 * - legends at full opacity; pathways differ by colour AND dash AND marker, so coinciding lines stay
 *   distinguishable (a dashed line over a solid one shows both);
 * - panels are laid out with `concat`, one per model or game present: no empty panel;
 * - integer quantities (checkpoint, epoch) get integer ticks; a tick at zero never prints "-0.00";
 * - a quantity that is constant in a panel gets a padded axis around it and the panel says so;
 * - a band never flattens its line: the axis takes bands in only up to half the lines' range, and a
 *   flat line's band in a panel that moves is named in the note, not drawn (it covered the panel);
 * - captions are wrapped (wrapLines), so the figure is no wider than its panels need;
 * - intervals wherever the analysis has them (curve bands, training bands, calibration error bars);
 * - the caption (title subtitle) states n and the interval method, with B and the seed.
 */
import type { TopLevelSpec } from "vega-lite";
import type { BootstrapConfig } from "../../analysis/stats/bootstrap.js";
import type { CurveSeries } from "../../analysis/tables/curveTables.js";
import type { TrainingBandSeries } from "../../analysis/tables/trainingSeeds.js";
import type { BlockRow } from "../../analysis/tables/couplingTables.js";
import type { RewardRange } from "../../analysis/metrics/judging.js";
import type { CalibrationBin } from "../../analysis/tables/judgingTables.js";
import { DEFAULT_THEME } from "./theme.js";

/** The default theme's colours by position (theme.ts maps each to a theme's colour of that role). */
const P = DEFAULT_THEME.palette;

/** Fixed pathway colours, dashes and markers, so History and Memory look the same in every figure. */
const PATHWAY_STYLE: Record<string, { color: string; dash: number[]; shape: string }> = {
  history: { color: P[0]!, dash: [1, 0], shape: "circle" },
  memory: { color: P[1]!, dash: [6, 3], shape: "square" },
  none: { color: DEFAULT_THEME.neutral, dash: [2, 2], shape: "triangle-up" },
};
const OTHER_COLORS = P.slice(2, 6);
const OTHER_DASHES = [
  [8, 2, 2, 2],
  [4, 4],
  [1, 3],
  [10, 4],
];
const OTHER_SHAPES = ["diamond", "cross", "triangle-down", "wedge"];

/** Colour, dash and shape scales for the pathways present (known ones first, in a fixed order). */
export function pathwayScales(pathways: Iterable<string>): { color: object; strokeDash: object; shape: object; size: object } {
  const present = new Set(pathways);
  const known = Object.keys(PATHWAY_STYLE).filter((p) => present.has(p));
  const other = [...present].filter((p) => !(p in PATHWAY_STYLE)).sort();
  const domain = [...known, ...other];
  const pick = <T>(k: "color" | "dash" | "shape", extra: readonly T[]): T[] => [...known.map((p) => PATHWAY_STYLE[p]![k] as T), ...other.map((_, i) => extra[i % extra.length] as T)];
  return {
    color: { domain, range: pick("color", OTHER_COLORS) },
    strokeDash: { domain, range: pick("dash", OTHER_DASHES) },
    shape: { domain, range: pick("shape", OTHER_SHAPES) },
    size: { domain, range: domain.map((_, i) => Math.max(14, 110 - 40 * i)) },
  };
}

/** Model colours for the training figure (a line per model). */
const MODEL_COLORS = P;

/** Tick labels: a value within 1e-9 of zero prints "0", never "-0.00". */
const ZERO_SAFE = "abs(datum.value) < 1e-9 ? '0' : datum.label";

/** The config every figure shares (exported for the tests). */
export const FIGURE_CONFIG = {
  font: "DejaVu Sans, sans-serif",
  view: { stroke: DEFAULT_THEME.frame },
  // Encodings without a scale range of their own (the coupling scatter's games) take the palette.
  range: { category: P },
  axis: { labelExpr: ZERO_SAFE },
  legend: { symbolOpacity: 1, labelLimit: 240 },
  title: { anchor: "start", subtitleColor: DEFAULT_THEME.text, subtitleFontSize: 11 },
  concat: { spacing: 24 },
} as const;

export const BASE = {
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  background: "white",
  config: FIGURE_CONFIG,
} as const;

/** The one value of a non-empty list whose finite entries are all equal, else null. */
export function constantValue(values: readonly (number | null | undefined)[]): number | null {
  const finite = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  if (finite.length === 0) return null;
  const first = finite[0]!;
  return finite.every((v) => Math.abs(v - first) <= 1e-12 * Math.max(1, Math.abs(first))) ? first : null;
}

/** An axis domain around a constant: +-50% of it, or +-1 around zero. */
export function paddedDomain(c: number): [number, number] {
  const pad = Math.abs(c) > 0 ? Math.abs(c) / 2 : 1;
  return [c - pad, c + pad];
}

/** Short number text for captions and notes (up to 3 decimals, no trailing zeros, no "-0"). */
export function short(x: number): string {
  const s = Number(x.toFixed(3)).toString();
  return s === "-0" ? "0" : s;
}

/**
 * Caption lines cut at spaces to at most `width` characters. vega sizes the figure to its title
 * without a canvas, from an estimate of the text's width that ran about 1.6x the drawn width, so one
 * 200-character line left a third of the PNG empty beside the panels.
 */
export function wrapLines(lines: readonly string[], width = 110): string[] {
  const out: string[] = [];
  for (const line of lines) {
    let cur = "";
    for (const word of line.split(" ")) {
      if (cur !== "" && cur.length + 1 + word.length > width) {
        out.push(cur);
        cur = word;
      } else cur = cur === "" ? word : `${cur} ${word}`;
    }
    out.push(cur);
  }
  return out;
}

/** "3" or "2-4": the range of a list of counts. */
export function countRange(ns: readonly number[]): string {
  if (ns.length === 0) return "0";
  const lo = Math.min(...ns);
  const hi = Math.max(...ns);
  return lo === hi ? String(lo) : `${lo}-${hi}`;
}

export function bootText(cfg: BootstrapConfig): string {
  return `${Math.round((cfg.level ?? 0.95) * 100)}% percentile bootstrap, B = ${cfg.B}, seed ${cfg.seed}`;
}

/** An integer x axis: the distinct values as ticks when few, else whole-number ticks. */
export function integerAxis(xs: readonly number[], title: string): object {
  const values = [...new Set(xs)].sort((a, b) => a - b);
  return { title, format: "d", ...(values.length > 0 && values.length <= 12 ? { values } : { tickMinStep: 1 }) };
}

/** A y scale: padded around a constant, else vega's own (zero not forced). */
export function yScale(values: readonly (number | null)[]): { scale: object; constant: number | null } {
  const c = constantValue(values);
  return c === null ? { scale: { zero: false, nice: true }, constant: null } : { scale: { domain: paddedDomain(c) }, constant: c };
}

/**
 * A y scale for lines with bands: the lines' own range, widened to take in the bands only up to half
 * that range on each side (the axis spans at most twice the lines' range), so an interval that is wide
 * on three seeds (-100..+300 around scores of 20..40) cannot flatten the lines; the band is clipped at
 * the axis and the caption says so. Lines that are constant keep the padded scale around their value,
 * and their band (the same interval at every point: a deterministic policy on the same seeds) is not
 * drawn, as it would fill the panel: `constantBand` gives its ends for the panel's note instead.
 */
export function bandedScale(vs: readonly { y: number | null; lo: number | null; hi: number | null }[]): {
  scale: object;
  constant: number | null;
  clipped: boolean;
  constantBand: [number, number] | null;
} {
  const ys = vs.map((v) => v.y).filter((y): y is number => y !== null && Number.isFinite(y));
  const los = vs.map((v) => v.lo).filter((y): y is number => y !== null && Number.isFinite(y));
  const his = vs.map((v) => v.hi).filter((y): y is number => y !== null && Number.isFinite(y));
  const c = constantValue(ys);
  if (ys.length === 0) return { ...yScale([]), clipped: false, constantBand: null };
  if (c !== null) {
    const lo = Math.min(c, ...los);
    const hi = Math.max(c, ...his);
    return { scale: { domain: paddedDomain(c) }, constant: c, clipped: false, constantBand: hi - lo > 1e-12 ? [lo, hi] : null };
  }
  const min = Math.min(...ys);
  const max = Math.max(...ys);
  const pad = (max - min) / 2;
  const lo = Math.max(min - pad, Math.min(min, ...los));
  const hi = Math.min(max + pad, Math.max(max, ...his));
  const clipped = los.some((l) => l < lo - 1e-12) || his.some((h) => h > hi + 1e-12);
  return { scale: { domain: [lo, hi], nice: false, zero: false }, constant: null, clipped, constantBand: null };
}

/** A panel's note on its scale: a constant (and its undrawn interval), or bands clipped at the axis. */
export function scaleNote(y: ReturnType<typeof bandedScale>): string {
  // Short: a subtitle wider than its panel widens the panel's cell and spreads the whole grid apart.
  if (y.constant !== null) return `constant at ${short(y.constant)}${y.constantBand ? `; band [${shortBand(y.constantBand[0])}, ${shortBand(y.constantBand[1])}] not drawn` : ""}`;
  return y.clipped ? "bands clipped at the axis" : "";
}

/** A band end for a panel note: 3 significant digits. */
function shortBand(x: number): string {
  return short(Number(x.toPrecision(3)));
}

/**
 * The pathways of a panel whose line is flat over two or more points and whose band is not, with the
 * band's widest ends: their band is left out of the panel (curvesSpec) and named in its note.
 */
export function flatBands(vs: readonly { pathway: string; y: number | null; lo: number | null; hi: number | null }[]): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const p of [...new Set(vs.map((v) => v.pathway))].sort()) {
    const mine = vs.filter((v) => v.pathway === p && v.y !== null && Number.isFinite(v.y));
    const c = mine.length > 1 ? constantValue(mine.map((v) => v.y)) : null;
    if (c === null) continue;
    const lo = Math.min(c, ...mine.map((v) => v.lo ?? c));
    const hi = Math.max(c, ...mine.map((v) => v.hi ?? c));
    if (hi - lo > 1e-12) out.set(p, [lo, hi]);
  }
  return out;
}

/** The default B/seed when a caller gives none (the report always passes its own). */
const DEFAULT_BOOT: BootstrapConfig = { B: 2000, seed: 0, level: 0.95 };

/**
 * Paper Figures 3-6: one game's checkpoint curves, a panel per model, History and Memory (and None
 * when present) overlaid, each with its 95% bootstrap band (evaluation episodes resampled).
 */
export function curvesSpec(
  game: string,
  series: readonly CurveSeries[],
  boot: BootstrapConfig = DEFAULT_BOOT,
  /** Another figure drawn the same way (views_<game>): its title and band line; panels follow `model`. */
  text?: { title: string; lines: (nEpisodes: string) => string[] },
): TopLevelSpec {
  const mine = series.filter((s) => s.game === game);
  const values = mine.flatMap((s) =>
    // `band` repeats the pathway under another name: a legend-less channel on the same field would
    // merge with the lines' legend and remove it (vega-lite merges legends by field).
    s.points.map((p) => ({ model: s.model, pathway: s.pathway, band: s.pathway, x: p.x, y: p.y, lo: p.lo ?? p.y, hi: p.hi ?? p.y, n: p.n_episodes })),
  );
  const scales = pathwayScales(values.map((v) => v.pathway));
  const models = [...new Set(mine.map((s) => s.model))].sort();
  const panels = models.map((model) => {
    const all = values.filter((v) => v.model === model);
    const whole = bandedScale(all);
    // In a panel that moves, a pathway whose line is flat (none: the same prior draw on the same seeds at
    // every checkpoint) repeats one interval at every point; drawn, that band covered the whole panel
    // (views' replay view: 3 episodes) under the lines that move. It is named in the note instead.
    const flat = whole.constant === null ? flatBands(all) : new Map<string, [number, number]>();
    const vs = all.map((v) => (flat.has(v.pathway) ? { ...v, lo: v.y, hi: v.y } : v));
    const y = flat.size > 0 ? bandedScale(vs) : whole;
    // The panel's own checkpoints as ticks: a view with other checkpoints (replay starts at the first
    // exploration block) printed the others' ticks on its axis, one over another when it had one point.
    const xAxis = integerAxis(
      all.map((v) => v.x),
      "checkpoint x (exploration episodes)",
    );
    const x = { field: "x", type: "quantitative", axis: xAxis, scale: { nice: false } };
    const yEnc = { field: "y", type: "quantitative", title: "score (game units)", scale: y.scale };
    const color = { field: "pathway", type: "nominal", scale: scales.color, title: "pathway" };
    const notes = [scaleNote(y), ...[...flat].map(([p, b]) => `${p} flat, band [${shortBand(b[0])}, ${shortBand(b[1])}] not drawn`)].filter((t) => t !== "");
    return {
      title: { text: model, subtitle: notes.length > 1 ? notes : notes.join(""), anchor: "middle", fontSize: 12, subtitleFontSize: 10 },
      width: 220,
      height: 150,
      transform: [{ filter: { field: "model", equal: model } }],
      layer: [
        {
          // The band uses the fill channel (its own scale, no legend): the legend comes from the lines alone,
          // at full opacity, instead of merging with the band's 0.18.
          mark: { type: "area", opacity: y.constant === null ? 0.18 : 0, clip: true },
          encoding: { x, y: { ...yEnc, field: "lo" }, y2: { field: "hi" }, fill: { field: "band", type: "nominal", scale: scales.color, legend: null } },
          ...(flat.size > 0 ? { transform: [{ filter: { not: { field: "pathway", oneOf: [...flat.keys()] } } }] } : {}),
        },
        {
          mark: { type: "line", strokeWidth: 2 },
          encoding: { x, y: yEnc, color, strokeDash: { field: "pathway", type: "nominal", scale: scales.strokeDash, title: "pathway" } },
        },
        {
          // Markers shrink from history to memory to none: coinciding points stay visible as nested marks.
          mark: { type: "point", filled: true, opacity: 1 },
          encoding: {
            x,
            y: yEnc,
            color,
            shape: { field: "pathway", type: "nominal", scale: scales.shape, title: "pathway" },
            size: { field: "pathway", type: "ordinal", scale: scales.size, title: "pathway" },
          },
        },
      ],
    };
  });
  const nEp = countRange(values.map((v) => v.n));
  return {
    ...BASE,
    title: {
      text: text?.title ?? `${game}: evaluation score by checkpoint`,
      subtitle: wrapLines(
        text?.lines(nEp) ?? [
          `Lines: mean score of the evaluation episodes at each checkpoint (n = ${nEp} episodes per point); ${models.length} model(s) x ${new Set(values.map((v) => v.pathway)).size} pathway(s).`,
          `Bands: ${bootText(boot)}, each run's evaluation episodes resampled within each checkpoint.`,
        ],
      ),
    },
    data: { values },
    concat: panels,
    columns: 4,
    resolve: { scale: { y: "independent" } },
  } as unknown as TopLevelSpec;
}

/**
 * Paper Figure 7: training curves (score by epoch), a panel per game, a line per model: the mean over
 * its loop seeds with the band across seeds (one seed: its evaluation episodes resampled), each seed's
 * own curve as a thin line, epoch 0 (the base model) dashed across.
 */
export function trainingSpec(series: readonly TrainingBandSeries[], boot: BootstrapConfig = DEFAULT_BOOT): TopLevelSpec {
  const values: Record<string, unknown>[] = [];
  for (const s of series) {
    // `band` repeats the model for the legend-less band, seed and base-line channels (see curvesSpec).
    for (const p of s.points) values.push({ kind: "point", game: s.game, model: s.model, band: s.model, x: p.x, y: p.y, lo: p.lo ?? p.y, hi: p.hi ?? p.y, n: p.n, n_seeds: p.n_seeds });
    if (s.seeds.length > 1)
      for (const seed of s.seeds) for (const p of seed.points) values.push({ kind: "seed", game: s.game, model: s.model, band: s.model, seed: `${s.model} seed ${seed.run_seed}`, x: p.x, y: p.y });
    const y0 = s.points.find((p) => p.x === 0);
    if (y0) values.push({ kind: "y0", game: s.game, model: s.model, band: s.model, y: y0.y });
  }
  const games = [...new Set(series.map((s) => s.game))].sort();
  const models = [...new Set(series.map((s) => s.model))].sort();
  const color = { field: "model", type: "nominal", title: "model", scale: { domain: models, range: models.map((_, i) => MODEL_COLORS[i % MODEL_COLORS.length]) } };
  const points = values.filter((v) => v.kind === "point") as { game: string; x: number; y: number; lo: number; hi: number; n: number; n_seeds: number }[];
  const seedYs = values.filter((v) => v.kind === "seed") as { game: string; y: number }[];
  const panels = games.map((game) => {
    const vs = points.filter((v) => v.game === game);
    // The seeds' own lines are data too: the axis takes them in whole, the bands only up to half the range.
    const y = bandedScale([...vs, ...seedYs.filter((v) => v.game === game).map((v) => ({ y: v.y, lo: null, hi: null }))]);
    const x = {
      field: "x",
      type: "quantitative",
      axis: integerAxis(
        vs.map((v) => v.x),
        "epoch",
      ),
      scale: { nice: false },
    };
    const yEnc = { field: "y", type: "quantitative", title: "score (game units)", scale: y.scale };
    return {
      title: { text: game, subtitle: scaleNote(y), anchor: "middle", fontSize: 12, subtitleFontSize: 10 },
      width: 220,
      height: 150,
      transform: [{ filter: { field: "game", equal: game } }],
      layer: [
        {
          transform: [{ filter: "datum.kind === 'point'" }],
          mark: { type: "area", opacity: y.constant === null ? 0.18 : 0, clip: true },
          encoding: { x, y: { ...yEnc, field: "lo" }, y2: { field: "hi" }, fill: { ...color, field: "band", legend: null } },
        },
        {
          transform: [{ filter: "datum.kind === 'seed'" }],
          mark: { type: "line", strokeWidth: 0.8, opacity: 0.45, clip: true },
          encoding: { x, y: yEnc, stroke: { ...color, field: "band", legend: null }, detail: { field: "seed", type: "nominal" } },
        },
        {
          transform: [{ filter: "datum.kind === 'point'" }],
          mark: { type: "line", strokeWidth: 2, point: { size: 30, filled: true } },
          encoding: { x, y: yEnc, color },
        },
        {
          transform: [{ filter: "datum.kind === 'y0'" }],
          mark: { type: "rule", strokeDash: [4, 3], opacity: 0.8 },
          encoding: { y: { field: "y", type: "quantitative", scale: y.scale }, stroke: { ...color, field: "band", legend: null } },
        },
      ],
    };
  });
  const nEp = countRange(points.map((v) => v.n));
  const nSeeds = countRange(series.map((s) => s.seeds.length));
  const bySeeds = series.some((s) => s.band === "seeds");
  const byEpisodes = series.some((s) => s.band === "episodes");
  return {
    ...BASE,
    title: {
      text: "Training pathway: evaluation score by epoch",
      subtitle: [
        `Thick lines: each epoch's score averaged over ${nSeeds} loop seed(s) (train-loop runs), each seed's score the mean of its n = ${nEp} evaluation episodes; thin lines: each seed; dashed: epoch 0, the base model.`,
        [
          bySeeds ? `Bands: ${bootText(boot)} over the loop seeds (n = ${nSeeds}: indicative, the seeds' spread).` : "",
          byEpisodes ? `Bands${bySeeds ? " of one-seed lines" : ""}: ${bootText(boot)}, the epoch's evaluation episodes resampled.` : "",
        ]
          .filter((t) => t !== "")
          .join(" "),
      ],
    },
    data: { values },
    ...(panels.length > 0 ? { concat: panels, columns: 4 } : { mark: "text", encoding: { text: { value: "no training runs in this data set" } } }),
    resolve: { scale: { y: "independent" } },
  } as unknown as TopLevelSpec;
}

/**
 * Calibration: per game, mean verifier reward against mean (clipped) self-score in equal-width bins of
 * the self-score, point area by step count, error bars the bootstrap interval of the bin's mean
 * reward; the diagonal is perfect calibration.
 */
export function calibrationSpec(bins: readonly CalibrationBin[], ranges: ReadonlyMap<string, RewardRange | null>, boot: BootstrapConfig = DEFAULT_BOOT): TopLevelSpec {
  const games = [...new Set(bins.map((b) => b.game))].sort();
  const values: Record<string, unknown>[] = bins.map((b) => ({
    kind: "bin",
    game: b.game,
    s: b.s_mean,
    r: b.r_mean,
    lo: b.r_lo ?? b.r_mean,
    hi: b.r_hi ?? b.r_mean,
    n: b.n,
  }));
  const maxN = Math.max(1, ...bins.map((b) => b.n));
  const panels = games.map((game) => {
    const gb = bins.filter((b) => b.game === game);
    const rg = ranges.get(game) ?? null;
    const lo = Math.min(rg?.min ?? Infinity, ...gb.map((b) => Math.min(b.s_mean, b.r_lo ?? b.r_mean)));
    const hi = Math.max(rg?.max ?? -Infinity, ...gb.map((b) => Math.max(b.s_mean, b.r_hi ?? b.r_mean)));
    const constant = hi - lo <= 1e-12;
    const domain = constant ? paddedDomain(lo) : [lo, hi];
    values.push({ kind: "diag", game, s: domain[0], r: domain[0] }, { kind: "diag", game, s: domain[1], r: domain[1] });
    const steps = gb.reduce((a, b) => a + b.n, 0);
    // The game's runs, not the largest bin's (a run whose steps all fall in other bins still counts).
    const runs = Math.max(0, ...gb.map((b) => b.game_runs));
    const sx = { field: "s", type: "quantitative", title: "self-score s (clipped to the reward range)", scale: { domain, nice: false } };
    const ry = { field: "r", type: "quantitative", title: "mean verifier reward r", scale: { domain, nice: false } };
    return {
      title: {
        text: game,
        subtitle: constant ? `constant: r = s = ${short(lo)} (n = ${steps} steps)` : `n = ${steps} scored steps from ${runs} run(s)`,
        anchor: "middle",
        fontSize: 12,
      },
      width: 180,
      height: 180,
      transform: [{ filter: { field: "game", equal: game } }],
      layer: [
        { transform: [{ filter: "datum.kind === 'diag'" }], mark: { type: "line", strokeDash: [4, 3], color: DEFAULT_THEME.neutral }, encoding: { x: sx, y: ry } },
        { transform: [{ filter: "datum.kind === 'bin'" }], mark: { type: "rule", color: P[0], strokeWidth: 1.5 }, encoding: { x: sx, y: { ...ry, field: "lo" }, y2: { field: "hi" } } },
        {
          transform: [{ filter: "datum.kind === 'bin'" }],
          mark: { type: "circle", opacity: 0.85, color: P[0] },
          encoding: { x: sx, y: ry, size: { field: "n", type: "quantitative", title: "steps in bin", scale: { domain: [0, maxN], range: [12, 400] } } },
        },
      ],
    };
  });
  return {
    ...BASE,
    title: {
      text: "Calibration: verifier reward vs self-score (exploration steps of history + memory runs)",
      subtitle: [
        `Points: mean reward of the scored steps in each of 10 equal-width self-score bins (area: steps; n per game under its name); dashed: perfect calibration.`,
        `Bars: ${bootText(boot)} of each bin's mean reward, runs resampled (a game with one run: its steps).`,
      ],
    },
    data: { values },
    ...(panels.length > 0 ? { concat: panels, columns: 4 } : { mark: "text", encoding: { text: { value: "no scored exploration steps in this data set" } } }),
    resolve: { scale: { x: "independent", y: "independent" } },
  } as unknown as TopLevelSpec;
}

/** The coupling scatter: block agreement A_t against block improvement g_t, coloured by game. */
export function couplingSpec(blocks: readonly BlockRow[], boot: BootstrapConfig = DEFAULT_BOOT): TopLevelSpec {
  const values = blocks.map((b) => ({ game: b.game, pathway: b.pathway, model: b.model, t: b.t, A: b.A, g: b.g }));
  const g = yScale(values.map((v) => v.g));
  const runs = new Set(blocks.map((b) => b.run_id)).size;
  const shapes = pathwayScales(values.map((v) => v.pathway)).shape;
  return {
    ...BASE,
    title: {
      text: "Coupling: block agreement A_t vs improvement g_t",
      subtitle: [
        `n = ${blocks.length} blocks from ${runs} run(s); each point is one block of exploration between two checkpoints.`,
        `Table 6 (coupling) gives the Spearman correlations with intervals (${bootText(boot)}).`,
        ...(g.constant === null ? [] : [`constant: g_t is ${short(g.constant)} in every block (no checkpoint score changed).`]),
      ],
    },
    data: { values },
    width: 420,
    height: 300,
    mark: { type: "point", opacity: 0.75, filled: true, size: 36 },
    encoding: {
      x: { field: "A", type: "quantitative", title: "A_t (Agree over the block's scored steps)", scale: { domain: [0, 1] } },
      y: { field: "g", type: "quantitative", title: "g_t (normalised improvement)", scale: g.scale },
      color: { field: "game", type: "nominal", title: "game" },
      shape: { field: "pathway", type: "nominal", title: "pathway", scale: shapes },
    },
  } as unknown as TopLevelSpec;
}

/** The title and subtitle lines of a vega-lite spec as one text (a figure's text/plain fallback). */
export function specCaption(spec: TopLevelSpec): string {
  const t = (spec as { title?: unknown }).title;
  const lines = (v: unknown): string[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
  if (t !== null && typeof t === "object" && !Array.isArray(t)) {
    const o = t as { text?: unknown; subtitle?: unknown };
    return [...lines(o.text), ...lines(o.subtitle)].filter((l) => l !== "").join("\n");
  }
  return lines(t).join("\n") || "(untitled figure)";
}
