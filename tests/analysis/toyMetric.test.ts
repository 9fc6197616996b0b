/**
 * "Where does X go" for a metric and its table, measured: the metric is a pure function of a run's
 * curve (here `finalGain`, defined in this file; in the kit it goes into analysis/metrics/ beside its
 * kind), the table builder reads the report's shared parts, and the table reaches the written report
 * through one `tableEntry` row (here appended to REPORT_ENTRIES in this file; in the kit one line of
 * src/report/entries.ts). Nothing else changes: the CSV and Markdown, report.json's file list and
 * interval note come from the entry.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset, type Dataset } from "../../src/analysis/load/dataset.js";
import { runCurve } from "../../src/analysis/load/runs.js";
import type { CurvePoint } from "../../src/analysis/metrics/curves.js";
import type { Table } from "../../src/analysis/tables/table.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { buildReport } from "../../src/report/buildReport.js";
import { REPORT_ENTRIES, type ReportEntry } from "../../src/report/entries.js";
import { writeReport } from "../../src/report/writeReport.js";
import { tempDir } from "./helpers.js";

/** The toy metric: y at the last valid checkpoint minus y at the first (null with fewer than two valid). */
export function finalGain(curve: readonly CurvePoint[]): number | null {
  const valid = curve.filter((p): p is { x: number; y: number } => p.y !== null);
  if (valid.length < 2) return null;
  return valid[valid.length - 1]!.y - valid[0]!.y;
}

describe("the toy metric, by hand", () => {
  it("is the last valid y minus the first, skipping invalid checkpoints", () => {
    expect(
      finalGain([
        { x: 0, y: 0.2 },
        { x: 3, y: 0.5 },
        { x: 6, y: 0.9 },
      ]),
    ).toBeCloseTo(0.7, 12);
    expect(
      finalGain([
        { x: 0, y: null },
        { x: 3, y: 0.5 },
        { x: 6, y: 0.25 },
        { x: 9, y: null },
      ]),
    ).toBeCloseTo(-0.25, 12);
    expect(
      finalGain([
        { x: 0, y: 0.5 },
        { x: 3, y: null },
      ]),
    ).toBeNull();
    expect(finalGain([])).toBeNull();
  });
});

describe("the toy metric's table, added with one entry", () => {
  let ds: Dataset;
  beforeAll(async () => {
    const dir = tempDir();
    await writeSyntheticData(dir, { seed: 3, models: ["a"], games: ["snake", "trust"], pathways: ["none"], exploreEpisodes: 6, checkpointEvery: 3, evalEpisodes: 2, stepsPerEpisode: [2, 3] });
    ds = await loadDataset(dir);
  });

  const toyTable: ReportEntry = {
    kind: "table",
    name: "toy_final_gain",
    group: "core",
    runs: "all",
    notebook: null,
    paper: "a toy table: final gain per run",
    build: (p): Table => ({
      name: "toy_final_gain",
      title: "Toy final gain",
      columns: [
        { key: "game", kind: "text" },
        { key: "final_gain", kind: "num" },
      ],
      rows: p.all.runs.map((r) => ({ game: r.game, final_gain: finalGain(runCurve(r)) })),
      notes: ["Intervals: none (a toy)."],
    }),
  };

  it("reaches the written CSV and report.json with the values the checkpoints give by hand", async () => {
    const report = buildReport(ds, { B: 20, seed: 1 }, [...REPORT_ENTRIES, toyTable]);
    const out = tempDir();
    await writeReport(report, out);
    const csv = readFileSync(join(out, "tables", "toy_final_gain.csv"), "utf8")
      .trim()
      .split("\n");
    expect(csv[0]).toBe("game,final_gain");
    // By hand from the checkpoint records: mean score at the last checkpoint minus at the first.
    const expected = ds.runs.map((r) => {
      const cs = r.checkpoints.filter((c) => c.valid);
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      return [r.game, mean(cs[cs.length - 1]!.scores) - mean(cs[0]!.scores)] as const;
    });
    expect(expected).toHaveLength(2);
    for (const [game, v] of expected) {
      const line = csv.find((l) => l.startsWith(`${game},`));
      expect(line, game).toBeDefined();
      expect(Number(line!.split(",")[1])).toBeCloseTo(v, 3);
    }
    const meta = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { files: string[]; interval_methods: Record<string, string> };
    expect(meta.files).toEqual(expect.arrayContaining(["tables/toy_final_gain.csv", "tables/toy_final_gain.md"]));
    expect(meta.interval_methods.toy_final_gain).toBe("Intervals: none (a toy).");
  });
});
