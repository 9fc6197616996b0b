/**
 * The reliability diagram's bins, hand-computed, and its spec's promises (colour + marker + dash per
 * model, thin bins hollow, counts as area).
 *
 * Game g, reward range [0, 2] over all its steps, 10 bins of width 0.2:
 *   model a (history run): (s, r) = (0, 0) (0, 0) (1, 1) (0.25, 0) (5, 2)
 *     bin 0: s 0, 0 -> n 2, s_mean 0, r_mean 0; bin 1: 0.25 -> n 1, r 0; bin 5: 1 -> r 1;
 *     bin 9: s 5 clipped to 2 -> n 1, s_mean 2, r_mean 2
 *   model b (history run): (2, 2) (1.9, 0), one unscored (null, 1)
 *     bin 9: n 2, s_mean 1.95, r_mean 1
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../../src/analysis/load/dataset.js";
import { judgingInputs, reliabilityBins, type ReliabilityBin } from "../../../src/analysis/tables/judgingTables.js";
import { gameRewardRanges } from "../../../src/analysis/load/runs.js";
import { reliabilitySpec, THIN_BIN } from "../../../src/report/figures/reliabilitySpec.js";
import { curveRecords, exploreRecords, tempDir, writeRun } from "../../analysis/helpers.js";

let bins: ReliabilityBin[];
let ranges: ReturnType<typeof gameRewardRanges>;
beforeAll(async () => {
  const dir = tempDir();
  const runs: Record<string, [number | null, number][]> = {
    a: [
      [0, 0],
      [0, 0],
      [1, 1],
      [0.25, 0],
      [5, 2],
    ],
    b: [
      [2, 2],
      [1.9, 0],
      [null, 1],
    ],
  };
  for (const [model, steps] of Object.entries(runs)) {
    const id = { run_id: `g.history.${model}`, model, game: "g", pathway: "history" };
    const c = curveRecords(id, [[0, [1]]]);
    const x = exploreRecords(id, { 1: steps });
    writeRun(dir, id, { checkpoints: c.checkpoints, episodes: [...c.episodes, ...x.episodes], steps: x.steps });
  }
  const ds = await loadDataset(dir);
  ranges = gameRewardRanges(ds);
  bins = reliabilityBins(judgingInputs(ds, ranges), 10);
});

describe("reliability bins", () => {
  it("bin each model's scored steps on the game's clipped self-score axis", () => {
    const rounded = bins.map((b) => [b.model, b.bin, b.n, +b.s_mean.toFixed(12), +b.r_mean.toFixed(12), +b.lo.toFixed(12), +b.hi.toFixed(12)]);
    expect(rounded).toEqual([
      ["a", 0, 2, 0, 0, 0, 0.2],
      ["a", 1, 1, 0.25, 0, 0.2, 0.4],
      ["a", 5, 1, 1, 1, 1, 1.2],
      ["a", 9, 1, 2, 2, 1.8, 2],
      ["b", 9, 2, 1.95, 1, 1.8, 2],
    ]);
  });
});

describe("reliability spec", () => {
  const spec = () =>
    reliabilitySpec(bins, ranges) as unknown as {
      concat: { layer: { mark: { type: string; filled?: boolean }; transform?: { filter: string }[]; encoding: Record<string, { scale?: { domain: string[]; range: unknown[] } }> }[] }[];
      data: { values: { kind: string; thin?: boolean; n?: number }[] };
      title: { subtitle: string[] };
    };

  it("gives every model its own colour, marker and dash", () => {
    const layers = spec().concat[0]!.layer;
    const line = layers.find((l) => l.mark.type === "line" && l.encoding.strokeDash !== undefined)!;
    const point = layers.find((l) => l.mark.type === "point")!;
    for (const scale of [line.encoding.color!.scale!, line.encoding.strokeDash!.scale!, point.encoding.shape!.scale!]) {
      expect(scale.domain).toEqual(["a", "b"]);
      expect(new Set(scale.range.map((v) => JSON.stringify(v))).size).toBe(2);
    }
  });

  it("draws bins of fewer than 10 steps hollow, and sizes every bin by its steps", () => {
    expect(THIN_BIN).toBe(10);
    const values = spec().data.values.filter((v) => v.kind === "bin");
    expect(values.every((v) => v.thin === true)).toBe(true); // every bin here has 1 or 2 steps
    const points = spec().concat[0]!.layer.filter((l) => l.mark.type === "point");
    expect(points.map((p) => [p.mark.filled, p.transform![0]!.filter])).toEqual([
      [true, "datum.kind === 'bin' && datum.thin === false"],
      [false, "datum.kind === 'bin' && datum.thin === true"],
    ]);
    expect(points.every((p) => (p.encoding.size as { field?: string }).field === "n")).toBe(true);
    expect(spec().title.subtitle.join(" ")).toMatch(/hollow: fewer than 10 steps \(5 such bin\(s\)\)/);
  });
});
