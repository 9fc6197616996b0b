/**
 * The memo of a report's computed parts (src/analysis/tables/partsMemo.ts), as reproduce hands it to
 * its notebooks in their snapshot: a second buildReport of the snapshot's data set with the report's
 * options takes every table from it (the builder is not called again) and gives the same tables;
 * other options, another data set object, or other extra inputs (the dial, the verified inputs) for a
 * part that reads them compute again.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset, type Dataset } from "../../src/analysis/load/dataset.js";
import { attachParts, contentHash, partsFor, type PartsMemo } from "../../src/analysis/tables/partsMemo.js";
import { runFileStamps } from "../../src/logs/reader.js";
import { loadVerifiedInputs } from "../../src/analysis/load/verifiedData.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { buildReport, reportPartsMemo } from "../../src/report/buildReport.js";
import { REPORT_ENTRIES, type ReportEntry } from "../../src/report/entries.js";
import { DATASET_SNAPSHOT_VAR, notebookDialDataset, notebookVerifiedInputs, readDatasetSnapshot, writeReportSnapshot } from "../../src/report/notebooks/datasetSnapshot.js";
import { toCsv } from "../../src/report/tables.js";
import type { Table } from "../../src/analysis/tables/table.js";
import { tempDir } from "./helpers.js";

let dir: string;
let ds: Dataset;
let builds = 0;
// A table whose builder counts its calls: a memo hit must not call it.
const counted: ReportEntry = {
  kind: "table",
  name: "toy_counted",
  group: "core",
  notebook: null,
  paper: "a toy table that counts its builds",
  build: (p) => {
    builds++;
    return { name: "toy_counted", title: "Toy", columns: [{ key: "runs", kind: "int" }], rows: [{ runs: p.ds.runs.length }], notes: ["Intervals: none (a count)."] };
  },
};
const entries = [...REPORT_ENTRIES, counted];

/** Reads the toy table (not in the report's own table types). */
const toy = (r: ReturnType<typeof buildReport>): unknown => (r.tables as unknown as Record<string, unknown>).toy_counted;
const csvs = (tables: Record<string, unknown>): Record<string, string> => Object.fromEntries(Object.entries(tables).map(([k, t]) => [k, toCsv(t as Table<object>)]));

beforeAll(async () => {
  dir = tempDir();
  await writeSyntheticData(dir, {
    seed: 3,
    models: ["a", "b"],
    games: ["snake", "trust"],
    pathways: ["none", "history", "memory"],
    exploreEpisodes: 4,
    checkpointEvery: 2,
    evalEpisodes: 2,
    stepsPerEpisode: [2, 4],
    training: { models: ["t"], epochs: 2 },
  });
  ds = await loadDataset(dir);
});

/** The report's snapshot, as reproduce writes it, read back as a notebook reads it. */
function snapshotOf(report: ReturnType<typeof buildReport>, source: Dataset): Dataset {
  const file = join(tempDir(), "ds.v8");
  expect(writeReportSnapshot(file, [dir], runFileStamps([dir]), source, reportPartsMemo(report))).toBe(true);
  const back = readDatasetSnapshot(file, [dir]);
  expect(back).not.toBeNull();
  return back!;
}

describe("a report's parts, handed on in the snapshot", () => {
  it("answer a second buildReport of the snapshot's data set with the same options, builder not called", () => {
    builds = 0;
    const report = buildReport(ds, { B: 40, seed: 5 }, entries);
    const first = csvs(report.tables);
    expect(builds).toBe(1);
    const snap = snapshotOf(report, ds);
    const heard: string[] = [];
    const again = buildReport(snap, { B: 40, seed: 5, onBuild: (p) => heard.push(p) }, entries);
    expect(csvs(again.tables)).toEqual(first);
    expect(builds).toBe(1);
    // Every table was answered from the memo, and still announced once.
    expect(heard).toEqual(expect.arrayContaining(Object.keys(first)));
    // The figures' data too (the curves of Figures 3-6).
    expect(again.curves).toEqual(report.curves);
  });

  it("are not used for other options or another data set object", () => {
    builds = 0;
    const report = buildReport(ds, { B: 40, seed: 5 }, entries);
    toy(report);
    const snap = snapshotOf(report, ds);
    toy(buildReport(snap, { B: 41, seed: 5 }, entries));
    toy(buildReport(snap, { B: 40, seed: 6 }, entries));
    toy(buildReport(snap, { B: 40, seed: 5, requireComplete: true }, entries));
    toy(buildReport(snap, { B: 40, seed: 5, includeFlagged: true }, entries));
    // The data set loaded again (equal content, another object): no memo is attached to it.
    toy(buildReport(ds, { B: 40, seed: 5 }, entries));
    // Another data set as the reference (report --models): the memo does not apply.
    toy(buildReport(snap, { B: 40, seed: 5, reference: ds }, entries));
    expect(builds).toBe(7);
  });

  it("written from a --models view, or a report against another reference, hold no parts", () => {
    const report = buildReport(ds, { B: 40, seed: 5, reference: { ...ds } }, entries);
    void report.tables.main_results;
    expect(reportPartsMemo(report)).toBeNull();
  });
});

describe("the report's other inputs, handed on in the snapshot", () => {
  it("are the report's own objects, keyed as the report keyed its parts; without a snapshot they are loaded", async () => {
    // A stand-in dial (any Dataset): the synthetic data has no <data>/dial.
    const dial = await loadDataset(dir);
    const report = buildReport(ds, { B: 40, seed: 5, dial }, entries);
    void report.tables.main_results;
    const memo = reportPartsMemo(report)!;
    const file = join(tempDir(), "ds.v8");
    expect(writeReportSnapshot(file, [dir], runFileStamps([dir]), ds, memo, { dial, verified: null })).toBe(true);
    const env = { [DATASET_SNAPSHOT_VAR]: file };
    const served = await notebookDialDataset({ data: [dir] }, env);
    expect(served).toStrictEqual(dial);
    expect(served).not.toBe(dial);
    // Its key is the one the report wrote, whatever bytes v8 gives for the copy.
    expect(contentHash(served)).toBe(memo.key.inputs.dial);
    // No verified inputs in the report: the notebook loads them (none here), as before.
    expect(await notebookVerifiedInputs({ data: [dir] }, env)).toStrictEqual(await loadVerifiedInputs([dir]));
    // No snapshot: loadDialDataset (no <data>/dial here).
    expect(await notebookDialDataset({ data: [dir] }, {})).toBeUndefined();
  });
});

describe("partsFor", () => {
  const key = { cfg: { B: 10, seed: 0, level: 0.95 }, requireComplete: false, includeFlagged: false };
  const dial = { runs: [{ run_id: "d1" }] };

  it("keys a part that reads the dial by the dial's content, one that does not by nothing", async () => {
    const own = await loadDataset(dir);
    const memo: PartsMemo = {
      key: { ...key, inputs: { dial: contentHash(dial), verified: null } },
      parts: { plain: { reads: [], value: 1 }, dosed: { reads: ["dial"], value: 2 }, checked: { reads: ["verified"], value: 3 } },
    };
    attachParts(own, memo);
    // Equal content built the same way (a fresh load of the same dial), another object.
    const same = partsFor(own, key, { dial: { runs: [{ run_id: "d1" }] }, verified: undefined })!;
    expect(same("plain")).toEqual({ hit: true, value: 1 });
    expect(same("dosed")).toEqual({ hit: true, value: 2 });
    expect(same("checked")).toEqual({ hit: true, value: 3 });
    expect(same("absent")).toEqual({ hit: false });
    // Another dial (one more run), or none: only the part that reads it is computed again.
    const other = partsFor(own, key, { dial: { runs: [{ run_id: "d1" }, { run_id: "d2" }] }, verified: undefined })!;
    expect(other("plain")).toEqual({ hit: true, value: 1 });
    expect(other("dosed")).toEqual({ hit: false });
    expect(partsFor(own, key, { dial: undefined, verified: undefined })!("dosed")).toEqual({ hit: false });
    // Verified inputs the report did not have: its verified parts do not answer.
    expect(partsFor(own, key, { dial, verified: { verified: [], usage: [] } })!("checked")).toEqual({ hit: false });
    expect(partsFor(own, { ...key, cfg: { ...key.cfg, level: 0.9 } }, { dial, verified: undefined })).toBeNull();
    expect(partsFor(ds, key, { dial, verified: undefined })).toBeNull();
  });
});
