/**
 * The notes under a table say what the table holds: each claim a note makes that can be computed
 * from the rows is computed here and compared (over a full report of a synthetic data set with
 * learners, a built-in that cannot learn and the none control):
 * - a table whose first note names an interval method prints intervals, and one that prints
 *   intervals names its method (run_quality and cost name none);
 * - the interval count the first note gives ("(42 intervals)") is the number of intervals printed;
 * - the multiplicity note's family size is the number of p-values printed;
 * - Table 7's disagreement count and across-games counts match its rows;
 * - the NABA instability note's row count is the number of marked rows;
 * - the forgetting note names the seeds it resamples (replayed exploration seeds), not evaluation seeds.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { methodsNamed, type Estimate } from "../../src/analysis/stats/bootstrap.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import type { Table } from "../../src/analysis/tables/table.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { Report } from "../../src/report/entries.js";
import { shownInterval } from "../../src/report/tables.js";
import { NABA_UNSTABLE_MARK } from "../../src/analysis/metrics/nabaStability.js";
import { tempDir } from "../analysis/helpers.js";

function intervalsOf(t: Table<object>): number {
  let n = 0;
  for (const row of t.rows)
    for (const c of t.columns) {
      if (c.kind !== "estimate" && c.kind !== "estimate_point") continue;
      const e = (row as Record<string, unknown>)[c.key] as Estimate | null | undefined;
      if (e && e.point !== null && shownInterval(e) !== null) n++;
    }
  return n;
}

describe("notes that describe their tables truly", () => {
  let report: Report;
  const tables = (): [string, Table<object>][] => Object.keys(report.tables).map((k) => [k, (report.tables as Record<string, Table<object>>)[k]!]);
  beforeAll(async () => {
    const data = tempDir("s3gym-notes-");
    await writeSyntheticData(data, {
      models: ["m1", "m2", "builtin:random"],
      games: ["chess", "trust"],
      pathways: ["none", "history", "memory"],
      exploreEpisodes: 9,
      checkpointEvery: 3,
      evalEpisodes: 4,
      stepsPerEpisode: [3, 5],
    });
    report = buildReport(await loadDataset(data), { B: 60, seed: 0 });
  }, 240_000);

  it("a method is named exactly where intervals are printed", () => {
    for (const [name, t] of tables()) {
      const named = methodsNamed(t.notes[0]);
      const printed = intervalsOf(t);
      if (printed === 0) expect(named, `${name} names a method but prints no interval`).toEqual([]);
      else expect(named.length, `${name} prints ${printed} intervals but names no method`).toBeGreaterThan(0);
    }
    expect(methodsNamed(report.tables.run_quality.notes[0])).toEqual([]);
  });

  it("the interval count of the first note is the number printed (where the note gives one)", () => {
    let checked = 0;
    for (const [name, t] of tables()) {
      const counts = [...(t.notes[0] ?? "").matchAll(/\((\d+)(?: intervals?)?\)/g)].map((m) => Number(m[1]));
      if (counts.length === 0) continue;
      expect(
        counts.reduce((a, b) => a + b, 0),
        name,
      ).toBe(intervalsOf(t));
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });

  it("the multiplicity family is every p-value printed", () => {
    let checked = 0;
    for (const [name, t] of tables()) {
      const note = t.notes.find((n) => n.startsWith("Multiplicity:"));
      const pCols = t.columns.filter((c) => c.kind === "p" && !/_(holm|bh)$/.test(c.key)).map((c) => c.key);
      if (pCols.length === 0 || (pCols.includes("p") && t.columns.some((c) => c.key === "p_holm"))) continue;
      expect(note, name).toBeDefined();
      const m = Number(/: (\d+) p-values?\)/.exec(note as string)?.[1]);
      const printed = t.rows.reduce((a, r) => a + pCols.filter((k) => typeof (r as Record<string, unknown>)[k] === "number").length, 0);
      expect(m, name).toBe(printed);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it("Table 7's counts: disagreeing rows, and games whose learners' mean gain excludes 0", () => {
    const t = report.tables.summary_vs_history;
    const k = Number(/marks the (\d+) rows?/.exec(t.notes.join("\n"))?.[1]);
    expect(k).toBe(t.rows.filter((r) => r.sign === "disagree").length);
    const line = t.notes.find((n) => n.startsWith("Across games, memory vs history"))!;
    const [, above, games, below] = /above 0 \(its interval excludes 0\) on (\d+) of (\d+) games and below 0 on (\d+)/.exec(line)!.map(Number);
    const means = t.rows.filter((r) => r.model === "mean" && r.pool === "learners" && r.pathway === "memory" && r.gain.point !== null);
    expect(games).toBe(means.length);
    expect(above).toBe(means.filter((r) => r.gain.lo !== null && r.gain.lo > 0).length);
    expect(below).toBe(means.filter((r) => r.gain.hi !== null && r.gain.hi < 0).length);
  });

  it("the NABA mark's row count is the number of marked rows", () => {
    const t = report.tables.main_results;
    const marked = t.rows.filter((r) => (r.naba.mark ?? "").includes(NABA_UNSTABLE_MARK)).length;
    const note = t.notes.find((n) => n.startsWith(NABA_UNSTABLE_MARK));
    if (marked === 0) expect(note).toBeUndefined();
    else expect(Number(/\((\d+) rows?\)\.$/.exec(note!)?.[1])).toBe(marked);
  });
});
