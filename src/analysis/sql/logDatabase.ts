/**
 * The logs as a database (logs.md, "Tables for analysis"): one or more data directories (shards
 * merged) loaded into an embedded DuckDB as the named tables of sqlSchema.ts.
 *
 * Only validated rows: every record goes through the kit's own loader (loadDataset) or reader
 * (readJsonlSync for the pathway files), so every problem is said in the loader's words: a torn
 * last line or a damaged line mid-file is its warning, and a run the loader leaves out (a line that
 * breaks the schema) is left out of every table, with the loader's warning naming it. The validated records
 * are staged as JSON lines in a private temporary folder, with their source directory and reading
 * order, and DuckDB reads them with the column types of the schema; the deduplication the loader does
 * (the last record wins, an ok record is never undone, an episode's steps come from the directory of
 * its winning record) is done there in SQL. Nothing is held whole in memory: records stream to disk,
 * and the database is a file DuckDB pages through (its memory capped at BUILD_MEMORY, the rest spilled).
 * The pathway files (memory, curriculum, verdicts) feed no metric: a line of theirs that breaks the
 * schema is left out with a warning naming file:line, and the rest of the run is kept.
 *
 * A built database is kept in the cache of sqlCache.ts (outside the data directories) and answers the
 * next query on the same, unchanged files without loading again; its warnings are said again then.
 *
 * `openLogDatabase` gives a read-only connection: the database is reopened with access_mode
 * READ_ONLY and external access off, with the configuration locked, so a query can neither change the
 * tables nor write (or read) any file, the data directories included.
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { discoverRuns, LogFormatError, readJsonlSync, type ReadWarning } from "../../logs/reader.js";
import { MAX_LINE_BYTES } from "../../util/jsonl.js";
import { runFile } from "../../logs/runDir.js";
import { viewOf, RUN_FILES } from "../../logs/schema.js";
import { namedWriteError, WriteFailedError, writeAllSync, writeFileAtomic } from "../../util/atomicWrite.js";
import { replaceFileSet } from "../../util/fileSet.js";
import { pidIsAlive } from "../../util/pid.js";
import { loadDataset, type LoadOptions, type RunData } from "../load/dataset.js";
import { frameCollector, type Columns, type FrameCollector, type FrameColumns } from "../load/frames.js";
import { cacheRoot, fingerprint, removeDeadBuilds, SqlCache } from "./sqlCache.js";
import { conform, conformerOf, sqlTypeOf, tableDefinitions, TABLE_NAMES, TABLE_SCHEMAS, type SqlTable, type SqlTableName } from "./sqlSchema.js";

/** DuckDB's memory while it builds the tables: sorts and joins beyond it spill to disk, so peak memory stays flat as the logs grow. */
const BUILD_MEMORY = "1GB";

/** Appends JSON lines to a file through a buffer (one write per ~1 MiB). */
class LineSink {
  private readonly fd: number;
  private parts: string[] = [];
  private size = 0;
  rows = 0;
  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, "w");
    } catch (e) {
      throw namedWriteError(path, e);
    }
  }
  push(row: unknown): void {
    const s = JSON.stringify(row) + "\n";
    this.parts.push(s);
    this.size += s.length;
    this.rows++;
    if (this.size > 1 << 20) this.flush();
  }
  private flush(): void {
    try {
      if (this.parts.length > 0) writeAllSync(this.fd, this.parts.join(""));
    } catch (e) {
      throw namedWriteError(this.path, e);
    }
    this.parts = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** The staged files: one per raw record kind (checkpoints still carry their `scores`). */
type Stage = Record<SqlTableName, LineSink>;

export interface LogDatabaseOptions {
  /** Every warning as it happens (also returned): the loader's, in its words. */
  onWarning?: (message: string) => void;
  /** The cache folder (sqlCache.ts; default `cacheRoot()`); null: load afresh and keep nothing. */
  cacheDir?: string | null;
  /**
   * Also collect the frames' columns (what `loadColumns` gives with its default options) from the same
   * validating pass, handed here once every record is staged, before DuckDB loads the tables
   * (reproduce's warm-up writes them for notebook 00: framesSnapshot.ts). Not called when the cache answers.
   */
  frames?: (columns: FrameColumns) => void;
}

/** A built database file in its own temporary folder. */
export interface BuiltDatabase {
  /** The database file. */
  file: string;
  /** Warnings of the load (torn lines, duplicates, inconsistencies), as `s3gym report` prints them. */
  warnings: string[];
  /** Rows per table. */
  rows: Record<SqlTableName, number>;
  /** The tables as described (columns and descriptions). */
  tables: SqlTable[];
  /** Whether the cache answered (no line was read). */
  fromCache: boolean;
  /** Removes the temporary folder (the database file with it); nothing for a cached database. */
  remove(): void;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A column or table name in SQL (the schema's names are plain identifiers; quoted anyway). */
const q = (name: string): string => (IDENT.test(name) ? `"${name}"` : `"${name.replaceAll('"', '""')}"`);
/** A string literal in SQL. */
export const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** The run row: identity and counts from the loader, the manifest's fields as they validated. */
function runRow(run: RunData): Record<string, unknown> {
  const m = conform(TABLE_SCHEMAS.runs, run.manifest ?? {}) as Record<string, unknown>;
  const valid = run.checkpoints.filter((c) => c.valid).length;
  return {
    ...m,
    run_id: run.run_id,
    model: run.model,
    game: run.game,
    pathway: run.pathway,
    has_manifest: run.manifest !== null,
    n_sources: run.sources.length,
    n_checkpoints: run.checkpoints.length,
    n_valid_checkpoints: valid,
    n_steps: run.counts.steps,
    n_explore_steps: run.counts.exploreSteps,
    n_eval_steps: run.counts.evalSteps,
    n_episodes: run.counts.episodes,
    left_out_steps: run.counts.leftOutSteps,
  };
}

/** The SQL staging's loader hooks. */
type SqlHooks = Required<Pick<NonNullable<LoadOptions["also"]>, "checkpoint" | "episode" | "step">>;

/**
 * The loader's `also` for the SQL staging, and for the frames' collector beside it when given. A
 * function of its own so that the collector is reachable only from the hooks, which the loader drops
 * when it returns.
 */
function alsoHooks(sql: SqlHooks, frames: FrameCollector["hooks"] | undefined): NonNullable<LoadOptions["also"]> {
  if (frames === undefined) return { asWritten: true, ...sql };
  return {
    asWritten: true,
    checkpoint: (r, file, line) => (sql.checkpoint(r, file, line), frames.checkpoint?.(r, file, line)),
    episode: (r, file, line) => (sql.episode(r, file, line), frames.episode?.(r, file, line)),
    step: (r, file, line) => (sql.step(r, file, line), frames.step?.(r, file, line)),
  };
}

/**
 * Streams every validated record of the data directories into the staged files. Returns the run
 * directories (their `_src`) the loader left out: their records were handed on before the bad line
 * was reached, and the tables must leave them out as the loader does.
 */
async function stageRecords(dataDirs: readonly string[], stage: Stage, warn: (m: string) => void, frames?: (columns: FrameColumns) => void): Promise<number[]> {
  const locations = discoverRuns(dataDirs, warn);
  const srcOf = new Map(locations.map((l, i) => [l.runDir, i]));
  const staged = new Set<number>();
  let ord = 0;
  const shape = Object.fromEntries(TABLE_NAMES.map((t) => [t, conformerOf(TABLE_SCHEMAS[t])])) as Record<SqlTableName, (v: unknown) => unknown>;
  const put = (table: SqlTableName, rec: Record<string, unknown>, file: string, view?: string | null): void => {
    const row = shape[table](rec) as Record<string, unknown>;
    if (view !== undefined) row.view = view;
    row._src = srcOf.get(dirname(file)) ?? -1;
    row._ord = ord++;
    stage[table].push(row);
  };
  // The loader validates and warns exactly as `report` does, and hands every record on as its line
  // parsed: `put` shapes each by the schema (declared fields, in the schema's order), which is what
  // zod's copy would have given it.
  const loaded = (table: SqlTableName, rec: Record<string, unknown>, file: string, view: string | null): void => {
    staged.add(srcOf.get(dirname(file)) ?? -1);
    put(table, rec, file, view);
  };
  // The frames' hooks, when asked for, see the same records (neither side changes a record it is handed).
  let collect = frames === undefined ? null : frameCollector();
  const sqlHooks: SqlHooks = {
    checkpoint: (r, file) => loaded("checkpoints", r, file, viewOf(r)),
    episode: (r, file) => loaded("episodes", r, file, r.phase === "eval" ? viewOf(r) : null),
    step: (r, file) => loaded("steps", r, file, r.phase === "eval" ? viewOf(r) : null),
  };
  const ds = await loadDataset(dataDirs, { onWarning: warn, also: alsoHooks(sqlHooks, collect?.hooks) });
  if (collect !== null && frames !== undefined) frames(collect.finish(ds));
  // The columns are handed on: not held (1 GB on the full reproduction) while the other files are staged.
  collect = null;
  // A run directory whose records were handed on but that no run of the data set comes from was left
  // out by the loader (a line that breaks its schema; the loader's warning names it): its rows go too.
  const kept = new Set(ds.runs.flatMap((r) => r.sources));
  const leftOut = [...staged].filter((src) => src >= 0 && !kept.has((locations[src] as (typeof locations)[number]).runDir));
  for (const run of ds.runs) stage.runs.push({ ...runRow(run), _src: -1, _ord: ord++ });
  // The files the loader does not read (memory, curriculum, verdicts), and calls (which it folds
  // into costs): read and validated by the same reader; a torn last line is said as the loader says it.
  const onWarning = (w: ReadWarning): void => warn(`${w.file}:${w.line}: ${w.message}`);
  const onInvalid = (e: LogFormatError): void =>
    warn(`${e.message}; line left out of the ${tableOf(e.file)} table (no report table reads this file, so the rest of the run is kept; fix or remove that line)`);
  const tableOf = (file: string): string => (["memory", "curriculum", "verdicts"] as const).find((k) => file === runFile(dirname(file), k)) ?? "pathway";
  const left = new Set(leftOut);
  for (const [src, loc] of locations.entries()) {
    if (left.has(src)) continue;
    for (const kind of ["calls", "memory", "curriculum", "verdicts"] as const) {
      const path = runFile(loc.runDir, kind);
      // calls.jsonl was read by the loader already (a bad line there left the run out): its torn line
      // has been reported once.
      // As written, like the loader's records: `put` shapes them by the schema.
      const opts = kind === "calls" ? { within: loc.dataDir, asWritten: true } : { onWarning, onInvalid, within: loc.dataDir, asWritten: true };
      if (!existsSync(path)) continue;
      try {
        for (const { value } of readJsonlSync(path, RUN_FILES[kind].schema, opts)) {
          const r = value as Record<string, unknown>;
          put(kind, r, path, kind === "calls" ? (r.phase === "eval" ? viewOf(r as { view?: "eval" }) : null) : undefined);
        }
      } catch (e) {
        // A file that cannot be read at all (not a regular file, a link out of the data): named, and
        // only its own table misses its rows; the rest of the data set is queried as usual.
        if (!(e instanceof LogFormatError)) throw e;
        warn(`${e.message}; left out of the ${kind === "calls" ? "calls" : tableOf(path)} table`);
      }
    }
  }
  return leftOut;
}

/**
 * The longest staged line DuckDB accepts: the readers' own line cap (src/util/jsonl.ts; a staged line
 * is a record that passed it). DuckDB reserves twice this per reading thread, so a larger value
 * breaks BUILD_MEMORY.
 */
const MAX_STAGED_LINE_BYTES = MAX_LINE_BYTES;

/** `read_json` of a staged file with the table's column types (plus the staging columns). */
function readStaged(file: string, columns: { name: string; type: string }[], leftOut: readonly number[] = []): string {
  const cols = [...columns, { name: "_src", type: "BIGINT" }, { name: "_ord", type: "BIGINT" }];
  const spec = cols.map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`).join(", ");
  const read = `read_json(${sqlString(file)}, format = 'newline_delimited', columns = {${spec}}, maximum_object_size = ${MAX_STAGED_LINE_BYTES})`;
  return leftOut.length === 0 ? read : `(SELECT * FROM ${read} WHERE _src NOT IN (${leftOut.join(", ")}))`;
}

/**
 * The SQL that builds each table from its staged file. Orders are total on each table's key, so the
 * tables (and their export) come out the same for the same logs.
 */
function buildStatements(files: Record<SqlTableName, string>, tables: SqlTable[], leftOut: readonly number[] = []): string[] {
  const def = (name: SqlTableName): SqlTable => tables.find((t) => t.name === name) as SqlTable;
  const raw = (name: SqlTableName, extra: { name: string; type: string }[] = []) => readStaged(files[name], [...def(name).columns, ...extra], leftOut);
  const list = (name: SqlTableName, prefix = ""): string =>
    def(name)
      .columns.map((c) => prefix + q(c.name))
      .join(", ");
  const scoresCol = { name: "scores", type: sqlTypeOf(TABLE_SCHEMAS.checkpoints.shape.scores) };
  const checkpointRecordCols = def("checkpoints").columns.filter((c) => !["valid", "episode", "seed", "score", "score_source"].includes(c.name));
  const cpList = (prefix: string): string => checkpointRecordCols.map((c) => prefix + q(c.name)).join(", ");
  const lastPer = (name: SqlTableName, key: string): string =>
    `CREATE TABLE ${q(name)} AS SELECT ${list(name)} FROM ${raw(name)} QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY _ord DESC) = 1 ORDER BY ${key}`;
  return [
    `CREATE TABLE runs AS SELECT ${list("runs")} FROM ${raw("runs")} ORDER BY _ord`,
    // Episodes: the last record per key, an ok one never replaced by a failed one (dataset.ts).
    `CREATE TEMP TABLE episode_winners AS SELECT * FROM ${raw("episodes")} QUALIFY row_number() OVER (PARTITION BY run_id, phase, view, checkpoint, episode ORDER BY (status = 'ok') DESC, _ord DESC) = 1`,
    `CREATE TABLE episodes AS SELECT ${list("episodes")} FROM episode_winners ORDER BY run_id, phase, view NULLS FIRST, checkpoint NULLS FIRST, episode`,
    // Steps: of recorded episodes, from the directory of the winning record; the last line per step.
    // The winners are found on the keys alone, then the rows (with their text) taken once: joining and
    // windowing whole rows moved every observation and response through the hash table (3x slower).
    `CREATE TEMP TABLE raw_steps AS SELECT * FROM ${raw("steps")}`,
    `CREATE TEMP TABLE step_winners AS SELECT s._ord FROM raw_steps s JOIN episode_winners e ON s.run_id = e.run_id AND s.phase = e.phase AND s.view IS NOT DISTINCT FROM e.view AND s.checkpoint IS NOT DISTINCT FROM e.checkpoint AND s.episode = e.episode AND s._src = e._src ` +
      `QUALIFY row_number() OVER (PARTITION BY s.run_id, s.phase, s.view, s.checkpoint, s.episode, s.step ORDER BY s._ord DESC) = 1`,
    `CREATE TABLE steps AS SELECT ${list("steps")} FROM raw_steps SEMI JOIN step_winners USING (_ord) ORDER BY run_id, phase, view NULLS FIRST, checkpoint NULLS FIRST, episode, step`,
    `DROP TABLE raw_steps`,
    `CREATE TEMP TABLE checkpoint_winners AS SELECT * FROM ${readStaged(files.checkpoints, [...checkpointRecordCols, scoresCol], leftOut)} QUALIFY row_number() OVER (PARTITION BY run_id, view, checkpoint ORDER BY (status = 'ok') DESC, _ord DESC) = 1`,
    // Checkpoints x scores: the ok evaluation episodes' scores win; else the record's own; else one empty row.
    `CREATE TABLE checkpoints AS
       WITH ew AS (SELECT run_id, view, checkpoint, episode, seed, score FROM episode_winners WHERE phase = 'eval' AND status = 'ok'),
       from_episodes AS (SELECT ${cpList("c.")}, TRUE AS valid, ew.episode, ew.seed, ew.score, 'episodes' AS score_source FROM checkpoint_winners c JOIN ew USING (run_id, view, checkpoint) WHERE c.status = 'ok'),
       have AS (SELECT DISTINCT run_id, view, checkpoint FROM from_episodes),
       rest AS (SELECT c.* FROM checkpoint_winners c ANTI JOIN have USING (run_id, view, checkpoint)),
       from_record AS (SELECT ${cpList("")}, TRUE AS valid, i AS episode, NULL::BIGINT AS seed, scores[i + 1] AS score, 'record' AS score_source FROM (SELECT *, unnest(range(len(scores))) AS i FROM rest WHERE status = 'ok')),
       empty AS (SELECT ${cpList("")}, FALSE AS valid, NULL::BIGINT AS episode, NULL::BIGINT AS seed, NULL::DOUBLE AS score, NULL::VARCHAR AS score_source FROM rest WHERE status <> 'ok' OR len(scores) = 0)
       SELECT ${list("checkpoints")} FROM (SELECT * FROM from_episodes UNION ALL SELECT * FROM from_record UNION ALL SELECT * FROM empty)
       ORDER BY run_id, view, checkpoint, episode NULLS FIRST`,
    // Calls: the copy of each run with the most calls (ties: the first directory read), file order.
    `CREATE TABLE calls AS WITH c AS (SELECT * FROM ${raw("calls")}),
       best AS (SELECT run_id, _src FROM (SELECT run_id, _src, count(*) AS n FROM c GROUP BY run_id, _src) QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY n DESC, _src) = 1)
       SELECT ${list("calls", "c.")} FROM c JOIN best USING (run_id, _src) ORDER BY c.run_id, c._ord`,
    lastPer("memory", "run_id, after_episode"),
    lastPer("curriculum", "run_id, batch"),
    lastPer("verdicts", "run_id, episode"),
  ];
}

async function duckdb(): Promise<typeof import("@duckdb/node-api")> {
  // Loaded on demand: the native library is only needed by the commands that query.
  return import("@duckdb/node-api");
}

/** Runs statements one by one on a connection. */
async function runAll(conn: DuckDBConnection, statements: readonly string[]): Promise<void> {
  for (const s of statements) await conn.run(s);
}

/**
 * The database of the data directories: the cache's, when it holds one built from exactly these
 * files (its warnings said again through `onWarning`); else validated and loaded into a new file,
 * stored in the cache when the files did not change during the load (otherwise in a temporary folder
 * removed by `remove()`). Throws the loader's LogFormatError for what it refuses outright (a data
 * directory that is not one); a run it leaves out is left out here too.
 */
export async function buildLogDatabase(dataDirs: readonly string[], opts: LogDatabaseOptions = {}): Promise<BuiltDatabase> {
  const cache = opts.cacheDir === null ? null : SqlCache.open(dataDirs, opts.cacheDir ?? cacheRoot());
  const fp = cache === null ? "" : fingerprint(dataDirs);
  // Another process building the same files (reproduce's warm-up beside its report) is waited for:
  // loading them again beside it would only slow both down.
  const hit = cache === null ? null : (cache.lookup(fp) ?? (await cache.awaitBuild(fp)));
  if (hit !== null) {
    for (const w of hit.meta.warnings) opts.onWarning?.(w);
    return { file: hit.file, warnings: hit.meta.warnings, rows: hit.meta.rows as Record<SqlTableName, number>, tables: tableDefinitions(), fromCache: true, remove: () => undefined };
  }
  let dir: string;
  try {
    if (cache === null) removeDeadBuilds(tmpdir(), "s3gym-sql-");
    dir = cache === null ? mkdtempSync(join(tmpdir(), `s3gym-sql-${process.pid}-`)) : cache.buildDir(fp);
  } catch (e) {
    throw namedWriteError(cache === null ? tmpdir() : cacheRoot(), e);
  }
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    const built = await buildInto(dir, dataDirs, opts);
    // Stored only if no file changed while it loaded: a cache never answers for files it did not read.
    const stored = cache !== null && fingerprint(dataDirs) === fp ? cache.store(dir, { dirs: cache.dirs, fingerprint: fp, warnings: built.warnings, rows: built.rows }) : null;
    if (stored !== null) return { ...built, file: stored, fromCache: false, remove: () => undefined };
    return { ...built, fromCache: false, remove };
  } catch (e) {
    remove();
    throw withTempHint(e, dir);
  }
}

/**
 * A build that ran out of room (staged files or DuckDB's own, which names no file) as a
 * WriteFailedError that says where the tables are built and how to give them room.
 */
function withTempHint(e: unknown, dir: string): unknown {
  const msg = e instanceof Error ? e.message : String(e);
  const full = e instanceof WriteFailedError ? e.code === "ENOSPC" || e.code === "EDQUOT" : /No space left on device|ENOSPC/i.test(msg);
  if (!full) return e;
  const file = e instanceof WriteFailedError ? e.file : dir;
  const detail = e instanceof WriteFailedError ? e.detail : (msg.split("\n")[0] ?? msg);
  return new WriteFailedError(
    file,
    "ENOSPC",
    `${detail}; the SQL tables are built under ${dirname(dir)} (the cache, or TMPDIR with --no-cache): free space there or set TMPDIR to a folder with room; the partial build was removed`,
  );
}

/** Validates and loads the data directories into `<dir>/logs.duckdb` (the staged files removed). */
async function buildInto(dir: string, dataDirs: readonly string[], opts: LogDatabaseOptions): Promise<Omit<BuiltDatabase, "fromCache" | "remove">> {
  const tables = tableDefinitions();
  const files = Object.fromEntries(TABLE_NAMES.map((t) => [t, join(dir, `${t}.jsonl`)])) as Record<SqlTableName, string>;
  const stage = Object.fromEntries(TABLE_NAMES.map((t) => [t, new LineSink(files[t])])) as Stage;
  const warnings: string[] = [];
  let leftOut: number[];
  try {
    leftOut = await stageRecords(
      dataDirs,
      stage,
      (m) => {
        warnings.push(m);
        opts.onWarning?.(m);
      },
      opts.frames,
    );
  } finally {
    for (const s of Object.values(stage)) s.close();
  }
  const { DuckDBInstance } = await duckdb();
  const file = join(dir, "logs.duckdb");
  const db = await DuckDBInstance.create(file, { temp_directory: join(dir, "spill"), memory_limit: BUILD_MEMORY });
  const rows = {} as Record<SqlTableName, number>;
  try {
    const conn = await db.connect();
    await runAll(conn, buildStatements(files, tables, leftOut));
    for (const t of TABLE_NAMES) rows[t] = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${q(t)}`)).getRows()[0]?.[0] ?? 0);
    await conn.run("CHECKPOINT");
    conn.closeSync();
  } finally {
    db.closeSync();
  }
  for (const t of TABLE_NAMES) rmSync(files[t], { force: true });
  rmSync(join(dir, "spill"), { recursive: true, force: true });
  return { file, warnings, rows, tables };
}

/** A query's result: column names and types, and rows as JSON values (BIGINT beyond 2^53 as text). */
export interface QueryResult {
  columns: string[];
  types: string[];
  rows: unknown[][];
}

/** The logs as a read-only database. */
export class LogDatabase {
  private constructor(
    private readonly built: BuiltDatabase,
    private readonly db: DuckDBInstance,
    private readonly conn: DuckDBConnection,
  ) {}

  /** The tables and their columns (as `--schema` prints them). */
  get tables(): SqlTable[] {
    return this.built.tables;
  }
  /** The load's warnings. */
  get warnings(): string[] {
    return this.built.warnings;
  }
  /** Whether the cache answered (sqlCache.ts): no line was read. */
  get fromCache(): boolean {
    return this.built.fromCache;
  }
  /** Rows per table. */
  get rows(): Record<SqlTableName, number> {
    return this.built.rows;
  }

  /** Opens a built database read-only, with no access to files (see the module comment). */
  static async open(built: BuiltDatabase): Promise<LogDatabase> {
    const { DuckDBInstance } = await duckdb();
    const db = await DuckDBInstance.create(built.file, { access_mode: "READ_ONLY", enable_external_access: "false", lock_configuration: "true" });
    return new LogDatabase(built, db, await db.connect());
  }

  /** Runs one query and reads the whole result. */
  async query(sql: string): Promise<QueryResult> {
    const r = await this.conn.runAndReadAll(sql);
    return { columns: r.columnNames(), types: r.columnTypes().map(String), rows: r.getRowsJson() as unknown[][] };
  }

  /**
   * Runs one query and returns its result as plain columns (the notebooks' `showColumns`, a danfojs
   * `new DataFrame(cols)`): integers as numbers where they fit a double, lists and structs as JSON text.
   */
  async columns(sql: string): Promise<Columns> {
    const r = await this.query(sql);
    const cols: Columns = Object.fromEntries(r.columns.map((c) => [c, []]));
    r.rows.forEach((row) =>
      r.columns.forEach((c, i) => {
        const v = row[i];
        const n = typeof v === "string" && /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UBIGINT|UINTEGER)$/.test(r.types[i] as string) ? Number(v) : null;
        (cols[c] as unknown[]).push(n !== null && Number.isSafeInteger(n) ? n : v !== null && typeof v === "object" ? JSON.stringify(v) : v);
      }),
    );
    return cols;
  }

  /** Runs one query and yields its rows chunk by chunk (for results too large to hold); at least one chunk. */
  async *stream(sql: string): AsyncGenerator<{ columns: string[]; types: string[]; rows: unknown[][] }> {
    const r = await this.conn.stream(sql);
    const columns = r.columnNames();
    const types = r.columnTypes().map(String);
    let any = false;
    for await (const rows of r.yieldRowsJson()) {
      any = true;
      yield { columns, types, rows: rows as unknown[][] };
    }
    // An empty result still has its columns.
    if (!any) yield { columns, types, rows: [] };
  }

  close(): void {
    this.conn.closeSync();
    this.db.closeSync();
    this.built.remove();
  }
}

/** Loads the data directories and opens them read-only: the caller must `close()` it. */
export async function openLogDatabase(dataDirs: readonly string[], opts: LogDatabaseOptions = {}): Promise<LogDatabase> {
  const built = await buildLogDatabase(dataDirs, opts);
  try {
    return await LogDatabase.open(built);
  } catch (e) {
    built.remove();
    throw e;
  }
}

export type ExportFormat = "parquet" | "csv";

/** What `exportTables` wrote. */
export interface ExportResult {
  /** Paths written, schema.json last. */
  files: string[];
  rows: Record<SqlTableName, number>;
  warnings: string[];
}

/** The schema.json of an export: tables, their files, rows and described columns (no paths, no times). */
export function exportSchema(tables: SqlTable[], rows: Record<SqlTableName, number>, format: ExportFormat): string {
  const out = {
    format,
    compression: format === "parquet" ? "zstd" : null,
    source: "s3gym logs (src/logs/schema.ts); rows validated and deduplicated as `s3gym report` reads them",
    tables: tables.map((t) => ({ name: t.name, file: `${t.name}.${format}`, rows: rows[t.name], description: t.description, columns: t.columns })),
  };
  return JSON.stringify(out, null, 2) + "\n";
}

/**
 * A text column of a CSV export neutralised against spreadsheet formulas, as src/util/escape/csv.ts
 * does for every other CSV: a value starting with `=`, `+`, `-`, `@`, tab or CR that is not a plain
 * number gets a leading `'`. Parquet keeps the text as it is.
 */
function csvFormulaSafe(col: string): string {
  return `CASE WHEN regexp_matches(${col}, '^[=+@\t\r-]') AND NOT regexp_matches(${col}, '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN '''' || ${col} ELSE ${col} END AS ${col}`;
}

/**
 * Writes every table of the data directories as `<out>/<table>.parquet` (zstd) or `.csv`, plus
 * `<out>/schema.json`. The same logs give the same bytes (fixed row orders; one writer thread).
 * CSV has no nested types: LIST, STRUCT and JSON columns are written as their JSON text.
 */
export async function exportTables(dataDirs: readonly string[], out: string, format: ExportFormat, opts: LogDatabaseOptions = {}): Promise<ExportResult> {
  const built = await buildLogDatabase(dataDirs, opts);
  try {
    mkdirSync(out, { recursive: true });
    removeDeadExportTemps(out);
    const { DuckDBInstance } = await duckdb();
    const db = await DuckDBInstance.create(built.file, { access_mode: "READ_ONLY", threads: "1" });
    let rel: string[];
    try {
      const conn = await db.connect();
      // The tables and schema.json are written into a staging folder, then put in place as one set
      // (src/util/fileSet.ts, as report does): a killed export leaves the previous export whole,
      // never new tables beside old ones under the old schema.json.
      rel = await replaceFileSet(
        out,
        "export",
        async (stage) => {
          const names: string[] = [];
          for (const t of built.tables) {
            const name = `${t.name}.${format}`;
            const cols = t.columns
              .map((c) =>
                format === "csv" && /\[\]$|^STRUCT|^JSON$/.test(c.type)
                  ? `to_json(${q(c.name)})::VARCHAR AS ${q(c.name)}`
                  : format === "csv" && c.type === "VARCHAR"
                    ? csvFormulaSafe(q(c.name))
                    : q(c.name),
              )
              .join(", ");
            const options = format === "parquet" ? "FORMAT parquet, COMPRESSION zstd" : "FORMAT csv, HEADER true";
            try {
              await conn.run(`COPY (SELECT ${cols} FROM ${q(t.name)}) TO ${sqlString(join(stage, name))} (${options})`);
            } catch (e) {
              // DuckDB's message for a full disk names no file: say which one and why.
              const msg = (e as Error).message;
              const code = /No space left|ENOSPC/i.test(msg) ? "ENOSPC" : undefined;
              throw code !== undefined ? new WriteFailedError(join(out, name), code, msg.split("\n")[0] ?? msg) : e;
            }
            names.push(name);
          }
          writeFileAtomic(join(stage, "schema.json"), exportSchema(built.tables, built.rows, format));
          names.push("schema.json");
          return names;
        },
        () => previousExport(out),
      );
      conn.closeSync();
    } finally {
      db.closeSync();
    }
    return { files: rel.map((f) => join(out, f)), rows: built.rows, warnings: built.warnings };
  } finally {
    built.remove();
  }
}

/** The files a previous export wrote in `out` (any format): what a new export replaces or removes. */
function previousExport(out: string): string[] {
  const names = new Set([...TABLE_NAMES.flatMap((t) => [`${t}.parquet`, `${t}.csv`]), "schema.json"]);
  return readdirSync(out).filter((f) => names.has(f));
}

/** Temporaries `.<table>.<format>.tmp-<pid>` that exports of earlier versions, killed, left behind. */
function removeDeadExportTemps(out: string): void {
  for (const f of readdirSync(out)) {
    const m = /^\.[a-z_]+\.(?:parquet|csv)\.tmp-(\d+)$/.exec(f);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid !== process.pid && pidIsAlive(pid)) continue;
    rmSync(join(out, f), { force: true });
  }
}
