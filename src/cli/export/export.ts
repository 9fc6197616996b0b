import { exportTables, type ExportFormat } from "../../analysis/sql/logDatabase.js";
import { BOOTSTRAP_OPTIONS } from "../../analysis/stats/bootstrap.js";
import { NO_CACHE_OPTION } from "../../analysis/sql/sqlCache.js";
import { terminalSafe } from "../../models/secrets.js";
import { ATIF_VERSION, exportInterop, type InteropFormat } from "../../report/interop/exportInterop.js";
import { optionFlags, readOption, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { UsageError, folderFlag, parseFlags } from "../shared/args.js";
import { DATA_DIRS_OPTION } from "../shared/dataFlags.js";
import { printWarnings } from "../sql/sql.js";

const TABLE_FORMATS = ["parquet", "csv"] as const satisfies readonly ExportFormat[];
const LOG_FORMATS = ["inspect", "atif"] as const satisfies readonly InteropFormat[];
const FORMATS = [...TABLE_FORMATS, ...LOG_FORMATS] as const;

/** export's own rows (`--data` is DATA_DIRS_OPTION; `--bootstrap`/`--seed` BOOTSTRAP_OPTIONS, `--no-cache` the SQL cache's, each with export's note). */
const EXPORT_OPTIONS: OptionTable<{ out: string | undefined; format: (typeof FORMATS)[number] }> = {
  out: {
    name: "out",
    kind: { type: "text", shown: "DIR", parse: (v: string) => folderFlag("out", v) },
    default: undefined,
    required: "the folder to write the tables into",
    help: "where the files are written (created if missing)",
  },
  format: {
    name: "format",
    kind: { type: "choice", choices: FORMATS },
    default: "parquet",
    help: `parquet (default; zstd): <table>.parquet and schema.json
                   csv: <table>.csv (lists and structs as JSON text) and schema.json
                   inspect: one Inspect eval log per run, <run_id>.json (open it in Inspect View)
                   atif: one Harbor trajectory (${ATIF_VERSION}) per episode, <run_id>/<episode>.json`,
  },
};

const BOOTSTRAP: Option<unknown> = { ...BOOTSTRAP_OPTIONS.bootstrap, help: `inspect: ${BOOTSTRAP_OPTIONS.bootstrap.help}` };
const SEED: Option<unknown> = { ...BOOTSTRAP_OPTIONS.seed, help: `inspect: ${BOOTSTRAP_OPTIONS.seed.help}` };
const NO_CACHE: Option<unknown> = {
  ...NO_CACHE_OPTION,
  help: "parquet/csv: load the logs afresh and keep nothing (default: use the tables s3gym\n                   sql cached for these unchanged files, or cache this load for it)",
};

/** Every row, in the order `--help` lists them. */
const ROWS: Option<unknown>[] = [DATA_DIRS_OPTION, EXPORT_OPTIONS.out, EXPORT_OPTIONS.format, BOOTSTRAP, SEED, NO_CACHE];

const USAGE = [`s3gym export ${usageToken(DATA_DIRS_OPTION)} [--data DIR ...] ${usageToken(EXPORT_OPTIONS.out)} [flags]`, ...usageLines(ROWS)].join("\n");

const FLAGS = optionFlags(ROWS);

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS, USAGE);
  const read = <T>(row: Option<T>): T => readOption(row, values[row.name]) as T;
  const dirs = read(DATA_DIRS_OPTION);
  const out = read(EXPORT_OPTIONS.out) as string;
  const format = read(EXPORT_OPTIONS.format);
  const B = read(BOOTSTRAP_OPTIONS.bootstrap);
  const seed = read(BOOTSTRAP_OPTIONS.seed);
  if ((values.bootstrap !== undefined || values.seed !== undefined) && format !== "inspect")
    throw new UsageError("--bootstrap and --seed apply to --format inspect only (the other formats hold no intervals)");
  if (format === "inspect" || format === "atif") {
    if (read(NO_CACHE_OPTION)) throw new UsageError(`--no-cache applies to --format parquet and csv (the SQL tables' cache); --format ${format} reads the logs afresh`);
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
  const r = await exportTables(dirs, out, format, { onWarning: () => undefined, cacheDir: read(NO_CACHE_OPTION) ? null : undefined });
  printWarnings(r.warnings);
  const counts = Object.entries(r.rows)
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");
  process.stdout.write(`s3gym export: wrote ${r.files.length} files to ${out} (${format}): ${counts}\n`);
  return 0;
}
