import { exportTables, type ExportFormat } from "../../analysis/sql/logDatabase.js";
import { DEFAULT_B } from "../../analysis/stats/bootstrap.js";
import { terminalSafe } from "../../models/secrets.js";
import { ATIF_VERSION, exportInterop, type InteropFormat } from "../../report/interop/exportInterop.js";
import { UsageError, folderFlag, nonNegativeInt, oneOf, parseFlags } from "../shared/args.js";
import { printWarnings } from "../sql/sql.js";
import { dataDirs } from "../shared/tableOutput.js";

const TABLE_FORMATS = ["parquet", "csv"] as const satisfies readonly ExportFormat[];
const LOG_FORMATS = ["inspect", "atif"] as const satisfies readonly InteropFormat[];
const FORMATS = [...TABLE_FORMATS, ...LOG_FORMATS] as const;

const USAGE = `s3gym export --data DIR [--data DIR ...] --out DIR [--format parquet|csv|inspect|atif] [--no-cache]

  --data DIR       a data directory holding runs/<run_id>/ (repeat, or a comma list, to merge shards)
  --out DIR        where the files are written (created if missing)
  --format F       parquet (default; zstd): <table>.parquet and schema.json
                   csv: <table>.csv (lists and structs as JSON text) and schema.json
                   inspect: one Inspect eval log per run, <run_id>.json (open it in Inspect View)
                   atif: one Harbor trajectory (${ATIF_VERSION}) per episode, <run_id>/<episode>.json
  --bootstrap B    inspect: bootstrap resamples of the results' intervals (default ${DEFAULT_B}, as report)
  --seed N         inspect: seed of the bootstrap streams (default 0, as report)
  --no-cache       parquet/csv: load the logs afresh and keep nothing (default: use the tables s3gym
                   sql cached for these unchanged files, or cache this load for it)`;

const FLAGS = {
  data: { type: "string", multiple: true },
  out: { type: "string" },
  format: { type: "string" },
  "no-cache": { type: "boolean" },
  bootstrap: { type: "string" },
  seed: { type: "string" },
} as const;

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, USAGE);
  const dirs = dataDirs(values.data);
  if (dirs.length === 0) throw new UsageError("--data is required: a data directory holding runs/<run_id>/ (repeat it or give a comma list for shards)");
  if (values.out === undefined || values.out.trim() === "") throw new UsageError("--out is required: the folder to write the tables into");
  const out = folderFlag("out", values.out);
  const format = oneOf("format", values.format, FORMATS, "parquet");
  const B = nonNegativeInt("bootstrap", values.bootstrap, DEFAULT_B, 1_000_000);
  if (B < 1) throw new UsageError("--bootstrap must be at least 1");
  const seed = nonNegativeInt("seed", values.seed, 0, 4_294_967_295);
  if ((values.bootstrap !== undefined || values.seed !== undefined) && format !== "inspect")
    throw new UsageError("--bootstrap and --seed apply to --format inspect only (the other formats hold no intervals)");
  if (format === "inspect" || format === "atif") {
    if (values["no-cache"] === true) throw new UsageError(`--no-cache applies to --format parquet and csv (the SQL tables' cache); --format ${format} reads the logs afresh`);
    // A log that cannot be read (LogFormatError) is thrown: src/cli/main.ts prints it and exits 1.
    const r = await exportInterop({ dataDirs: dirs, outDir: out, format, B, seed });
    printWarnings(r.warnings);
    const what = format === "inspect" ? `${r.files.length} Inspect eval logs (one per run, ${r.episodes} samples)` : `${r.files.length} ATIF trajectories (one per episode) of ${r.runs} runs`;
    process.stdout.write(terminalSafe(`s3gym export: wrote ${what} to ${out}\n`));
    if (r.runs === 0) {
      process.stderr.write(terminalSafe(`s3gym export: no runs found in ${dirs.join(", ")}\n`));
      return 1;
    }
    return 0;
  }
  // A file that cannot be written (WriteFailedError) or a log that cannot be read (LogFormatError) is
  // thrown: src/cli/main.ts prints it and exits 1.
  const r = await exportTables(dirs, out, format, { onWarning: () => undefined, cacheDir: values["no-cache"] === true ? null : undefined });
  printWarnings(r.warnings);
  const counts = Object.entries(r.rows)
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");
  process.stdout.write(`s3gym export: wrote ${r.files.length} files to ${out} (${format}): ${counts}\n`);
  return 0;
}
