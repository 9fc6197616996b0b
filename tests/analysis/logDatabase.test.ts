/**
 * The logs as a database (logDatabase.ts): the tables equal what the report's loader reads, row for
 * row; duplicates resolve as the loader resolves them; a malformed line is said as `report` says it;
 * the connection refuses writes; the Parquet export reads back equal through DuckDB and hyparquet.
 */
import { spawn } from "node:child_process";
import { appendFileSync, chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadColumns } from "../../src/analysis/load/frames.js";
import { loadDataset, type Dataset } from "../../src/analysis/load/dataset.js";
import { buildLogDatabase, exportTables, openLogDatabase, type LogDatabase } from "../../src/analysis/sql/logDatabase.js";
import { fingerprint, SqlCache } from "../../src/analysis/sql/sqlCache.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { conform, parseSchemaComments, tableDefinitions, TABLE_NAMES, TABLE_SCHEMAS } from "../../src/analysis/sql/sqlSchema.js";
import { StepRecord, viewOf } from "../../src/logs/schema.js";
import { fastCheckOf } from "../../src/util/zodFastCheck.js";
import { checkpoint, curveRecords, episode, exploreRecords, step, tempDir, writeRun } from "./helpers.js";

/** A value with bigints as numbers and undefined as null (DuckDB's JSON gives BIGINT as text: typed by column). */
function canon(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(canon);
  if (typeof v === "object") return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, canon(x)]));
  return v;
}

/** DuckDB rows as objects, integer columns as numbers and JSON columns parsed. */
async function rowsOf(db: LogDatabase, sql: string): Promise<Record<string, unknown>[]> {
  const r = await db.query(sql);
  return r.rows.map((row) =>
    Object.fromEntries(
      r.columns.map((c, i) => {
        const t = r.types[i] as string;
        const v = row[i];
        if (typeof v === "string" && /INT/.test(t) && !t.includes("[")) return [c, Number(v)];
        if (typeof v === "string" && t === "JSON") return [c, JSON.parse(v)];
        return [c, canon(deepInts(v))];
      }),
    ),
  );
}
/** Numeric text inside lists and structs (BIGINT elements) back to numbers. */
function deepInts(v: unknown): unknown {
  if (typeof v === "string" && /^-?\d+$/.test(v)) return Number(v);
  if (Array.isArray(v)) return v.map(deepInts);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepInts(x)]));
  return v;
}

/** Every JSONL record of one kind under a data directory, in reading order. */
function rawRecords(data: string, file: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const run of readdirSync(join(data, "runs")).sort()) {
    const p = join(data, "runs", run, file);
    if (!existsSync(p)) continue;
    for (const line of readFileSync(p, "utf8").split("\n")) if (line.trim() !== "") out.push(JSON.parse(line));
  }
  return out;
}

let data: string;
let ds: Dataset;
let db: LogDatabase;

beforeAll(async () => {
  data = tempDir("s3gym-sql-");
  await writeSyntheticData(data, {
    seed: 3,
    models: ["alpha-7b", "bravo-8b"],
    games: ["snake", "trust"],
    exploreEpisodes: 6,
    evalEpisodes: 2,
    stepsPerEpisode: [3, 6],
    failRate: 0.2,
    training: { models: ["alpha-7b"], epochs: 2 },
  });
  ds = await loadDataset(data);
  db = await openLogDatabase([data]);
}, 60_000);
afterAll(() => db?.close());

describe("the tables equal the report's loader", () => {
  it("runs: one row per run in the loader's order, with its counts", async () => {
    const rows = await rowsOf(db, "select run_id, model, game, pathway, n_steps, n_explore_steps, n_checkpoints, n_valid_checkpoints, status from runs");
    expect(rows.map((r) => r.run_id)).toEqual(ds.runs.map((r) => r.run_id));
    expect(rows.map((r) => [r.n_steps, r.n_explore_steps, r.n_checkpoints, r.n_valid_checkpoints, r.status])).toEqual(
      ds.runs.map((r) => [r.counts.steps, r.counts.exploreSteps, r.checkpoints.length, r.checkpoints.filter((c) => c.valid).length, r.manifest?.status ?? null]),
    );
  });

  it("steps and episodes: counts and checksums equal the loader's frames", async () => {
    const cols = await loadColumns(data);
    const [s] = await rowsOf(db, "select count(*) n, sum(reward) r, sum(self_score) s, count(self_score) ns, sum(step) k from steps");
    const sum = (xs: number[]) => xs.reduce((a, b) => a + (Number.isNaN(b) ? 0 : b), 0);
    expect(s!.n).toBe(cols.steps.reward.length);
    expect(s!.r).toBeCloseTo(sum(cols.steps.reward), 9);
    expect(s!.s).toBeCloseTo(sum(cols.steps.self_score), 9);
    expect(s!.ns).toBe(cols.steps.self_score.filter((x) => !Number.isNaN(x)).length);
    expect(s!.k).toBe(sum(cols.steps.step));
    const [e] = await rowsOf(db, "select count(*) n, sum(score) s, count(*) filter (where status = 'failed') f from episodes");
    expect(e!.n).toBe(cols.episodes.score.length);
    expect(e!.s).toBeCloseTo(sum(cols.episodes.score), 9);
    expect(e!.f).toBe(cols.episodes.status.filter((x) => x === "failed").length);
    expect(e!.f).toBeGreaterThan(0); // the data set has failed episodes: the ok/failed rule is exercised
  });

  it("judged exploration steps of ok episodes equal the loader's (s, r, episode) arrays in order", async () => {
    for (const run of ds.runs.filter((r) => r.explore !== null)) {
      const rows = await rowsOf(
        db,
        `select s.self_score, s.reward, s.episode from steps s join episodes e using (run_id, phase, episode) where run_id = '${run.run_id}' and phase = 'explore' and e.status = 'ok' order by s.episode, s.step`,
      );
      const ex = run.explore!;
      expect(rows.map((r) => r.self_score ?? Number.NaN)).toEqual([...ex.s]);
      expect(rows.map((r) => r.reward)).toEqual([...ex.r]);
      expect(rows.map((r) => r.episode)).toEqual([...ex.episode]);
    }
  });

  it("checkpoints: per run and checkpoint, the scores and seeds the curves use", async () => {
    const rows = await rowsOf(db, "select run_id, checkpoint, valid, seed, score from checkpoints where view = 'eval'");
    for (const run of ds.runs) {
      for (const c of run.checkpoints) {
        const mine = rows.filter((r) => r.run_id === run.run_id && r.checkpoint === c.x);
        expect(mine.every((r) => r.valid === c.valid)).toBe(true);
        expect(mine.filter((r) => r.score !== null).map((r) => r.score)).toEqual(c.scores);
        if (c.valid) expect(mine.map((r) => r.seed)).toEqual(c.seeds);
      }
    }
    expect(rows.filter((r) => r.valid === false).length).toBe(ds.runs.reduce((a, r) => a + r.checkpoints.filter((c) => !c.valid).length, 0));
  });

  it("every table has its columns from schema.ts, described", () => {
    const tables = tableDefinitions();
    expect(tables.map((t) => t.name)).toEqual([...TABLE_NAMES]);
    const steps = tables.find((t) => t.name === "steps")!;
    expect(steps.columns.map((c) => c.name)).toEqual(Object.keys(TABLE_SCHEMAS.steps.shape));
    const col = (t: string, c: string) => tables.find((x) => x.name === t)!.columns.find((x) => x.name === c)!;
    expect(col("steps", "reward")).toEqual({ name: "reward", type: "DOUBLE", description: "The verifier step reward r (hidden from the model in the main setting)." });
    expect(col("steps", "step").type).toBe("BIGINT");
    expect(col("steps", "history_keep").type).toBe("BIGINT[]");
    // EpisodeRecord's `phase` has no comment of its own: StepRecord's is used.
    expect(col("episodes", "phase").description).toMatch(/^`explore` \(lenient config/);
    expect(col("runs", "usage").type).toMatch(/^STRUCT\("calls" BIGINT/);
    for (const t of tables) for (const c of t.columns) expect(c.description, `${t.name}.${c.name}`).not.toBe("");
  });

  it("reads comments above a field, on its line, over several lines, and keeps the record's own over a nested one", () => {
    const src = [
      "export const A = z.object({",
      "  /** Top x. */",
      "  x: z.number(),",
      "  /** Inline y. */ y: z.string(),",
      "  inner: z.object({",
      "  /**",
      "   * Two",
      "   * lines.",
      "   */",
      "  z: z.string(),",
      "    /** Deep x. */",
      "    x: z.number(),",
      "  }),",
      "});",
    ].join("\n");
    const c = parseSchemaComments(src).get("A")!;
    expect(c.get("x")?.text).toBe("Top x.");
    expect(c.get("y")?.text).toBe("Inline y.");
    expect(c.get("z")?.text).toBe("Two lines.");
    expect(c.has("inner")).toBe(false);
  });
});

describe("duplicates and problems resolve as the loader resolves them", () => {
  const H = { run_id: "g.history.m", model: "m", game: "g", pathway: "history" };

  it("a resumed run's repeated steps and episode records: the last wins, an ok record is never undone", async () => {
    const dir = tempDir("s3gym-sql-dup-");
    const c = curveRecords(H, [
      [0, [1, 3]],
      [3, [2]],
    ]);
    const e = exploreRecords(H, {
      1: [
        [1, 1],
        [0, 0],
      ],
      2: [[0, 1]],
    });
    // Episode 2 was interrupted and re-run: its first attempt's step 0 (reward 9) precedes the rerun's.
    const steps = [...e.steps.slice(0, 2), step(H, { episode: 2, step: 0, s: 1, r: 9 }), ...e.steps.slice(2)];
    const episodes = [...c.episodes, ...e.episodes, episode(H, { phase: "explore", episode: 1, status: "failed" }), episode(H, { phase: "eval", checkpoint: 3, episode: 0, score: 5 })];
    const checkpoints = [...c.checkpoints, checkpoint(H, 0, null)];
    writeRun(dir, H, { steps, episodes, checkpoints });
    const loaded = await loadDataset(dir);
    const d = await openLogDatabase([dir]);
    try {
      const ex = loaded.runs[0]!.explore!;
      const rows = await rowsOf(d, "select episode, step, reward, self_score from steps where phase = 'explore' order by episode, step");
      expect(rows.map((r) => r.reward)).toEqual([...ex.r]);
      expect(rows.map((r) => [r.episode, r.step, r.reward])).toEqual([
        [1, 0, 1],
        [1, 1, 0],
        [2, 0, 1],
      ]);
      const eps = await rowsOf(d, "select phase, checkpoint, episode, status, score from episodes order by phase, checkpoint, episode");
      expect(eps).toEqual([
        { phase: "eval", checkpoint: 0, episode: 0, status: "ok", score: 1 },
        { phase: "eval", checkpoint: 0, episode: 1, status: "ok", score: 3 },
        { phase: "eval", checkpoint: 3, episode: 0, status: "ok", score: 5 },
        { phase: "explore", checkpoint: null, episode: 1, status: "ok", score: 1 },
        { phase: "explore", checkpoint: null, episode: 2, status: "ok", score: 1 },
      ]);
      // Checkpoint 0's failed record came last but never undoes the ok one; checkpoint 3 scores its (last) episode.
      const cps = await rowsOf(d, "select checkpoint, status, score from checkpoints order by checkpoint, episode");
      expect(cps).toEqual([
        { checkpoint: 0, status: "ok", score: 1 },
        { checkpoint: 0, status: "ok", score: 3 },
        { checkpoint: 3, status: "ok", score: 5 },
      ]);
      expect(loaded.runs[0]!.checkpoints.map((x) => x.scores)).toEqual([[1, 3], [5]]);
      expect(d.warnings).toEqual(loaded.warnings);
    } finally {
      d.close();
    }
  });

  it("a torn last line, and a torn line mid-file, are the loader's warnings word for word; a run with a line that breaks the schema is left out of every table, with the loader's warning", async () => {
    const dir = tempDir("s3gym-sql-torn-");
    const e = exploreRecords(H, { 1: [[1, 1]] });
    const run = writeRun(dir, H, { steps: e.steps, episodes: e.episodes, checkpoints: [] });
    const steps = join(run, "steps.jsonl");
    appendFileSync(steps, '{"run_id":"g.histo');
    const loaded = await loadDataset(dir);
    const d = await openLogDatabase([dir]);
    expect(d.warnings).toEqual(loaded.warnings);
    expect(d.warnings.filter((w) => w.startsWith(`${steps}:2: torn last line ignored (invalid JSON (`))).toHaveLength(1);
    d.close();
    // Line 2 is now mid-file (damaged: left out, warned), and line 3 parses but breaks the schema. A
    // second run beside it is loaded as usual.
    appendFileSync(steps, '\n{"run_id":"g.history.m"}\n');
    const H2 = { ...H, run_id: "g.history.m2", model: "m2" };
    const e2 = exploreRecords(H2, {
      1: [
        [0, 1],
        [1, 1],
      ],
    });
    writeRun(dir, H2, { steps: e2.steps, episodes: e2.episodes, checkpoints: [] });
    const loaded2 = await loadDataset(dir);
    expect(loaded2.runs.map((r) => r.run_id)).toEqual([H2.run_id]);
    const prefix = `left out run ${H.run_id}: ${steps}:3: field 'model': `;
    expect(loaded2.warnings.filter((w) => w.startsWith(`${steps}:2: damaged line left out (invalid JSON (`) || w.startsWith(prefix))).toHaveLength(2);
    const d2 = await openLogDatabase([dir]);
    try {
      expect(d2.warnings).toEqual(loaded2.warnings);
      // Not one row of the left-out run, though its first lines were read before the bad one.
      for (const t of ["runs", "steps", "episodes"]) {
        expect(await rowsOf(d2, `select distinct run_id from ${t}`), t).toEqual([{ run_id: H2.run_id }]);
      }
      expect((await rowsOf(d2, "select count(*) as n from steps"))[0]).toEqual({ n: 2 });
    } finally {
      d2.close();
    }
  });
});

describe("read-only", () => {
  it("refuses writes to the tables and to any file, and the data directory is unchanged", async () => {
    const before = readdirSync(data, { recursive: true }).sort();
    const target = join(data, "out.csv");
    for (const sql of [
      `copy steps to '${target}'`,
      "insert into runs (run_id) values ('x')",
      "delete from steps",
      "create table t as select 1",
      `attach '${join(data, "x.duckdb")}' as x`,
      "set enable_external_access = true",
      `select * from read_csv('${join(data, "runs", ds.runs[0]!.run_id, "steps.jsonl")}')`,
    ]) {
      await expect(db.query(sql), sql).rejects.toThrow(/read-only|disabled|locked/);
    }
    expect(readdirSync(data, { recursive: true }).sort()).toEqual(before);
    expect((await db.query("select count(*) from runs")).rows[0]![0]).toBe(String(ds.runs.length));
  });
});

describe("export", () => {
  let out: string;
  beforeAll(async () => {
    out = tempDir("s3gym-export-");
    await exportTables([data], out, "parquet");
  }, 60_000);

  it("is byte-stable for the same logs", async () => {
    const again = tempDir("s3gym-export-again-");
    await exportTables([data], again, "parquet");
    for (const f of readdirSync(out)) expect(readFileSync(join(again, f)).equals(readFileSync(join(out, f))), f).toBe(true);
    expect(readdirSync(out).sort()).toEqual([...TABLE_NAMES.map((t) => `${t}.parquet`), "schema.json"].sort());
  });

  it("reads back through DuckDB equal to the tables", async () => {
    const { DuckDBInstance } = await import("@duckdb/node-api");
    const mem = await DuckDBInstance.create(":memory:");
    const conn = await mem.connect();
    try {
      for (const t of TABLE_NAMES) {
        const back = (await conn.runAndReadAll(`select * from read_parquet('${join(out, `${t}.parquet`)}')`)).getRowsJson();
        const mine = (await db.query(`select * from ${t}`)).rows;
        expect(back, t).toEqual(mine);
      }
    } finally {
      conn.closeSync();
      mem.closeSync();
    }
  });

  it("reads back through hyparquet equal to the source JSONL (steps, episodes)", async () => {
    const read = async (t: string) => (await parquetReadObjects({ file: await asyncBufferFromFile(join(out, `${t}.parquet`)), compressors })).map(canon) as Record<string, unknown>[];
    const key = (r: Record<string, unknown>) => JSON.stringify([r.run_id, r.phase, r.view, r.checkpoint, r.episode, r.step ?? null]);
    for (const [table, file] of [
      ["steps", "steps.jsonl"],
      ["episodes", "episodes.jsonl"],
    ] as const) {
      const source = rawRecords(data, file).map(
        (r) => canon({ ...(conform(TABLE_SCHEMAS[table], r) as object), view: r.phase === "eval" ? viewOf(r as { view?: "eval" }) : null }) as Record<string, unknown>,
      );
      const back = await read(table);
      const sort = (xs: Record<string, unknown>[]) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      expect(back.length, table).toBe(source.length);
      expect(sort(back), table).toEqual(sort(source));
    }
    const schema = JSON.parse(readFileSync(join(out, "schema.json"), "utf8"));
    expect(schema.tables.find((t: { name: string }) => t.name === "steps").rows).toBe((await read("steps")).length);
  });
});

describe("bad lines in the pathway files", () => {
  it("a memory line that breaks the schema is left out with a warning naming file:line; the run and its other lines stay", async () => {
    const H = { run_id: "g.memory.m", model: "m", game: "g", pathway: "memory" };
    const dir = tempDir("s3gym-sql-mem-");
    const e = exploreRecords(H, { 1: [[1, 1]], 2: [[0, 1]] });
    const run = writeRun(dir, H, { steps: e.steps, episodes: e.episodes, checkpoints: [] });
    const mem = (after: number) => ({ ...H, after_episode: after, text: `v${after}`, retain: "", avoid: "", next: "", parsed: true, error: null, response: null });
    const memFile = join(run, "memory.jsonl");
    // Line 2 breaks the schema (after_episode is text); lines 1 and 3 are fine.
    appendFileSync(memFile, [mem(0), { ...mem(1), after_episode: "one" }, mem(2)].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const d = await openLogDatabase([dir], { cacheDir: null });
    try {
      expect(d.warnings).toHaveLength(1);
      expect(d.warnings[0]).toMatch(new RegExp(`^${memFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2: field 'after_episode': .*; line left out of the memory table`));
      expect(await rowsOf(d, "select after_episode, text from memory order by after_episode")).toEqual([
        { after_episode: 0, text: "v0" },
        { after_episode: 2, text: "v2" },
      ]);
      expect(await rowsOf(d, "select run_id, n_steps from runs")).toEqual([{ run_id: H.run_id, n_steps: 2 }]);
      expect((await rowsOf(d, "select count(*) as n from steps"))[0]).toEqual({ n: 2 });
    } finally {
      d.close();
    }
  });
});

describe("lines written by another tool", () => {
  it("keys in another order, undeclared keys and absent optional fields give the columns zod's copy would: declared fields only, absent ones null", async () => {
    // Names of two characters or more, so the loader's compiled check hands the line on as written.
    const H = { run_id: "game.hybrid.model", model: "model", game: "game", pathway: "hybrid" };
    const dir = tempDir("s3gym-sql-order-");
    const e = exploreRecords(H, { 1: [[1, 1]] });
    const first = e.steps[0] as Record<string, unknown>;
    // Reversed key order; a snippet with its keys reversed and one the schema does not declare.
    const reordered = Object.fromEntries(Object.entries({ ...first, retrieved_steps: [{ step: 4, note: "x", episode: 2 }], custom_x: 7 }).reverse());
    writeRun(dir, H, { steps: [reordered], episodes: e.episodes, checkpoints: [] });
    expect(fastCheckOf(StepRecord)!(reordered)).toBe(true);
    const d = await openLogDatabase([dir], { cacheDir: null });
    try {
      expect(d.warnings).toEqual([]);
      // Hand-written: the snippet's declared fields only; history_keep and memory_version absent -> null.
      expect(await rowsOf(d, "select to_json(retrieved_steps)::VARCHAR as r, history_keep, memory_version, self_score, reward from steps")).toEqual([
        { r: '[{"episode":2,"step":4}]', history_keep: null, memory_version: null, self_score: 1, reward: 1 },
      ]);
      expect((await d.query("select * from steps")).columns).not.toContain("custom_x");
    } finally {
      d.close();
    }
  });
});

describe("the cache", () => {
  const H = { run_id: "g.history.c", model: "c", game: "g", pathway: "history" };

  it("answers a second query on unchanged files without loading; an appended line, a rewrite or a new run makes it load again", async () => {
    const dir = tempDir("s3gym-sql-cache-data-");
    const cacheDir = join(tempDir("s3gym-sql-cache-"), "c");
    const e = exploreRecords(H, {
      1: [
        [1, 1],
        [0, 0],
      ],
    });
    const run = writeRun(dir, H, { steps: e.steps, episodes: e.episodes, checkpoints: [] });
    // A torn last line: its warning must be said again when the cache answers.
    const episodes = join(run, "episodes.jsonl");
    const open = async () => {
      const said: string[] = [];
      const d = await openLogDatabase([dir], { cacheDir, onWarning: (w) => said.push(w) });
      const rewards = (await rowsOf(d, "select reward from steps order by run_id, step")).map((r) => r.reward);
      const out = { fromCache: d.fromCache, rewards, said, warnings: d.warnings };
      d.close();
      return out;
    };
    appendFileSync(episodes, '{"run_id":');
    const first = await open();
    expect(first.fromCache).toBe(false);
    expect(first.rewards).toEqual([1, 0]);
    expect(first.said.filter((w) => w.startsWith(`${episodes}:`) && w.includes("torn last line ignored"))).toHaveLength(1);
    expect(first.said).toEqual(first.warnings);
    const second = await open();
    expect(second).toEqual({ ...first, fromCache: true });
    // An appended step line (a repeat of step 1 with reward 7: the last line wins) is seen at once.
    const steps = join(run, "steps.jsonl");
    appendFileSync(steps, JSON.stringify(step(H, { episode: 1, step: 1, s: 0, r: 7 })) + "\n");
    const third = await open();
    expect(third.fromCache).toBe(false);
    expect(third.rewards).toEqual([1, 7]);
    expect((await open()).fromCache).toBe(true);
    // A rewrite of the same size (reward 7 -> 8) is seen too.
    writeFileSync(steps, readFileSync(steps, "utf8").replace('"reward":7', '"reward":8'));
    expect(await open()).toMatchObject({ fromCache: false, rewards: [1, 8] });
    // A second run directory.
    const H2 = { ...H, run_id: "g.history.c2", model: "c2" };
    const e2 = exploreRecords(H2, { 1: [[0, 1]] });
    writeRun(dir, H2, { steps: e2.steps, episodes: e2.episodes, checkpoints: [] });
    expect(await open()).toMatchObject({ fromCache: false, rewards: [1, 8, 1] });
    // Only the newest load of these data directories is kept.
    expect(readdirSync(cacheDir)).toHaveLength(1);
    expect(readdirSync(join(cacheDir, readdirSync(cacheDir)[0]!))).toHaveLength(1);
  });

  it("waits for another live process building the same files and opens its database; loads itself when that build ends without storing one", async () => {
    const dir = tempDir("s3gym-sql-cache-data-");
    const e = exploreRecords(H, { 1: [[1, 1]] });
    writeRun(dir, H, { steps: e.steps, episodes: e.episodes, checkpoints: [] });
    // A database of these files, built in another cache: what the other process will store.
    const other = await buildLogDatabase([dir], { cacheDir: tempDir("s3gym-sql-cache-other-") });
    const meta = JSON.parse(readFileSync(join(dirname(other.file), "meta.json"), "utf8"));
    const cacheDir = tempDir("s3gym-sql-cache-wait-");
    const cache = SqlCache.open([dir], cacheDir)!;
    const fp = fingerprint([dir]);
    // The other process: alive, with its build folder marked with these files' fingerprint.
    const builder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      const mine = cache.buildDir(fp);
      const theirs = mine.replace(`.build-${process.pid}-`, `.build-${builder.pid}-`);
      renameSync(mine, theirs);
      let opened: LogDatabase | null = null;
      const waiting = openLogDatabase([dir], { cacheDir }).then((d) => (opened = d));
      await new Promise((r) => setTimeout(r, 800));
      expect(opened).toBeNull(); // still waiting: it did not load the files beside the builder
      copyFileSync(other.file, join(theirs, "logs.duckdb"));
      cache.store(theirs, meta);
      const d = await waiting;
      try {
        expect(d.fromCache).toBe(true);
        expect((await rowsOf(d, "select reward from steps")).map((r) => r.reward)).toEqual([1]);
      } finally {
        d.close();
      }
      // A build of other files (another fingerprint) is not waited for; nor is one whose process is gone.
      appendFileSync(join(dir, "runs", H.run_id, "steps.jsonl"), JSON.stringify(step(H, { episode: 1, step: 0, s: 0, r: 5 })) + "\n");
      const stale = cache.buildDir(fp);
      renameSync(stale, stale.replace(`.build-${process.pid}-`, `.build-${builder.pid}-`));
      const d2 = await openLogDatabase([dir], { cacheDir });
      expect(d2.fromCache).toBe(false);
      d2.close();
      builder.kill();
      await new Promise((r) => builder.once("exit", r));
      appendFileSync(join(dir, "runs", H.run_id, "steps.jsonl"), JSON.stringify(step(H, { episode: 1, step: 0, s: 0, r: 6 })) + "\n");
      const dead = cache.buildDir(fingerprint([dir]));
      renameSync(dead, dead.replace(`.build-${process.pid}-`, `.build-${builder.pid}-`));
      const d3 = await openLogDatabase([dir], { cacheDir });
      expect(d3.fromCache).toBe(false);
      expect((await rowsOf(d3, "select reward from steps")).map((r) => r.reward)).toEqual([6]);
      d3.close();
    } finally {
      builder.kill();
    }
  });

  it("is never used from a folder others can write", async () => {
    const dir = tempDir("s3gym-sql-cache-data-");
    const e = exploreRecords(H, { 1: [[1, 1]] });
    writeRun(dir, H, { steps: e.steps, episodes: e.episodes, checkpoints: [] });
    const cacheDir = tempDir("s3gym-sql-cache-open-");
    chmodSync(cacheDir, 0o777);
    for (let i = 0; i < 2; i++) {
      const d = await openLogDatabase([dir], { cacheDir });
      expect(d.fromCache).toBe(false);
      d.close();
    }
    expect(readdirSync(cacheDir)).toEqual([]);
  });
});
