/**
 * The figure specs follow the rules a reader relies on (specs.ts header): legends at full opacity,
 * pathways told apart by dash and marker, one panel per model or game (no empty panel), integer
 * ticks on integer axes, no "-0" tick, padded axes and a note for a constant, intervals, and n plus
 * the interval method in every caption. Checked on the compiled Vega and the rendered SVG.
 */
import { describe, expect, it } from "vitest";
import { compile, type TopLevelSpec } from "vega-lite";
import type { CurveSeries } from "../../../src/analysis/tables/curveTables.js";
import type { TrainingBandSeries } from "../../../src/analysis/tables/trainingSeeds.js";
import { costGainSpec, viewsSpec } from "../../../src/report/figures/viewSpecs.js";
import { doseResponseSpec } from "../../../src/report/figures/doseSpecs.js";
import {
  bandedScale,
  calibrationSpec,
  constantValue,
  FIGURE_CONFIG,
  couplingSpec,
  curvesSpec,
  flatBands,
  paddedDomain,
  specCaption,
  trainingSpec,
  wrapLines,
} from "../../../src/report/figures/specs.js";
import { renderSvg } from "../../../src/report/figures/render.js";

const BOOT = { B: 500, seed: 7, level: 0.95 };
const pt = (x: number, y: number, lo: number, hi: number, n = 3) => ({ x, y, lo, hi, n_runs: 1, n_episodes: n });
const curves: CurveSeries[] = [
  // m1: history and memory coincide exactly; m2: constant 1 everywhere.
  { model: "m1", game: "g", pathway: "history", points: [pt(0, 1, 0.5, 1.5), pt(3, 2, 1.5, 2.5), pt(6, 2, 1.5, 2.5)] },
  { model: "m1", game: "g", pathway: "memory", points: [pt(0, 1, 0.5, 1.5), pt(3, 2, 1.5, 2.5), pt(6, 2, 1.5, 2.5)] },
  { model: "m2", game: "g", pathway: "history", points: [pt(0, 1, 1, 1, 2), pt(3, 1, 1, 1, 2), pt(6, 1, 1, 1, 2)] },
  { model: "m1", game: "other", pathway: "history", points: [pt(0, 5, 5, 5)] },
];

type Json = Record<string, unknown>;
const vega = (spec: TopLevelSpec): Json => compile(spec).spec as unknown as Json;
const find = (v: unknown, pred: (o: Json) => boolean, out: Json[] = []): Json[] => {
  if (Array.isArray(v)) v.forEach((x) => find(x, pred, out));
  else if (v && typeof v === "object") {
    if (pred(v as Json)) out.push(v as Json);
    Object.values(v).forEach((x) => find(x, pred, out));
  }
  return out;
};

describe("helpers", () => {
  it("constantValue and paddedDomain", () => {
    expect(constantValue([2, 2, null, 2])).toBe(2);
    expect(constantValue([2, 2.5])).toBeNull();
    expect(constantValue([])).toBeNull();
    expect(paddedDomain(0)).toEqual([-1, 1]);
    expect(paddedDomain(4)).toEqual([2, 6]);
    expect(paddedDomain(-2)).toEqual([-3, -1]);
  });
});

describe("curvesSpec", () => {
  const spec = curvesSpec("g", curves, BOOT);
  const v = vega(spec);

  it("one panel per model of the game, a legend that is not the band's", () => {
    expect((spec as unknown as { concat: unknown[] }).concat).toHaveLength(2);
    const legends = find(v, (o) => Array.isArray(o.legends)).flatMap((o) => o.legends as Json[]);
    expect(legends.length).toBeGreaterThan(0);
    // No legend symbol drawn at the band's opacity.
    expect(JSON.stringify(legends)).not.toContain("0.18");
  });

  it("history and memory differ in colour, dash, marker and marker size", () => {
    const scales = (v.scales as Json[]).filter((s) => ["color", "strokeDash", "shape", "size"].includes(String(s.name)));
    const by = Object.fromEntries(scales.map((s) => [s.name, s.range as unknown[]]));
    for (const k of ["color", "strokeDash", "shape", "size"]) {
      expect(by[k], k).toHaveLength(2);
      expect(JSON.stringify(by[k]![0]), k).not.toBe(JSON.stringify(by[k]![1]));
    }
  });

  it("integer checkpoint ticks, a constant panel padded and labelled, n and the method in the caption", () => {
    const panels = (spec as unknown as { concat: { title: { text: string; subtitle: string }; layer: { encoding: { x: { axis: Json }; y: { scale: Json } } }[] }[] }).concat;
    expect(panels[0]!.layer[1]!.encoding.x.axis).toMatchObject({ format: "d", values: [0, 3, 6] });
    expect(panels[1]!.title).toMatchObject({ text: "m2", subtitle: "constant at 1" });
    expect(panels[1]!.layer[1]!.encoding.y.scale).toEqual({ domain: [0.5, 1.5] });
    expect(panels[0]!.title.subtitle).toBe("");
    const caption = specCaption(spec);
    expect(caption).toContain("n = 2-3 episodes per point");
    expect(caption).toContain("95% percentile bootstrap, B = 500, seed 7");
  });
});

describe("a constant line with a band (a deterministic policy on the same seeds)", () => {
  it("keeps the padded axis around the line, draws no band that would fill the panel, and states the interval", () => {
    const flat: CurveSeries[] = [{ model: "h", game: "trust", pathway: "history", points: [pt(0, 72, 44, 92, 10), pt(3, 72, 44, 92, 10)] }];
    const panel = (curvesSpec("trust", flat, BOOT) as unknown as { concat: { title: { subtitle: string }; layer: { mark: { opacity: number }; encoding: { y: { scale: Json } } }[] }[] }).concat[0]!;
    expect(panel.layer[0]!.mark.opacity).toBe(0);
    expect(panel.layer[1]!.encoding.y.scale).toEqual({ domain: [36, 108] });
    expect(panel.title.subtitle).toBe("constant at 72; band [44, 92] not drawn");
    // A line that moves keeps its band.
    const moving = (curvesSpec("g", curves, BOOT) as unknown as { concat: { layer: { mark: { opacity: number } }[] }[] }).concat[0]!;
    expect(moving.layer[0]!.mark.opacity).toBe(0.18);
  });
});

describe("trainingSpec", () => {
  const one = (game: string, runSeed: number, ys: number[]) => ({ run_id: `${game}.t.${runSeed}`, run_seed: runSeed, points: ys.map((y, x) => ({ x, y })) });
  const series: TrainingBandSeries[] = ["a", "b", "c", "d", "e"].map((game) => ({
    model: "t",
    game,
    band: "episodes",
    points: [
      { x: 0, y: 0, lo: 0, hi: 0, n: 2, n_seeds: 1, indicative: false },
      { x: 1, y: 1, lo: 0.5, hi: 1.5, n: 2, n_seeds: 1, indicative: false },
    ],
    seeds: [one(game, 0, [0, 1])],
  }));
  it("a panel per game only (5 games: 5 panels, no empty sixth), integer epochs, bands, caption", () => {
    const spec = trainingSpec(series, BOOT) as unknown as { concat: { layer: { mark: { type: string }; encoding: { x?: { axis: Json } } }[] }[] };
    expect(spec.concat).toHaveLength(5);
    expect(spec.concat[0]!.layer.map((l) => l.mark.type)).toEqual(["area", "line", "line", "rule"]);
    expect(spec.concat[0]!.layer[2]!.encoding.x!.axis).toMatchObject({ format: "d", values: [0, 1] });
    const caption = specCaption(spec as unknown as TopLevelSpec);
    expect(caption).toContain("averaged over 1 loop seed(s)");
    expect(caption).toContain("n = 2 evaluation episodes");
    expect(caption).toContain("the epoch's evaluation episodes resampled");
    expect(caption).not.toContain("over the loop seeds");
  });

  it("over three loop seeds: a band across seeds, a thin line per seed, the axis takes the seeds' lines in", () => {
    const three: TrainingBandSeries[] = [
      {
        model: "t",
        game: "snake",
        band: "seeds",
        points: [
          { x: 0, y: 4, lo: 0, hi: 12, n: 3, n_seeds: 3, indicative: true },
          { x: 1, y: 10, lo: 9, hi: 11, n: 3, n_seeds: 3, indicative: true },
        ],
        seeds: [one("snake", 0, [12, 9]), one("snake", 100, [0, 10]), one("snake", 200, [0, 11])],
      },
    ];
    const spec = trainingSpec(three, BOOT) as unknown as { data: { values: { kind: string; seed?: string }[] }; concat: { layer: { encoding: { y: { scale: { domain: number[] } } } }[] }[] };
    expect(new Set(spec.data.values.filter((v) => v.kind === "seed").map((v) => v.seed))).toEqual(new Set(["t seed 0", "t seed 100", "t seed 200"]));
    // The means span 4..10; the seeds' lines 0..12 are data, so the axis reaches them.
    expect(spec.concat[0]!.layer[2]!.encoding.y.scale.domain).toEqual([0, 12]);
    const caption = specCaption(spec as unknown as TopLevelSpec);
    expect(caption).toContain("over the loop seeds (n = 3: indicative");
    expect(caption).toContain("averaged over 3 loop seed(s)");
  });
});

describe("calibrationSpec and couplingSpec", () => {
  it("error bars from the bins' intervals; a constant game padded and noted", () => {
    const bins = [
      // Game g: 3 runs scored steps, but only 2 of them in this bin: the subtitle counts the game's 3.
      { game: "g", bin: 0, s_mean: 0, r_mean: 0.2, r_lo: 0, r_hi: 0.5, n: 10, n_runs: 2, game_runs: 3 },
      { game: "k", bin: 0, s_mean: 1, r_mean: 1, r_lo: 1, r_hi: 1, n: 4, n_runs: 1, game_runs: 1 },
    ];
    const spec = calibrationSpec(
      bins,
      new Map([
        ["g", { min: 0, max: 1 }],
        ["k", { min: 1, max: 1 }],
      ]),
      BOOT,
    ) as unknown as {
      concat: { title: { subtitle: string }; layer: { mark: { type: string }; encoding: { x: { scale: { domain: number[] } }; y: { field: string }; y2?: { field: string } } }[] }[];
    };
    const rule = spec.concat[0]!.layer[1]!;
    expect(rule.mark.type).toBe("rule");
    expect([rule.encoding.y.field, rule.encoding.y2!.field]).toEqual(["lo", "hi"]);
    expect(spec.concat[0]!.title.subtitle).toBe("n = 10 scored steps from 3 run(s)");
    expect(spec.concat[1]!.title.subtitle).toBe("constant: r = s = 1 (n = 4 steps)");
    expect(spec.concat[1]!.layer[0]!.encoding.x.scale.domain).toEqual([0.5, 1.5]);
  });

  it("a constant g_t gets a padded axis and a note; the caption gives n", () => {
    const blocks = [1, 2, 3].map((t) => ({ run_id: `r${t % 2}`, model: "m", game: "g", pathway: "history", s: t - 1, t, A: t / 4, E: 0.1, g: 0, nScored: 5, BA: null }));
    const spec = couplingSpec(blocks, BOOT) as unknown as { encoding: { y: { scale: Json } } };
    expect(spec.encoding.y.scale).toEqual({ domain: [-1, 1] });
    const caption = specCaption(spec as unknown as TopLevelSpec);
    expect(caption).toContain("n = 3 blocks from 2 run(s)");
    expect(caption).toContain("constant: g_t is 0 in every block");
  });
});

describe("rendered", () => {
  const labelsOf = (svg: string): string[] => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);

  it("a tick a hair below zero prints 0, not -0.00 (the figures' label guard)", async () => {
    const spec = {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      config: FIGURE_CONFIG,
      data: {
        values: [
          { x: 1, y: -0.2 },
          { x: 2, y: 0.5 },
        ],
      },
      mark: "point",
      encoding: { x: { field: "x", type: "quantitative" }, y: { field: "y", type: "quantitative", axis: { values: [-1e-12, 0.5], format: ".4f" } } },
    } as TopLevelSpec;
    const labels = labelsOf(await renderSvg(spec));
    expect(labels).toContain("0");
    expect(labels).toContain("0.5000");
    expect(labels.filter((l) => /^[-\u2212]0(\.0+)?$/.test(l))).toEqual([]);
  });

  it("the calibration figure of a range around zero has a 0 tick and no negative zero", async () => {
    const bins = [
      { game: "g", bin: 0, s_mean: -0.1, r_mean: -0.05, r_lo: -0.1, r_hi: 0, n: 10, n_runs: 2, game_runs: 2 },
      { game: "g", bin: 9, s_mean: 0.1, r_mean: 0.1, r_lo: 0.05, r_hi: 0.1, n: 5, n_runs: 2, game_runs: 2 },
    ];
    const labels = labelsOf(await renderSvg(calibrationSpec(bins, new Map([["g", { min: -0.1, max: 0.1 }]]), BOOT)));
    expect(labels).toContain("0");
    expect(labels.filter((l) => /^[-\u2212]0(\.0+)?$/.test(l))).toEqual([]);
  });
});

describe("bandedScale: bands never flatten the lines", () => {
  it("takes bands in only up to half the lines' range on each side, and says when it clipped", () => {
    // Lines 20..40 (range 20): the axis may reach 10..50; a band of -100..300 is clipped there.
    const wide = bandedScale([
      { y: 20, lo: -100, hi: 30 },
      { y: 40, lo: 35, hi: 300 },
    ]);
    expect(wide.scale).toEqual({ domain: [10, 50], nice: false, zero: false });
    expect(wide.clipped).toBe(true);
    // Narrow bands are shown whole.
    const narrow = bandedScale([
      { y: 20, lo: 18, hi: 22 },
      { y: 40, lo: 38, hi: 45 },
    ]);
    expect(narrow.scale).toEqual({ domain: [18, 45], nice: false, zero: false });
    expect(narrow.clipped).toBe(false);
  });
});

describe("costGainSpec", () => {
  const run = (game: string, calls: number, tokens: number, usd: number | null, oodg: number | null, counted = 0) => ({
    model: "m",
    game,
    pathway: "history",
    run_id: `${game}.${calls}`,
    explore_calls: calls,
    explore_tokens: tokens,
    explore_prompt_tokens_counted: counted,
    explore_usd: usd,
    eval_calls: 1,
    eval_tokens: 0,
    eval_usd: null,
    naba: null,
    oodg,
    naba_per_mtok: null,
    oodg_per_mtok: null,
  });
  type Cost = { title: { subtitle: string[] }; data: { values: { cost: number }[] }; concat: { title: { text: string }; layer: { encoding: { x?: { title: string; scale: Json } } }[] }[] };
  const x = (spec: Cost) => spec.concat[0]!.layer[1]!.encoding.x!;

  it("calls when no run counted a token, on an axis that starts at the data; n per point in the caption", () => {
    const spec = costGainSpec([run("g", 2000, 0, null, 1), run("g", 2100, 0, null, 2), run("g", 1, 0, null, null)], BOOT, "10") as unknown as Cost;
    expect(x(spec).title).toBe("explore + consolidate calls");
    expect(x(spec).scale).toMatchObject({ zero: false });
    expect(spec.data.values.map((v) => v.cost)).toEqual([2000, 2100]);
    expect(spec.concat[0]!.title.text).toBe("g (2 runs)");
    expect(spec.title.subtitle.join(" ")).toContain("(n = 10 per checkpoint)");
  });

  it("built-in models (no usage reported): the kit's own prompt-token count, and the caption says what it counts", () => {
    const spec = costGainSpec([run("g", 2000, 0, null, 1, 4_500_000), run("g", 2100, 0, null, 2, 1_500_000)], BOOT) as unknown as Cost;
    expect([x(spec).title, spec.data.values.map((v) => v.cost)]).toEqual(["exploration prompt tokens (M, kit's count)", [4.5, 1.5]]);
    const caption = spec.title.subtitle.join(" ");
    expect(caption).toContain("counted by the kit's tokenizer");
    expect(caption).toContain("memory summaries are not counted");
    // A server's count wins over the kit's where a run has one.
    const served = costGainSpec([run("g", 10, 3e6, null, 1, 5e6), run("g", 10, 0, null, 2, 7e6)], BOOT) as unknown as Cost;
    expect([x(served).title, served.data.values.map((v) => v.cost)]).toEqual(["explore + consolidate tokens (M)", [3, 0]]);
  });

  it("tokens in millions when counted, dollars when every run with a gain was priced", () => {
    const tokens = costGainSpec([run("g", 10, 3e6, null, 1), run("g", 10, 1e6, 0.5, 2)], BOOT) as unknown as Cost;
    expect([x(tokens).title, tokens.data.values.map((v) => v.cost)]).toEqual(["explore + consolidate tokens (M)", [3, 1]]);
    const usd = costGainSpec([run("g", 10, 3e6, 1.25, 1), run("g", 10, 1e6, 0.5, 2)], BOOT) as unknown as Cost;
    expect([x(usd).title, usd.data.values.map((v) => v.cost)]).toEqual(["explore + consolidate cost (USD)", [1.25, 0.5]]);
  });
});

describe("a flat line in a panel that moves (none: the same prior draw at every checkpoint)", () => {
  type Panel = { title: { subtitle: string | string[] }; layer: { transform?: Json[]; mark: { opacity?: number }; encoding: { y: { scale: Json } } }[] };
  const series: CurveSeries[] = [
    { model: "m", game: "g", pathway: "history", points: [pt(0, 20, 18, 22, 10), pt(3, 40, 38, 45, 10)] },
    { model: "m", game: "g", pathway: "none", points: [pt(0, 10, 0, 60, 10), pt(3, 10, 0, 60, 10)] },
  ];
  it("leaves its band out of the axis and the drawing, and names it in the panel's note", () => {
    const panel = (curvesSpec("g", series, BOOT) as unknown as { concat: Panel[] }).concat[0]!;
    // Lines 10..40; history's bands reach 18..45; none's [0, 60] would have stretched the axis to
    // -5..55 and covered the panel.
    expect(panel.layer[1]!.encoding.y.scale).toEqual({ domain: [10, 45], nice: false, zero: false });
    expect(panel.title.subtitle).toBe("none flat, band [0, 60] not drawn");
    expect(panel.layer[0]!.transform).toEqual([{ filter: { not: { field: "pathway", oneOf: ["none"] } } }]);
    expect(panel.layer[0]!.mark.opacity).toBe(0.18);
  });
  it("flatBands: only lines flat over two or more points with a band wider than the line", () => {
    expect([
      ...flatBands([
        { pathway: "a", y: 1, lo: 0, hi: 2 },
        { pathway: "a", y: 1, lo: 0.5, hi: 3 },
      ]),
    ]).toEqual([["a", [0, 3]]]);
    expect(flatBands([{ pathway: "a", y: 1, lo: 0, hi: 2 }]).size).toBe(0);
    expect(
      flatBands([
        { pathway: "a", y: 1, lo: 1, hi: 1 },
        { pathway: "a", y: 1, lo: 1, hi: 1 },
      ]).size,
    ).toBe(0);
    expect(
      flatBands([
        { pathway: "a", y: 1, lo: 0, hi: 2 },
        { pathway: "a", y: 2, lo: 0, hi: 2 },
      ]).size,
    ).toBe(0);
  });
});

describe("captions sized to the figure", () => {
  it("wrapLines cuts at spaces, never above the width, and loses no word", () => {
    const line = "word ".repeat(60).trim();
    const out = wrapLines([line, "short"], 50);
    expect(out.every((l) => l.length <= 50)).toBe(true);
    expect(out.join(" ")).toBe(`${line} short`);
    expect(out.at(-1)).toBe("short");
  });
  it("the views figure gives each view's n and is not wider than its panels need", async () => {
    const v = (view: "eval" | "replay", n: number, ys: number[]) => ({ model: "m", game: "g", pathway: "history", view, points: ys.map((y, i) => ({ x: 3 * i, y, lo: y - 1, hi: y + 1, n })) });
    const spec = viewsSpec("g", [v("eval", 10, [1, 2, 3]), v("replay", 3, [2, 2.5, 3])], BOOT);
    const caption = (spec as unknown as { title: { subtitle: string[] } }).title.subtitle.join(" ");
    expect(caption).toContain("Episodes per point: eval 10, replay 3.");
    // Two 220-px panels and a legend: a one-line 200-character caption made the SVG about 1,750 px wide.
    const width = Number(/width="(\d+)"/.exec(await renderSvg(spec))![1]);
    expect(width).toBeLessThan(1000);
  });
});

describe("doseResponseSpec", () => {
  const est = (point: number) => ({ point, lo: point - 0.1, hi: point + 0.1, n: 8, indicative: false });
  const rows = [0, 0.5].flatMap((judge) =>
    ["history", "memory"].map((pathway) => ({ judge, pathway, n_runs: 8, agree: est(0.5 + judge / 2), nmae: est(0.2), gain_vs_y0: est(judge), gain_vs_none: est(judge) })),
  );
  it("labels each point with its judge, History's above and the others' below, and gives n", () => {
    const spec = doseResponseSpec(rows as never, BOOT) as unknown as { title: { subtitle: string[] }; hconcat: { layer: { transform?: { filter: Json }[]; mark: { type: string; dy?: number } }[] }[] };
    const texts = spec.hconcat[0]!.layer.filter((l) => l.mark.type === "text");
    expect(texts.map((t) => [t.transform![0]!.filter, Math.sign(t.mark.dy!)])).toEqual([
      [{ field: "pathway", equal: "history" }, -1],
      [{ field: "pathway", oneOf: ["memory"] }, 1],
    ]);
    expect(spec.title.subtitle.join(" ")).toContain("n = 8 runs");
  });
});
