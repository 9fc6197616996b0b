/**
 * The named tables of the logs (logs.md, "Tables for analysis"): their columns, SQL types and
 * descriptions, derived from the zod schemas of src/logs/schema.ts, the one source. A field added
 * there (with its comment) appears here as a column with its description, with no second list.
 *
 * Types: a string or enum is VARCHAR, an integer number BIGINT, any other number DOUBLE, a boolean
 * BOOLEAN, an array a LIST of its element, an object a STRUCT of its declared fields, and anything
 * open (a record of free keys, `unknown`) JSON. Optional and nullable fields are nullable columns.
 *
 * Descriptions are the JSDoc comments of schema.ts, read from the schema module's own file (the
 * built kit keeps its comments): a field's own comment in its record; otherwise the comment of the
 * same field in the shared identity block, or elsewhere in the file (EpisodeRecord's `phase` reads
 * StepRecord's). Only the few columns the tables compute (the checkpoints' per-seed scores, the runs'
 * counts) are described here, by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { CallRecord, CheckpointRecord, CurriculumRecord, EpisodeRecord, MemoryRecord, RunManifest, StepRecord, VerdictRecord } from "../../logs/schema.js";

/** One column of a table. */
export interface SqlColumn {
  name: string;
  /** The DuckDB type, e.g. `BIGINT`, `VARCHAR[]`, `STRUCT("a" DOUBLE)`, `JSON`. */
  type: string;
  /** What it holds (the field's comment in schema.ts, or the computed column's description). */
  description: string;
}

/** One named table. */
export interface SqlTable {
  name: SqlTableName;
  /** One line: what a row is and how duplicates were resolved. */
  description: string;
  columns: SqlColumn[];
}

export const TABLE_NAMES = ["runs", "episodes", "steps", "checkpoints", "calls", "memory", "curriculum", "verdicts"] as const;
export type SqlTableName = (typeof TABLE_NAMES)[number];

type Def = { type?: string; innerType?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType> };
const defOf = (s: z.ZodType): Def => (s as unknown as { def: Def }).def;

/** The DuckDB type of a zod schema (see the module comment). */
export function sqlTypeOf(schema: z.ZodType): string {
  const d = defOf(schema);
  switch (d.type) {
    case "optional":
    case "nullable":
    case "default":
      return sqlTypeOf(d.innerType as z.ZodType);
    case "string":
    case "enum":
    case "literal":
      return "VARCHAR";
    case "number":
      return (schema as unknown as { isInt?: boolean }).isInt === true ? "BIGINT" : "DOUBLE";
    case "boolean":
      return "BOOLEAN";
    case "array":
      return `${sqlTypeOf(d.element as z.ZodType)}[]`;
    case "object":
      return `STRUCT(${Object.entries(d.shape ?? {})
        .map(([k, v]) => `"${k}" ${sqlTypeOf(v)}`)
        .join(", ")})`;
    default:
      return "JSON";
  }
}

/**
 * A value shaped for its column: an object keeps only its declared fields (recursively; a STRUCT has
 * no place for others); an open value (JSON column) is kept whole.
 */
export function conform(schema: z.ZodType, value: unknown): unknown {
  return conformerOf(schema)(value);
}

type Conformer = (value: unknown) => unknown;
const conformers = new WeakMap<z.ZodType, Conformer>();

/**
 * `conform` compiled for one schema: its definition is read once, not on every value (the SQL tables
 * shape every record of every log, and walking the definition per record was a tenth of their load).
 */
export function conformerOf(schema: z.ZodType): Conformer {
  let c = conformers.get(schema);
  if (c === undefined) conformers.set(schema, (c = compileConformer(schema)));
  return c;
}

function compileConformer(schema: z.ZodType): Conformer {
  const d = defOf(schema);
  switch (d.type) {
    case "optional":
    case "nullable":
    case "default":
      return conformerOf(d.innerType as z.ZodType);
    case "array": {
      const element = conformerOf(d.element as z.ZodType);
      return (value) => (value === undefined || value === null ? null : Array.isArray(value) ? value.map((v) => element(v)) : null);
    }
    case "object": {
      const fields = Object.entries(d.shape ?? {}).map(([k, s]) => [k, conformerOf(s)] as const);
      return (value) => {
        if (value === undefined || value === null || typeof value !== "object") return null;
        const out: Record<string, unknown> = {};
        for (const [k, f] of fields) out[k] = f((value as Record<string, unknown>)[k]);
        return out;
      };
    }
    case "string":
    case "enum":
    case "literal":
    case "number":
    case "boolean":
    default:
      return (value) => (value === undefined || value === null ? null : value);
  }
}

/** `const name -> field -> [indent, comment]` from the text of schema.ts. */
type Comments = Map<string, Map<string, { indent: number; text: string }>>;

/**
 * Reads the JSDoc comment right above (or on the same line before) each `field:` of schema.ts, per
 * top-level `const`. Linear in the file; keeps, per const and field, the least indented occurrence
 * (the record's own field, not a nested object's).
 */
export function parseSchemaComments(source: string): Comments {
  const out: Comments = new Map();
  let current = "";
  let pending: string | null = null;
  let open: string[] | null = null;
  const record = (field: string, indent: number, text: string): void => {
    let m = out.get(current);
    if (m === undefined) out.set(current, (m = new Map()));
    const prev = m.get(field);
    if (prev === undefined || indent < prev.indent) m.set(field, { indent, text });
  };
  const clean = (s: string): string => s.replace(/^\s*\*\s?/, "").trim();
  for (const line of source.split("\n")) {
    const top = /^(?:export )?const (\w+)/.exec(line);
    if (top) {
      current = top[1] as string;
      pending = null;
    }
    if (open !== null) {
      const end = line.indexOf("*/");
      if (end < 0) {
        open.push(clean(line));
        continue;
      }
      open.push(clean(line.slice(0, end)));
      pending = open.filter((s) => s.length > 0).join(" ");
      open = null;
      continue;
    }
    const trimmed = line.trimStart();
    const indent = line.length - trimmed.length;
    const inline = /^\/\*\*(.*?)\*\/\s*(\w+):/.exec(trimmed);
    if (inline) {
      record(inline[2] as string, indent, (inline[1] as string).trim());
      pending = null;
      continue;
    }
    if (trimmed.startsWith("/**")) {
      const end = trimmed.indexOf("*/");
      if (end >= 0) pending = trimmed.slice(3, end).trim();
      else open = [clean(trimmed.slice(3))];
      continue;
    }
    const field = /^(\w+):\s*\S/.exec(trimmed);
    if (field && pending !== null) record(field[1] as string, indent, pending);
    pending = null;
  }
  return out;
}

/** The text of schema.ts: the source under tsx and the tests, the built module (comments kept) under dist/. */
function schemaSource(): string {
  for (const ext of ["ts", "js"]) {
    const file = fileURLToPath(new URL(`../../logs/schema.${ext}`, import.meta.url));
    if (existsSync(file)) return readFileSync(file, "utf8");
  }
  throw new Error("cannot find src/logs/schema.ts (or dist/logs/schema.js) beside the kit: the tables' column descriptions are its comments; reinstall or rebuild the kit");
}

let cachedComments: Comments | null = null;

/** A field's description: its own const's comment, then the identity block's, then any other's. */
function describe(comments: Comments, constName: string, field: string): string {
  const own = comments.get(constName)?.get(field);
  if (own) return own.text;
  const shared = comments.get("identity")?.get(field);
  if (shared) return shared.text;
  let best: { indent: number; text: string } | undefined;
  for (const m of comments.values()) {
    const c = m.get(field);
    if (c && (best === undefined || c.indent < best.indent)) best = c;
  }
  return best?.text ?? "";
}

/** The columns of a record schema, in its field order (less `omit`), typed and described. */
function columnsOf(constName: string, schema: z.ZodObject, omit: readonly string[] = []): SqlColumn[] {
  cachedComments ??= parseSchemaComments(schemaSource());
  const comments = cachedComments;
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([name]) => !omit.includes(name))
    .map(([name, s]) => ({ name, type: sqlTypeOf(s), description: describe(comments, constName, name) }));
}

/** What `view` means in every table: normalised so that a GROUP BY sees `eval` rather than null. */
const VIEW_NORMALISED = "The evaluation view of an eval record: `eval`, `id` or `replay` (absent in the log = `eval`); null on exploration records.";

function withView(cols: SqlColumn[]): SqlColumn[] {
  return cols.map((c) => (c.name === "view" ? { ...c, description: VIEW_NORMALISED } : c));
}

/** Columns the runs table computes from the loader (beside the manifest's fields). */
export const RUN_COUNT_COLUMNS: SqlColumn[] = [
  { name: "has_manifest", type: "BOOLEAN", description: "Whether a manifest.json was found (the manifest's columns are null without one, or where a field did not validate: see the warnings)." },
  { name: "n_sources", type: "BIGINT", description: "Run directories the run's records came from (more than one when shards or copies overlap)." },
  { name: "n_checkpoints", type: "BIGINT", description: "Checkpoints of the `eval` view recorded (after deduplication)." },
  { name: "n_valid_checkpoints", type: "BIGINT", description: "Of those, the valid ones: status ok with at least one evaluation score." },
  { name: "n_steps", type: "BIGINT", description: "Steps the report counts (exploration + evaluation; `s3gym report`'s counts)." },
  { name: "n_explore_steps", type: "BIGINT", description: "Exploration steps the report counts (judged runs: after deduplication, ok episodes only)." },
  { name: "n_eval_steps", type: "BIGINT", description: "Evaluation step lines of the `eval` view read." },
  { name: "n_episodes", type: "BIGINT", description: "Episodes after deduplication (exploration + evaluation of the `eval` view)." },
  { name: "left_out_steps", type: "BIGINT", description: "Exploration steps the report left out: their episode failed or never got a record (judged runs)." },
];

/** Columns the checkpoints table computes: one row per checkpoint x evaluation score. */
const CHECKPOINT_SCORE_COLUMNS: SqlColumn[] = [
  { name: "valid", type: "BOOLEAN", description: "Status ok and at least one evaluation score: only a valid checkpoint has a value y(x) (metrics.md)." },
  {
    name: "episode",
    type: "BIGINT",
    description: "The evaluation episode of this score (0..N_eval-1); from the record's `scores` (see score_source), the score's position. Null on the one row of a checkpoint without scores.",
  },
  { name: "seed", type: "BIGINT", description: "The evaluation seed of this score (what the bootstrap draws); null when the score came from the record alone, and on a checkpoint without scores." },
  { name: "score", type: "DOUBLE", description: "The evaluation episode score y of an ok evaluation episode; null on the one row of a checkpoint without scores (failed, or ok with none)." },
  {
    name: "score_source",
    type: "VARCHAR",
    description: "`episodes` (episodes.jsonl, which wins, as in the report), `record` (only the checkpoint record's `scores`: hand-written or converted logs) or null (no score).",
  },
];

const IDENTITY = ["run_id", "model", "game", "pathway"] as const;

/** Every table, its description and columns (schema.ts decides the logged ones). */
export function tableDefinitions(): SqlTable[] {
  const manifest = columnsOf("RunManifest", RunManifest).filter((c) => !(IDENTITY as readonly string[]).includes(c.name));
  const identity = columnsOf("StepRecord", StepRecord).filter((c) => (IDENTITY as readonly string[]).includes(c.name));
  return [
    {
      name: "runs",
      description:
        "One row per run (run_id): identity from its records, the manifest's fields (protocol settings in `config`, status, usage), and the report's counts. Ordered by game, model, pathway, run_id.",
      columns: [...identity, ...manifest, ...RUN_COUNT_COLUMNS],
    },
    {
      name: "episodes",
      description: "One row per episode (run_id, phase, view, checkpoint, episode): the last record of each wins, except that an ok record is never replaced by a failed one (as the report's loader).",
      columns: withView(columnsOf("EpisodeRecord", EpisodeRecord)),
    },
    {
      name: "steps",
      description: "One row per step of a recorded episode, from the run directory holding the episode's winning record; a repeated step (a resumed run) keeps its last line.",
      columns: withView(columnsOf("StepRecord", StepRecord)),
    },
    {
      name: "checkpoints",
      description:
        "One row per run x view x checkpoint x evaluation score (the scores of its ok evaluation episodes, as the report uses them); a checkpoint without scores has one row with a null score. The checkpoint record: the last one wins, an ok one never replaced by a failed one.",
      columns: [...withView(columnsOf("CheckpointRecord", CheckpointRecord, ["scores"])), ...CHECKPOINT_SCORE_COLUMNS],
    },
    {
      name: "calls",
      description: "One row per model call (calls.jsonl), from the copy of each run holding the most calls (the audit log only grows), in file order.",
      columns: withView(columnsOf("CallRecord", CallRecord)),
    },
    {
      name: "memory",
      description: "Memory and verified runs: one row per memory version (run_id, after_episode), the last line winning.",
      columns: columnsOf("MemoryRecord", MemoryRecord),
    },
    {
      name: "curriculum",
      description: "Verified runs: one row per curriculum decision (run_id, batch), the last line winning.",
      columns: columnsOf("CurriculumRecord", CurriculumRecord),
    },
    {
      name: "verdicts",
      description: "Verified runs: one row per verdict on an exploration episode (run_id, episode), the last line winning.",
      columns: columnsOf("VerdictRecord", VerdictRecord),
    },
  ];
}

/** The zod schema each staged table's rows are conformed to (runs: the manifest's). */
export const TABLE_SCHEMAS = {
  runs: RunManifest,
  episodes: EpisodeRecord,
  steps: StepRecord,
  checkpoints: CheckpointRecord,
  calls: CallRecord,
  memory: MemoryRecord,
  curriculum: CurriculumRecord,
  verdicts: VerdictRecord,
} as const satisfies Record<SqlTableName, z.ZodObject>;
