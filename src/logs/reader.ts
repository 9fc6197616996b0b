/**
 * The streaming, validating, tolerant reader of step logs (logs.md, "Reading").
 *
 * - Streams: files are read line by line (readline), so no file is ever held whole in memory; callers
 *   decide what to keep of each record (the analysis keeps a few numbers per step, never the text).
 * - Validates every line against the zod schema of its file (schema.ts); an error names the file, the
 *   line and the field.
 * - Tolerates a torn LAST line (a crash mid-write): it is reported through `onWarning` and skipped. An
 *   unparsable line elsewhere (a short write on a full disk under an older kit) is skipped with a
 *   warning too; a line that parses but breaks the schema is an error naming file, line and field.
 * - Merges several data directories (shards written with `--shard i/n`, or copies of the same runs):
 *   `discoverRuns` lists the run directories of all of them; merging records of one run that appear in
 *   several places is the caller's job (the analysis deduplicates by natural keys, so it is idempotent).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { z } from "zod";
import { JsonlSyntaxError, readJsonlLines, type TornLine } from "../util/jsonl.js";
import { readRegularText, UnreadableFileError } from "../util/regularFile.js";
import { fastCheckOf } from "../util/zodFastCheck.js";
import { firstIssue } from "../util/zodIssues.js";
import { CallRecord, VerdictRecord, CheckpointRecord, EpisodeRecord, MemoryRecord, RUN_FILES, RunManifest, StepRecord } from "./schema.js";
import { manifestPath, runFile, runsDir, shardDirsUnder } from "./runDir.js";

/** A log line (or file) that does not match the schema. `line` is 1-based; 0 for whole-file problems. */
export class LogFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    /** The offending field's path (`reward`, `scores.2`), `(line)` for unparsable JSON, `(file)` for file problems. */
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${file}${line > 0 ? `:${line}` : ""}: ${field === "(file)" ? "" : `field '${field}': `}${detail}`);
    this.name = "LogFormatError";
  }
}

/** Something the reader tolerated (a torn last line) and the user should hear about. */
export interface ReadWarning {
  file: string;
  line: number;
  message: string;
}

export interface ReadOptions {
  /** Called for every tolerated problem; default: ignore (the loader collects them). */
  onWarning?: (w: ReadWarning) => void;
  /**
   * Told about a line that parses but breaks the schema, which is then skipped; absent: such a line
   * throws LogFormatError. For files no metric reads, where one bad line need not cost the run.
   */
  onInvalid?: (e: LogFormatError) => void;
  /**
   * The data directory the files belong to: a file that is a symbolic link is read only when its
   * target lies inside it (default: the file's own run directory). Whatever the folder, only regular
   * files are read (src/util/regularFile.ts).
   */
  within?: string;
  /**
   * Hand on each valid record as its line parsed, not as zod's copy of it: for callers that read
   * fields by name only (the analysis loader). zod's copy puts the keys in schema order and drops
   * unknown keys of nested objects; nothing such a caller reads differs. A line passes without zod
   * only when the schema's compiled check (src/util/zodFastCheck.ts) accepts it, which it does only
   * for records zod accepts; every other line gets zod's verdict and error, as without this option.
   */
  asWritten?: boolean;
}

/** A validated record and the 1-based line it came from. */
export interface Numbered<T> {
  value: T;
  line: number;
}

/** A JsonlSyntaxError of the line reader as the reader's own error (file, line, field). */
function asLogFormatError(e: unknown): unknown {
  if (e instanceof UnreadableFileError) return new LogFormatError(e.file, 0, "(file)", e.detail);
  return e instanceof JsonlSyntaxError ? new LogFormatError(e.file, e.line, "(line)", e.detail) : e;
}

/**
 * Streams the records of one JSONL file, each validated by `schema`.
 * Contract (src/util/jsonl.ts): yields every complete valid line in file order with its line number;
 * skips blank lines; throws LogFormatError (file, line, field) on the first invalid line, except that
 * an unparsable LAST non-blank line is taken for a torn write: it is reported through `onWarning` and
 * not yielded, and that a line breaking the schema is handed to `onInvalid` and skipped when it is given.
 */
export async function* readJsonl<S extends z.ZodType>(file: string, schema: S, opts: ReadOptions = {}): AsyncGenerator<Numbered<z.infer<S>>> {
  yield* readJsonlSync(file, schema, opts);
}

/**
 * readJsonl as a synchronous generator (the file is read with readSync anyway): what readRunDir
 * iterates, without a promise per line.
 */
export function* readJsonlSync<S extends z.ZodType>(file: string, schema: S, opts: ReadOptions = {}): Generator<Numbered<z.infer<S>>> {
  const onTorn = (t: TornLine) => opts.onWarning?.({ file, line: t.line, message: `torn last line ignored (${t.detail})` });
  const onDamaged = (t: TornLine) =>
    opts.onWarning?.({
      file,
      line: t.line,
      message: `damaged line left out (${t.detail}; a write cut short, e.g. on a full disk): rerunning the run's command moves it to ${basename(file)}.damaged and plays its episode again`,
    });
  // zod's parse copied every record of every line (a tenth of a report's CPU); the compiled check allocates nothing.
  const check = opts.asWritten === true ? fastCheckOf(schema) : null;
  try {
    for (const { json, line } of readJsonlLines(file, { onTorn, onDamaged, ...(opts.within !== undefined ? { within: opts.within } : {}) })) {
      if (check !== null && check(json)) {
        yield { value: json as z.infer<S>, line };
        continue;
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        const { field, detail } = firstIssue(parsed.error);
        const err = new LogFormatError(file, line, field, detail);
        if (opts.onInvalid === undefined) throw err;
        opts.onInvalid(err);
        continue;
      }
      yield { value: parsed.data, line };
    }
  } catch (e) {
    throw asLogFormatError(e);
  }
}

/** A validated line of a run file and its raw text (what a resume rewrite writes back). */
export interface RunFileLine<T> {
  line: number;
  raw: string;
  /** The line's JSON as written (extra fields kept), checked against the schema. */
  value: T;
}

/** A line resume takes out of a run file (kept, verbatim, in `<file>.damaged`). */
export interface DamagedLine {
  line: number;
  raw: string;
  /** Why: the JSON error, or the field the schema refused. */
  detail: string;
}

/**
 * Reads a whole run file synchronously, for resume and replay: the complete valid lines in order,
 * and whether a torn last line was left out. Stricter than `readJsonl` about the end: a last line
 * without its newline counts as torn even if it parses, because resume appends after it. A missing
 * file reads as empty. Throws LogFormatError naming the file, the line and the field, unless
 * `damaged` is given: then every bad line (unparsable or off-schema) is handed to it and left out,
 * so that resume can quarantine it and play its episode again instead of refusing the run.
 */
export function readRunFile<S extends z.ZodTypeAny>(path: string, schema: S, opts: { damaged?: (d: DamagedLine) => void } = {}): { lines: RunFileLine<z.infer<S>>[]; torn: boolean } {
  const lines: RunFileLine<z.infer<S>>[] = [];
  let torn = false;
  if (!existsSync(path)) return { lines, torn };
  const damaged = opts.damaged;
  try {
    const read = readJsonlLines(path, {
      unterminatedIsTorn: true,
      onTorn: () => (torn = true),
      ...(damaged ? { onDamaged: (t: TornLine & { text: string }) => damaged({ line: t.line, raw: t.text, detail: t.detail }) } : {}),
    });
    // The value kept is the line as parsed either way: zod is asked only where the compiled check is not sure.
    const check = fastCheckOf(schema);
    for (const { json, line, text } of read) {
      const parsed = check !== null && check(json) ? null : schema.safeParse(json);
      if (parsed !== null && !parsed.success) {
        const { field, detail } = firstIssue(parsed.error);
        if (!damaged) throw new LogFormatError(path, line, field, detail);
        damaged({ line, raw: text, detail: `field '${field}': ${detail}` });
        continue;
      }
      lines.push({ line, raw: text, value: json as z.infer<S> });
    }
  } catch (e) {
    throw asLogFormatError(e);
  }
  return { lines, torn };
}

/** Reads and validates a JSON file (manifest.json). Throws LogFormatError naming the file and field. */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, within?: string): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(readRegularText(file, within !== undefined ? { within } : { within: dirname(file) }));
  } catch (e) {
    if (e instanceof UnreadableFileError) throw asLogFormatError(e);
    throw new LogFormatError(file, 0, "(file)", `invalid JSON (${(e as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const { field, detail } = firstIssue(parsed.error);
    throw new LogFormatError(file, 0, field, detail);
  }
  return parsed.data;
}

/** The data directory of a run directory: `<data>` for `<data>/runs/<run>`, else the run directory itself (a run given alone). */
export function dataDirOf(runDir: string): string {
  const parent = dirname(resolve(runDir));
  return basename(parent) === "runs" ? dirname(parent) : resolve(runDir);
}

/** One run directory found under a data directory. */
export interface RunLocation {
  /** The data directory given by the user (resolved). */
  dataDir: string;
  /** `<dataDir>/runs/<name>` (resolved). */
  runDir: string;
  /** The directory name (normally the run_id; the records' run_id is authoritative). */
  name: string;
}

/**
 * Lists the run directories of one or more data directories, in the order given and by name within
 * each. A data directory holds `runs/<run_id>/`; a directory that is itself a run (it has steps.jsonl)
 * is accepted too, so one run can be analysed alone. Throws a one-line error for a directory that is
 * neither. The same directory given twice is listed once.
 */
export function discoverRuns(dataDirs: readonly string[], onSkipped?: (message: string) => void): RunLocation[] {
  const out: RunLocation[] = [];
  const seen = new Set<string>();
  for (const given of dataDirs) {
    const dataDir = resolve(given);
    if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) {
      // A first user's usual case: nothing has been run yet. Say which command writes a data directory.
      throw new LogFormatError(
        given,
        0,
        "(file)",
        "data directory not found (write one first: 'npm run reproduce' writes data/, 'npm run reproduce -- --quick' writes data/quick, 's3gym run ... --data DIR' writes DIR)",
      );
    }
    const runsFolder = runsDir(dataDir);
    let candidates: RunLocation[];
    if (existsSync(runsFolder) && statSync(runsFolder).isDirectory()) {
      const entries = readdirSync(runsFolder, { withFileTypes: true });
      // A run directory that is a symbolic link is not followed (it may lead anywhere): said, not silently skipped.
      for (const d of entries) {
        if (d.isSymbolicLink())
          onSkipped?.(`${join(runsFolder, d.name)}: a symbolic link, not a run directory: left out (copy the run into ${runsFolder}, or give the directory it points into as another --data)`);
      }
      candidates = entries
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
        .map((name) => ({ dataDir, runDir: join(runsFolder, name), name }));
    } else if (existsSync(runFile(dataDir, "steps"))) {
      candidates = [{ dataDir, runDir: dataDir, name: dataDir.split(/[\\/]/).pop() ?? dataDir }];
    } else {
      const shards = shardDirsUnder(dataDir);
      const hint =
        shards.length > 0
          ? `; it holds shard directories: give each, e.g. ${shards
              .slice(0, 2)
              .map((d) => `--data ${d}`)
              .join(" ")}${shards.length > 2 ? " ..." : ""} (s3gym status --data ${given} lists them)`
          : "";
      throw new LogFormatError(given, 0, "(file)", `no runs/ folder (expected <data>/runs/<run_id>/steps.jsonl)${hint}`);
    }
    for (const c of candidates) {
      if (seen.has(c.runDir)) continue;
      seen.add(c.runDir);
      out.push(c);
    }
  }
  return out;
}

/**
 * A manifest read field by field: the fields that validate, and the ones that did not (missing or
 * invalid), each named. logs.md requires only the three JSONL files; a manifest written by another
 * tool or by hand may lack the kit's own fields, and the analysis uses what it can.
 */
export interface LenientManifest {
  /** The fields that validated against RunManifest's schema (unknown extra fields are kept as is). */
  fields: Partial<RunManifest>;
  /** `field (why)` for every schema field that is missing or invalid; empty when the manifest is complete. */
  problems: string[];
}

/**
 * Reads manifest.json leniently (see LenientManifest): never throws for its content. Unparsable JSON
 * or a non-object gives no fields and one problem.
 */
export function readManifestLenient(file: string, within?: string): LenientManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readRegularText(file, { within: within ?? dirname(file) }));
  } catch (e) {
    if (e instanceof UnreadableFileError) return { fields: {}, problems: [`(file) (${e.detail})`] };
    return { fields: {}, problems: [`(file) (invalid JSON: ${(e as Error).message})`] };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { fields: {}, problems: ["(file) (not a JSON object)"] };
  const rec = raw as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  const problems: string[] = [];
  const shape = RunManifest.shape as Record<string, z.ZodType>;
  for (const [key, value] of Object.entries(rec)) if (!(key in shape)) fields[key] = value;
  for (const [key, schema] of Object.entries(shape)) {
    const parsed = schema.safeParse(rec[key]);
    if (parsed.success) {
      if (parsed.data !== undefined) fields[key] = parsed.data;
    } else {
      problems.push(`${key} (${key in rec ? (parsed.error.issues[0]?.message ?? "invalid") : "missing"})`);
    }
  }
  return { fields: fields as Partial<RunManifest>, problems };
}

/** What a caller wants from each file of a run; a missing callback means the file is not read. */
export interface RunVisitor {
  /** The manifest, strictly validated (a LogFormatError names the first bad field). */
  manifest?: (m: RunManifest, file: string) => void;
  /** The manifest read field by field instead (used by the analysis: a manifest never stops a report). */
  manifestLenient?: (m: LenientManifest, file: string) => void;
  checkpoint?: (r: CheckpointRecord, file: string, line: number) => void;
  episode?: (r: EpisodeRecord, file: string, line: number) => void;
  step?: (r: StepRecord, file: string, line: number) => void;
  memory?: (r: MemoryRecord, file: string, line: number) => void;
  call?: (r: CallRecord, file: string, line: number) => void;
  /** Verified runs: verdicts.jsonl, when present. */
  verdict?: (r: VerdictRecord, file: string, line: number) => void;
}

/**
 * Streams one run directory through a visitor, in a fixed order: manifest, checkpoints, episodes,
 * steps, memory, calls (so a caller knows every episode's status before it sees the steps).
 * steps.jsonl, episodes.jsonl and checkpoints.jsonl are required (a missing one is a LogFormatError);
 * manifest.json, memory.jsonl and calls.jsonl are read only when present and wanted.
 */
export async function readRunDir(runDir: string, visitor: RunVisitor, givenOpts: ReadOptions = {}): Promise<void> {
  const opts: ReadOptions = { ...givenOpts, within: givenOpts.within ?? dataDirOf(runDir) };
  for (const f of [RUN_FILES.steps.file, RUN_FILES.episodes.file, RUN_FILES.checkpoints.file]) {
    if (!existsSync(join(runDir, f))) throw new LogFormatError(join(runDir, f), 0, "(file)", "missing required file");
  }
  const manifestFile = manifestPath(runDir);
  if (visitor.manifest && existsSync(manifestFile)) visitor.manifest(readJsonFile(manifestFile, RunManifest, opts.within), manifestFile);
  if (visitor.manifestLenient && existsSync(manifestFile)) visitor.manifestLenient(readManifestLenient(manifestFile, opts.within), manifestFile);

  async function each<S extends z.ZodType>(file: string, schema: S, fn: ((r: z.infer<S>, file: string, line: number) => void) | undefined, optional: boolean): Promise<void> {
    if (fn === undefined) return;
    const path = join(runDir, file);
    if (optional && !existsSync(path)) return;
    for (const { value, line } of readJsonlSync(path, schema, opts)) fn(value, path, line);
  }
  await each(RUN_FILES.checkpoints.file, CheckpointRecord, visitor.checkpoint, false);
  await each(RUN_FILES.episodes.file, EpisodeRecord, visitor.episode, false);
  await each(RUN_FILES.steps.file, StepRecord, visitor.step, false);
  await each(RUN_FILES.memory.file, MemoryRecord, visitor.memory, true);
  await each(RUN_FILES.calls.file, CallRecord, visitor.call, true);
  await each(RUN_FILES.verdicts.file, VerdictRecord, visitor.verdict, true);
}

/** Every record of one run directory as plain arrays: for small data, tests and notebooks. */
export interface RunRecords {
  runDir: string;
  manifest: RunManifest | null;
  steps: StepRecord[];
  episodes: EpisodeRecord[];
  checkpoints: CheckpointRecord[];
  memory: MemoryRecord[];
  calls: CallRecord[];
}

/**
 * Reads one run directory whole into typed arrays (validated, torn last lines skipped and reported).
 * Holds everything in memory: use it for one run or a small data set, never for a paper-scale matrix.
 */
export async function readRunRecords(runDir: string, opts: ReadOptions & { strictManifest?: boolean } = {}): Promise<RunRecords> {
  const out: RunRecords = { runDir, manifest: null, steps: [], episodes: [], checkpoints: [], memory: [], calls: [] };
  const { strictManifest, ...readOpts } = opts;
  await readRunDir(
    runDir,
    {
      // strictManifest false: the manifest is not read (the caller reads it on its own terms).
      ...(strictManifest === false ? {} : { manifest: (m: RunManifest) => (out.manifest = m) }),
      checkpoint: (r) => out.checkpoints.push(r),
      episode: (r) => out.episodes.push(r),
      step: (r) => out.steps.push(r),
      memory: (r) => out.memory.push(r),
      call: (r) => out.calls.push(r),
    },
    readOpts,
  );
  return out;
}

/**
 * What a load of `dataDirs` depends on: every file of every run directory, as `path size mtimeMs`, in
 * listing order (one stat per file, no reading). Two equal lists mean no file changed in between.
 */
export function runFileStamps(dataDirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const loc of discoverRuns(dataDirs)) {
    for (const name of readdirSync(loc.runDir).sort()) {
      const path = join(loc.runDir, name);
      const st = statSync(path);
      out.push(`${path} ${st.size} ${st.mtimeMs}`);
    }
  }
  return out;
}

/**
 * Whether `loaded` (a Dataset's or a snapshot's source: its directories and their `runFileStamps`
 * taken before the load) still describes `dataDirs`: the same directories in the same order, and no
 * file under their runs added, removed or changed since. False when a directory cannot be listed.
 */
export function loadStillCurrent(loaded: { dirs: readonly string[]; stamps: readonly string[] }, dataDirs: readonly string[]): boolean {
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
  if (!same(loaded.dirs, dataDirs)) return false;
  try {
    return same(runFileStamps(dataDirs), loaded.stamps);
  } catch {
    return false;
  }
}
