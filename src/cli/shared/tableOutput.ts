/**
 * What `compare` and `power` share: loading the data directories (a log problem is thrown: main.ts
 * prints it as one line and exits 1), and printing a table as Markdown on stdout with `--csv FILE` writing the same rows as CSV.
 */
import { loadDataset, type Dataset } from "../../analysis/load/dataset.js";
import { repeatedList } from "../../util/options.js";
import { UsageError } from "./args.js";
import type { Table } from "../../analysis/tables/table.js";
import { toCsv } from "../../report/tables.js";
import { markdownOf } from "../../report/writeReport.js";
import { writeFileAtomic } from "../../util/atomicWrite.js";

/** The data directories of `--data` (repeatable, comma lists allowed). */
export function dataDirs(values: readonly string[] | undefined): string[] {
  return repeatedList(values);
}

/** Loads the data set and prints its warnings; a log that cannot be read (LogFormatError) is thrown. */
export async function loadWithWarnings(dirs: readonly string[]): Promise<Dataset> {
  const ds = await loadDataset(dirs);
  for (const w of ds.warnings.slice(0, 20)) process.stderr.write(`warning: ${w}\n`);
  if (ds.warnings.length > 20) process.stderr.write(`warning: ... and ${ds.warnings.length - 20} more\n`);
  return ds;
}

/** Markdown on stdout; the same rows as CSV into `csv` when given. */
export function emitTable(table: Table<object>, csv: string | undefined): void {
  process.stdout.write(markdownOf(table.name, table));
  if (csv !== undefined) {
    writeFileAtomic(csv, toCsv(table));
    process.stdout.write(`wrote ${csv}\n`);
  }
}

/** A comma list of integers >= min, or a one-line error naming the flag. */
export function intList(flag: string, value: string | undefined, fallback: readonly number[], min: number): number[] {
  if (value === undefined) return [...fallback];
  const parts = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p) || Number(p) < min)) {
    throw new UsageError(`invalid --${flag} '${value}': expected a comma list of integers >= ${min} (e.g. 3,5,10)`);
  }
  return parts.map(Number);
}
