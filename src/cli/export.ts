/**
 * `s3gym export --data DIR [--data DIR ...] --out DIR [--format parquet|csv]`
 *
 * Writes every named table of the logs (logs.md, "Tables for analysis") as `<out>/<table>.parquet`
 * (zstd) or `.csv`, plus `<out>/schema.json` (tables, rows, columns with types and descriptions), for
 * pandas, polars, R or DuckDB itself. The same logs give the same bytes. Exit codes: 0 done; 1 the
 * data cannot be read (a malformed line, named as `report` names it); 2 bad arguments.
 */
import { WriteFailedError } from "../util/atomicWrite.js";
import { escapeControl } from "../util/outsideText.js";
import { LogFormatError } from "../logs/reader.js";
import { exportTables, type ExportFormat } from "../analysis/logDatabase.js";
import { UsageError, folderFlag, oneOf, parseFlags } from "./args.js";
import { printWarnings } from "./sql.js";
import { dataDirs } from "./tableOutput.js";

const FORMATS = ["parquet", "csv"] as const satisfies readonly ExportFormat[];

const USAGE = `s3gym export --data DIR [--data DIR ...] --out DIR [--format parquet|csv] [--no-cache]

  --data DIR       a data directory holding runs/<run_id>/ (repeat, or a comma list, to merge shards)
  --out DIR        where <table>.parquet|csv and schema.json are written (created if missing)
  --format F       parquet (default; zstd) or csv (lists and structs as JSON text)
  --no-cache       load the logs afresh and keep nothing (default: use the tables s3gym sql cached
                   for these unchanged files, or cache this load for it)`;

const FLAGS = {
  data: { type: "string", multiple: true },
  out: { type: "string" },
  format: { type: "string" },
  "no-cache": { type: "boolean" },
} as const;

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, USAGE);
  const dirs = dataDirs(values.data);
  if (dirs.length === 0) throw new UsageError("--data is required: a data directory holding runs/<run_id>/ (repeat it or give a comma list for shards)");
  if (values.out === undefined || values.out.trim() === "") throw new UsageError("--out is required: the folder to write the tables into");
  const out = folderFlag("out", values.out);
  const format = oneOf("format", values.format, FORMATS, "parquet");
  try {
    const r = await exportTables(dirs, out, format, { onWarning: () => undefined, cacheDir: values["no-cache"] === true ? null : undefined });
    printWarnings(r.warnings);
    const counts = Object.entries(r.rows).map(([t, n]) => `${t} ${n}`).join(", ");
    process.stdout.write(`s3gym export: wrote ${r.files.length} files to ${out} (${format}): ${counts}\n`);
    return 0;
  } catch (e) {
    if (e instanceof WriteFailedError) {
      process.stderr.write(`s3gym export: ${escapeControl(e.message)}\n`);
      return 1;
    }
    if (e instanceof LogFormatError) {
      process.stderr.write(`s3gym export: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
