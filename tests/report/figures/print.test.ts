/**
 * Figures for a paper: `s3gym report --figure-size column` writes, for every figure, a PDF (vector,
 * font embedded), an SVG whose every text prints at >= 7 pt, a PNG at 300 dpi of the print size, the
 * final vega-lite spec and the caption pair; a theme with another palette changes the colours of
 * every figure (read back from the SVGs); a figure without data is not written, and report.json says
 * why. The checks read the written files, not the code's own numbers.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { writeSyntheticData } from "../../../src/logs/synthetic.js";
import { main } from "../../../src/cli/main.js";
import { DEFAULT_THEME, defaultColours, parseTheme } from "../../../src/report/figures/theme.js";
import { loadDataset } from "../../../src/analysis/load/dataset.js";
import { buildReport } from "../../../src/report/buildReport.js";
import { drawFigures } from "../../../src/report/writeReport.js";
import { ConfigError } from "../../../src/util/errors.js";
import { tempDir } from "../../analysis/helpers.js";

/** Every `<text>`'s font size (px) in an SVG, and the root's print width (pt) over its viewBox width. */
function svgTextPoints(svg: string): { scale: number; sizes: number[] } {
  const root = /<svg\b[^>]*>/.exec(svg)![0];
  const width = /\swidth="([\d.]+)pt"/.exec(root);
  const viewBox = /\sviewBox="[\d.-]+ [\d.-]+ ([\d.]+) [\d.]+"/.exec(root);
  expect(width, "the SVG states its print width in points").not.toBeNull();
  expect(viewBox).not.toBeNull();
  const scale = Number(width![1]) / Number(viewBox![1]);
  const sizes = [...svg.matchAll(/<text\b[^>]*\sfont-size="([\d.]+)px"/g)].map((m) => Number(m[1]));
  return { scale, sizes };
}

/** The 6-digit hex fill and stroke colours an SVG draws with (lower case). */
function svgColours(svg: string): Set<string> {
  return new Set([...svg.matchAll(/(?:fill|stroke)="(#[0-9a-fA-F]{6})"/g)].map((m) => m[1]!.toLowerCase()));
}

/** The PNG's pixel width, from its IHDR chunk. */
function pngWidth(png: Buffer): number {
  return png.readUInt32BE(16);
}

const FIGURE_FILES = [".pdf", ".svg", ".png", ".vl.json", ".caption.md", ".caption.tex"];

let data: string;
let column: string;
let themed: string;
let columnStderr = "";

describe("figures for a paper", () => {
  beforeAll(async () => {
    const dir = tempDir("s3gym-print-");
    data = join(dir, "data");
    await writeSyntheticData(data, {
      seed: 3,
      models: ["lab/model_v1 & co", "base%2"],
      games: ["snake", "trust"],
      pathways: ["history", "memory", "none"],
      exploreEpisodes: 4,
      checkpointEvery: 2,
      evalEpisodes: 2,
      stepsPerEpisode: [2, 3],
    });
    column = join(dir, "column");
    const said: string[] = [];
    const err = vi.spyOn(process.stderr, "write").mockImplementation((t) => (said.push(String(t)), true));
    try {
      expect(await main(["report", "--data", data, "--out", column, "--bootstrap", "50", "--figure-size", "column"])).toBe(0);
    } finally {
      err.mockRestore();
    }
    columnStderr = said.join("");
    themed = join(dir, "themed");
    const theme = join(dir, "theme.json");
    writeFileSync(theme, JSON.stringify({ palette: ["#112233", "#445566", "#778899", "#aabbcc"], neutral: "#010203", lineWidth: 1 }));
    expect(await main(["report", "--data", data, "--out", themed, "--bootstrap", "50", "--figure-size", "column", "--theme", theme])).toBe(0);
  }, 600_000);

  const figures = (dir: string): string[] =>
    readdirSync(dir)
      .filter((f) => f.endsWith(".svg"))
      .map((f) => f.slice(0, -4));

  it("writes a PDF, SVG, PNG, spec and caption pair for every figure", () => {
    const names = figures(column);
    expect(names).toEqual(expect.arrayContaining(["curves_snake", "curves_trust", "calibration", "coupling"]));
    for (const name of names) for (const ext of FIGURE_FILES) expect(existsSync(join(column, `${name}${ext}`)), `${name}${ext}`).toBe(true);
    for (const name of names) {
      const pdf = readFileSync(join(column, `${name}.pdf`));
      expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
      // Vector with the font embedded: a FontFile2 stream (TrueType subset) and no raster image.
      expect(pdf.toString("latin1")).toMatch(/\/FontFile2/);
      expect(pdf.toString("latin1")).not.toMatch(/\/Subtype\s*\/Image/);
      const spec = JSON.parse(readFileSync(join(column, `${name}.vl.json`), "utf8"));
      expect(spec.title, `${name}: the caption is apart, not in the image`).toBeUndefined();
      const md = readFileSync(join(column, `${name}.caption.md`), "utf8");
      expect(md).toMatch(/bootstrap|n = /);
      expect(md).toMatch(/Estimand: /);
    }
  });

  it("prints every text of every SVG at 7 pt or more, the PNG at 300 dpi of the print size, within the column's width", () => {
    for (const name of figures(column)) {
      const svg = readFileSync(join(column, `${name}.svg`), "utf8");
      const { scale, sizes } = svgTextPoints(svg);
      expect(sizes.length, name).toBeGreaterThan(0);
      const small = sizes.filter((px) => px * scale < 7 - 1e-9);
      expect(small, `${name}: text under 7 pt at print size`).toEqual([]);
      const widthPt = Number(/<svg\b[^>]*\swidth="([\d.]+)pt"/.exec(svg)![1]);
      expect(widthPt, `${name} fits a 3.3 in column`).toBeLessThanOrEqual(3.3 * 72 + 1);
      expect(Math.abs(pngWidth(readFileSync(join(column, `${name}.png`))) - (widthPt / 72) * 300)).toBeLessThanOrEqual(2);
    }
  });

  it("takes every figure's colours from the theme", () => {
    const defaults = new Set(DEFAULT_THEME.palette.map((c) => c.toLowerCase()));
    const mine = new Set(["#112233", "#445566", "#778899", "#aabbcc"]);
    for (const name of figures(themed)) {
      const before = svgColours(readFileSync(join(column, `${name}.svg`), "utf8"));
      const after = svgColours(readFileSync(join(themed, `${name}.svg`), "utf8"));
      expect(
        [...before].some((c) => defaults.has(c)),
        `${name} drew with the default palette`,
      ).toBe(true);
      expect(
        [...after].filter((c) => defaults.has(c)),
        `${name}: a default colour left under the theme`,
      ).toEqual([]);
      expect(
        [...after].some((c) => mine.has(c)),
        `${name}: no colour of the theme`,
      ).toBe(true);
    }
  });

  it("writes no figure file for a figure without data, and report.json says why", () => {
    // The data has no training runs: the training figure is not drawn (it was an empty image).
    expect(existsSync(join(column, "training.svg"))).toBe(false);
    expect(existsSync(join(column, "training.png"))).toBe(false);
    const meta = JSON.parse(readFileSync(join(column, "report.json"), "utf8"));
    expect(meta.figures_not_drawn).toEqual(expect.arrayContaining([expect.objectContaining({ name: "training", why: expect.stringMatching(/no data/) })]));
    // ... and the terminal too.
    expect(columnStderr).toMatch(/note: figure training not drawn: no data/);
    expect(meta.files).not.toContain("training.svg");
  });
});

describe("the figure builders", () => {
  it("write only the default theme's colours, so a theme reaches every colour", async () => {
    const report = buildReport(await loadDataset([data]), { B: 20, seed: 0 });
    const { drawn } = await drawFigures(report);
    expect(drawn.length).toBeGreaterThan(3);
    const allowed = defaultColours();
    const colourKeys = new Set(["color", "fill", "stroke", "background", "subtitleColor"]);
    const found: string[] = [];
    const walk = (v: unknown, key: string | null, inRange: boolean): void => {
      if (typeof v === "string") {
        if ((inRange || (key !== null && colourKeys.has(key))) && /^#|^[a-z]+$/.test(v) && !/^(circle|square|cross|diamond|triangle|wedge|stroke|arrow)/.test(v)) found.push(v.toLowerCase());
        return;
      }
      if (Array.isArray(v)) return v.forEach((x) => walk(x, key, inRange));
      if (v === null || typeof v !== "object") return;
      for (const [k, x] of Object.entries(v)) if (k !== "data") walk(x, k, inRange || (k === "range" && key === "scale") || k === "category");
    };
    for (const f of drawn) walk(f.spec, null, false);
    expect(found.length).toBeGreaterThan(10);
    expect(found.filter((c) => !allowed.has(c))).toEqual([]);
  });
});

describe("a theme file", () => {
  it("is checked key by key, and an error names the key", () => {
    expect(() => parseTheme(JSON.stringify({ palette: ["#fff", "red"] }))).toThrow(ConfigError);
    expect(() => parseTheme(JSON.stringify({ palette: ["#fff", "red", "#000", "#111"] }))).toThrow(/palette\[1\]/);
    expect(() => parseTheme(JSON.stringify({ fontSize: { tick: 5 } }))).toThrow(/fontSize\.tick.*at least 7/);
    expect(() => parseTheme(JSON.stringify({ colour: "#fff" }))).toThrow(/colour|unrecognized/i);
    expect(() => parseTheme("{")).toThrow(/not JSON/);
    expect(parseTheme(JSON.stringify({ bandOpacity: 0.3 })).bandOpacity).toBe(0.3);
    expect(parseTheme("{}").palette).toEqual(DEFAULT_THEME.palette);
  });
});
