/**
 * `s3gym figure curves --models A,B` overlays both models on one axis; `s3gym figure --spec` renders
 * an edited spec to PDF, SVG and PNG with the edit in it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { main } from "../../src/cli/main.js";
import { DEFAULT_THEME } from "../../src/report/figures/theme.js";
import { tempDir } from "../analysis/helpers.js";

let dir: string;
let data: string;

describe("s3gym figure", () => {
  beforeAll(async () => {
    dir = tempDir("s3gym-figure-");
    data = join(dir, "data");
    await writeSyntheticData(data, {
      seed: 4,
      models: ["mine", "baseline"],
      games: ["snake"],
      pathways: ["history", "memory", "none"],
      exploreEpisodes: 4,
      checkpointEvery: 2,
      evalEpisodes: 2,
      stepsPerEpisode: [2, 3],
    });
  }, 120_000);

  it("curves --models A,B puts both models on one axis, a panel per pathway", async () => {
    const out = join(dir, "cmp");
    expect(await main(["figure", "curves", "--game", "snake", "--models", "mine,baseline", "--data", data, "--out", out, "--bootstrap", "30", "--figure-size", "column"])).toBe(0);
    const spec = JSON.parse(readFileSync(join(out, "compare_snake.vl.json"), "utf8"));
    expect(spec.resolve.scale.y).toBe("shared");
    expect(spec.concat.map((p: { title: { text: string } }) => p.title.text)).toEqual(["History ICL", "Summary Memory"]);
    const history = spec.data.values.filter((v: { panel: string }) => v.panel === "history");
    expect(new Set(history.map((v: { model: string }) => v.model))).toEqual(new Set(["mine", "baseline"]));
    // none is in each panel as the control
    expect(history.some((v: { pathway: string }) => v.pathway === "none")).toBe(true);
    const svg = readFileSync(join(out, "compare_snake.svg"), "utf8");
    // the two models' lines, each in its own palette colour, inside the first panel's group
    const firstPanel = svg.slice(0, svg.indexOf("Summary Memory"));
    for (const c of DEFAULT_THEME.palette.slice(0, 2)) expect(firstPanel).toContain(`stroke="${c}"`);
    expect(readFileSync(join(out, "compare_snake.pdf")).subarray(0, 5).toString("latin1")).toBe("%PDF-");
  }, 120_000);

  it("names a model or game that is not in the data", async () => {
    expect(await main(["figure", "curves", "--game", "snake", "--models", "mine,nobody", "--data", data, "--out", join(dir, "x")])).toBe(2);
    expect(await main(["figure", "curves", "--game", "chess", "--models", "mine", "--data", data, "--out", join(dir, "x")])).toBe(2);
  }, 120_000);

  it("--spec re-renders an edited spec to PDF, SVG and PNG", async () => {
    const out = join(dir, "cmp");
    const spec = JSON.parse(readFileSync(join(out, "compare_snake.vl.json"), "utf8"));
    spec.concat[0].layer[1].encoding.color.scale.range = ["#123456", "#654321"];
    const edited = join(dir, "edited.vl.json");
    writeFileSync(edited, JSON.stringify(spec));
    expect(await main(["figure", "--spec", edited, "--out", join(dir, "re")])).toBe(0);
    const svg = readFileSync(join(dir, "re", "edited.svg"), "utf8");
    expect(svg).toContain('stroke="#123456"');
    expect(svg).toMatch(/<svg\b[^>]*width="[\d.]+pt"/);
    expect(
      readFileSync(join(dir, "re", "edited.pdf"))
        .subarray(0, 5)
        .toString("latin1"),
    ).toBe("%PDF-");
    expect(
      readFileSync(join(dir, "re", "edited.png"))
        .subarray(1, 4)
        .toString("latin1"),
    ).toBe("PNG");
    writeFileSync(edited, "{ not json");
    expect(await main(["figure", "--spec", edited])).toBe(2);
  }, 120_000);
});
