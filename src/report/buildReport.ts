/**
 * One call that computes every table and every figure's data from a loaded data set: the report
 * entries (entries.ts) on top of the shared analyses (analysis/tables/reportParts.ts). The CLI's `report` renders
 * its output; a notebook can call it (or any single builder) and render the same rows, so the numbers
 * have exactly one implementation.
 */
import type { Dataset } from "../analysis/load/dataset.js";
import { defineLazy, reportParts, type EntryGroup, type ReportData, type ReportOptions } from "../analysis/tables/reportParts.js";
import type { PartInput, PartsMemo } from "../analysis/tables/partsMemo.js";
import type { Table } from "../analysis/tables/table.js";
import { withAdjustedP } from "../analysis/stats/multiplicity.js";
import type { ProvenanceRecord } from "../logs/schema.js";
import { REPORT_ENTRIES, type Report, type ReportEntry, type ReportTables, type TableEntry } from "./entries.js";

/**
 * Every table (rows with point + interval) and the figures' data. Pure given the data set and
 * options: the same seed gives the same digits.
 *
 * Each table, each figure's data and each shared analysis is computed on first access and then
 * kept (memoised getters), so a caller pays only for what it reads: `s3gym report` writes
 * everything and so builds everything; a notebook showing two tables builds those two and what they
 * share. Which tables exist is decided at once (cheaply), by each entry's group: `views`,
 * `view_updates` and `forgetting` only when some run played `--views`, the verified tables only with
 * verified runs and their inputs, the dial's only with two judge settings.
 *
 * `entries` (default: the report's own) decide the tables and figures; the report keeps them
 * (`reportEntries`) so writeReport and reportFigures write what it was built with.
 */
export function buildReport(all: Dataset, opts: ReportOptions = {}, entries: readonly ReportEntry[] = REPORT_ENTRIES): Report {
  const p = reportParts(all, opts);
  const tables: Record<string, () => unknown> = {};
  for (const e of entries) {
    if (e.kind !== "table" || !p.has[e.group]) continue;
    // Every table that prints p-values gets their Holm and BH adjustments beside them (multiplicity.ts).
    const build = () => withAdjustedP((e as TableEntry).build(p));
    // The quality note rides on every table built from the filtered runs, main_results included.
    tables[e.name] = p.part(e.name, e.runs === "all" || p.qualityNote === null ? build : () => withNote(build(), p.qualityNote!), GROUP_READS[e.group]);
  }
  const report = {
    bootstrap: p.cfg,
    requireComplete: p.requireComplete,
    includeFlagged: p.includeFlagged,
    qualityNote: p.qualityNote,
    emptiedByFlags: p.emptiedByFlags,
    tables: defineLazy({} as ReportTables, tables),
    warnings: p.ds.warnings,
  } as Partial<Report>;
  Object.defineProperty(report, ENTRIES, { value: entries, enumerable: false });
  Object.defineProperty(report, PARTS_MEMO, { value: p.memo, enumerable: false });
  // Each run's provenance as its manifest recorded it (null before it was recorded), for report.json.
  Object.defineProperty(report, RUN_PROVENANCE, { value: p.ds.runs.map((r) => ({ run_id: r.run_id, provenance: r.manifest?.provenance ?? null })), enumerable: false });
  return defineLazy(report, p.figureData) as Report;
}

const ENTRIES = Symbol("report entries");
const PARTS_MEMO = Symbol("report parts memo");

/**
 * The inputs beyond the data set that an entry's table reads, by its group (partsMemo.ts keys a
 * remembered table by them): the verified tables read the verified pathway's inputs, the dial's and
 * the judge swap's read the judge dial's runs.
 */
const GROUP_READS: Record<EntryGroup, readonly PartInput[]> = { core: [], views: [], probes: [], verified: ["verified"], dial: ["dial"], judge: ["dial"] };

/**
 * What `report` has computed so far (its tables and shared analyses), as a memo another report of
 * the same data set and options can take them from (partsMemo.ts); null for a report built
 * otherwise, or against another reference data set.
 */
export function reportPartsMemo(report: ReportData): PartsMemo | null {
  return (report as { [PARTS_MEMO]?: () => PartsMemo | null })[PARTS_MEMO]?.() ?? null;
}
const RUN_PROVENANCE = Symbol("runs' provenance");

/** One run of a report and the provenance its manifest recorded (null: none recorded, or no manifest). */
export interface RunProvenance {
  run_id: string;
  provenance: ProvenanceRecord | null;
}

/** The provenance of every run a report read (buildReport); empty for a report built otherwise. */
export function reportRunProvenance(report: ReportData): readonly RunProvenance[] {
  return (report as { [RUN_PROVENANCE]?: readonly RunProvenance[] })[RUN_PROVENANCE] ?? [];
}

/** The entries a report was built with (buildReport's `entries`); the report's own for any other object. */
export function reportEntries(report: ReportData): readonly ReportEntry[] {
  return (report as { [ENTRIES]?: readonly ReportEntry[] })[ENTRIES] ?? REPORT_ENTRIES;
}

/** `table` with one more line in its notes (a new object: the builder's own table is not changed). */
function withNote<T extends object>(table: Table<T>, note: string): Table<T> {
  return { ...table, notes: [...table.notes, note] };
}
