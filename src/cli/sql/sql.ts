import { openLogDatabase, type LogDatabase } from "../../analysis/sql/logDatabase.js";
import { cacheRoot, NO_CACHE_OPTION } from "../../analysis/sql/sqlCache.js";
import { tableDefinitions, type SqlTable } from "../../analysis/sql/sqlSchema.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { UsageError, parseFlagsAndPositionals } from "../shared/args.js";
import { ConfigError } from "../../util/errors.js";
import { textTable, withPrecision, writeCsv, writeJson, type ResultChunk } from "./sqlOutput.js";
import { WriteFailedError } from "../../util/atomicWrite.js";
import { DATA_DIRS_OPTION } from "../shared/dataFlags.js";
import { optionFlags, readOption, usageLines, usageToken, type Option, type OptionTable } from "../../util/options.js";
import { escapeControl } from "../../util/outsideText.js";

/** Significant digits of floating-point cells on the terminal table unless --precision says otherwise. */
export const DEFAULT_PRECISION = 6;

/** sql's own rows (`--data` is DATA_DIRS_OPTION, `--no-cache` the SQL cache's NO_CACHE_OPTION): each value is read by its row. */
const SQL_OPTIONS: OptionTable<{ schema: boolean; csv: string | undefined; json: boolean; maxRows: number; file: string | undefined; precision: number | undefined }> = {
  schema: { name: "schema", kind: { type: "switch", on: true }, default: false, help: "list the tables and their columns with types and descriptions" },
  csv: { name: "csv", kind: { type: "text", shown: "FILE", parse: (v: string) => v }, default: undefined, help: "write the whole result to FILE as CSV (instead of the table on stdout)" },
  json: { name: "json", kind: { type: "switch", on: true }, default: false, help: "print the whole result as a JSON array of row objects" },
  maxRows: { name: "max-rows", kind: { type: "int", range: { min: 0, max: 1_000_000 } }, default: 100, help: "rows of the table on stdout (default 100; the count of all rows is printed)" },
  file: { name: "file", kind: { type: "text", shown: "Q.sql", parse: (v: string) => v }, default: undefined, help: "read the query from a file (instead of the command line)" },
  precision: {
    name: "precision",
    kind: { type: "int", range: { min: 1, max: 17, why: "the significant digits printed" } },
    arg: "P",
    default: undefined,
    help: `significant digits of floating-point cells (default ${DEFAULT_PRECISION} on the terminal table, where\n                  the integer part is never rounded; --csv and --json keep full precision unless\n                  --precision is given)`,
  },
};

/** Every row, in the order `--help` lists them. */
const ROWS: Option<unknown>[] = [DATA_DIRS_OPTION, SQL_OPTIONS.schema, SQL_OPTIONS.csv, SQL_OPTIONS.json, SQL_OPTIONS.maxRows, SQL_OPTIONS.file, SQL_OPTIONS.precision, NO_CACHE_OPTION];

const USAGE = [
  `s3gym sql ${usageToken(DATA_DIRS_OPTION)} [--data DIR ...] [flags] "SELECT ..."`,
  "       s3gym sql --data DIR --file Q.sql",
  "       s3gym sql --schema",
  ...usageLines(ROWS),
  `  (the SQL cache: ${cacheRoot()})`,
  "",
  "Tables: runs, episodes, steps, checkpoints, calls, memory, curriculum, verdicts (docs/analysis.md,",
  '"Your own analysis"). A query is never read as a flag, even when it starts with a "--" comment.',
  "Example:",
  '  s3gym sql --data data "select game, pathway, avg(abs(self_score - reward)) from steps group by all"',
].join("\n");

const FLAGS = optionFlags(ROWS);

/**
 * The arguments with every one that cannot be a flag moved behind `--`, so the parser reads it as
 * the query: a flag is `-x` or `--name[=value]` with no blank in its name, so an argument that
 * starts with a `--` comment (`-- Q1: ...`, `--\nselect ...`) or has a blank or line break before
 * any `=` is query text. Arguments already after a `--` stay as they are.
 */
export function queryLast(argv: readonly string[]): string[] {
  const end = argv.indexOf("--");
  const head = end < 0 ? argv : argv.slice(0, end);
  const tail = end < 0 ? [] : argv.slice(end + 1);
  const isQuery = (a: string): boolean => a.startsWith("-") && /\s/.test(a.split("=")[0] ?? a);
  const flags = head.filter((a) => !isQuery(a));
  const queries = head.filter(isQuery);
  return queries.length + tail.length === 0 ? flags : [...flags, "--", ...queries, ...tail];
}

/** The query of --file: its text, or a UsageError naming the file. */
function queryFile(path: string): string {
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`--file ${path}: no such file (give the path of a file holding one SQL query)`);
  return readFileSync(path, "utf8");
}

/** Prints the loader's warnings as `report` does (the first 20, then a count). */
export function printWarnings(warnings: readonly string[]): void {
  for (const w of warnings.slice(0, 20)) process.stderr.write(`warning: ${escapeControl(w)}\n`);
  if (warnings.length > 20) process.stderr.write(`warning: ... and ${warnings.length - 20} more\n`);
}

/** `--schema`: every table, its description, and its columns (name, type, description). */
export function schemaText(tables: readonly SqlTable[]): string {
  const out: string[] = [];
  for (const t of tables) {
    out.push(`${t.name}: ${t.description}`);
    const type = (c: { type: string }): string => (c.type.length > 40 ? `${c.type.slice(0, 37)}...` : c.type);
    const w = Math.max(...t.columns.map((c) => c.name.length));
    const tw = Math.max(...t.columns.map((c) => type(c).length));
    for (const c of t.columns) out.push(`  ${c.name.padEnd(w)}  ${type(c).padEnd(tw)}  ${c.description}`);
    out.push("");
  }
  return out.join("\n");
}

export async function sqlCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlagsAndPositionals(queryLast(argv), FLAGS, USAGE);
  const o = SQL_OPTIONS;
  const read = <T>(row: Option<T>): T => readOption(row, values[row.name]) as T;
  const inline = positionals.join(" ").trim();
  const file = read(o.file);
  if (file !== undefined && inline !== "") throw new UsageError("give the query either on the command line or with --file, not both");
  const query = file !== undefined ? queryFile(file).trim() : inline;
  const precision = read(o.precision) ?? null;
  const schema = read(o.schema);
  // The tables' description needs no data: it is the schema's.
  if (schema && query === "") {
    process.stdout.write(schemaText(tableDefinitions()));
    return 0;
  }
  const dirs = read(DATA_DIRS_OPTION);
  const csv = read(o.csv);
  const json = read(o.json);
  if (csv !== undefined && json) throw new UsageError("--csv and --json are alternatives: give one of them");
  const maxRows = read(o.maxRows);
  if (query === "") throw new UsageError(`a query is required, e.g. "select game, count(*) from steps group by game" (or --schema to list the tables)\nusage: ${USAGE}`);

  // A cache that cannot be written (WriteFailedError) or a log that cannot be read (LogFormatError)
  // is thrown: src/cli/main.ts prints it and exits 1.
  const db: LogDatabase = await openLogDatabase(dirs, { cacheDir: read(NO_CACHE_OPTION) ? null : undefined });
  try {
    printWarnings(db.warnings);
    if (schema) process.stdout.write(schemaText(db.tables));
    try {
      if (csv !== undefined) {
        const n = await writeCsv(csv, withPrecision(db.stream(query), precision));
        process.stdout.write(`wrote ${n} rows to ${csv}\n`);
      } else if (json) {
        await writeJson(withPrecision(db.stream(query), precision), (s) => process.stdout.write(s));
      } else {
        const shown: unknown[][] = [];
        let total = 0;
        let head: ResultChunk | null = null;
        for await (const c of withPrecision(db.stream(query), precision ?? DEFAULT_PRECISION)) {
          head ??= c;
          for (const r of c.rows) if (shown.length < maxRows) shown.push(r);
          total += c.rows.length;
        }
        if (head !== null) process.stdout.write(textTable(head.columns, head.types, shown, total));
        else process.stdout.write("(no result)\n");
      }
    } catch (e) {
      // The output could not be written (a full disk): the file is named, nothing partial is left.
      if (e instanceof WriteFailedError) throw new Error(`${escapeControl(e.message)}; no file was left at ${escapeControl(csv ?? "")}`, { cause: e });
      // DuckDB's own errors (a syntax error, a refused write) are the user's to fix: one line, exit 2.
      if (e instanceof Error && !(e instanceof UsageError)) throw new ConfigError(`the query failed: ${escapeControl(e.message.split("\n")[0] ?? e.message)}`, { cause: e });
      throw e;
    }
    return 0;
  } finally {
    db.close();
  }
}
