/**
 * The logs as a database, measured (issue 30): at 1x and 10x a paper-scale data set, the time and
 * peak memory of
 *   - `loader`: the kit's own loader (loadDataset) computing mean |s - r| per game and pathway over
 *     the judged exploration steps of ok episodes (what the tables read);
 *   - `sql`: openLogDatabase (validate + load into DuckDB, cache empty) and the same aggregate as one
 *     GROUP BY: the first `s3gym sql` on new logs;
 *   - `cached`: the same again, answered by the cache the first one left (sqlCache.ts): every later
 *     `s3gym sql` on unchanged logs;
 *   - `export`: `s3gym export --format parquet --no-cache` (validate + load + write zstd Parquet);
 *   - `parquet`: the same GROUP BY on the exported steps.parquet in a fresh DuckDB (what a pandas,
 *     polars or DuckDB user pays once the export exists).
 * Each runs in a fresh child so its peak RSS (DuckDB's native memory included) is its own. The
 * aggregates must agree (printed); the bench prints, it never asserts.
 *
 *   tsx bench/data.ts                 # scales 1 and 10 (7 models x 7 games x 2 pathways x scale run seeds)
 *   tsx bench/data.ts --scales 1 --keep
 *   tsx bench/data.ts --models 1      # the first model only: 1/7 of the data at each scale
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, readdirSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadDataset } from "../src/analysis/load/dataset.js";
import { exportTables, openLogDatabase } from "../src/analysis/sql/logDatabase.js";
import { writeSyntheticData } from "../src/logs/synthetic.js";
import { SYNTHETIC_GAMES, SYNTHETIC_MODELS } from "../src/logs/syntheticRuns.js";

const MB = 1024 * 1024;
const MODES = ["loader", "sql", "cached", "export", "parquet"] as const;
type Mode = (typeof MODES)[number];

/** The aggregate in SQL: judged exploration steps of ok episodes, as the loader keeps them. */
const GROUP_BY = (steps: string, episodes: string): string => `
  select s.game, s.pathway, avg(abs(s.self_score - s.reward)) as err, count(*) as n
  from ${steps} s join ${episodes} e on s.run_id = e.run_id and e.phase = 'explore' and s.episode = e.episode
  where s.phase = 'explore' and e.status = 'ok' and s.pathway in ('history', 'memory') and s.self_score is not null
  group by all order by all`;

interface ChildResult {
  /** Seconds of the measured step (the query alone for `parquet`; load + query for the others). */
  s: number;
  /** Of which the query (sql, parquet). */
  query_s: number | null;
  peak_rss_mb: number;
  /** A checksum of the aggregate: sum over groups of err * n (the total absolute error). */
  check: number;
}

async function child(mode: Mode, dataDir: string, outDir: string, cacheDir: string): Promise<ChildResult> {
  const t0 = performance.now();
  let check = 0;
  let query_s: number | null = null;
  if (mode === "loader") {
    const ds = await loadDataset(dataDir);
    for (const run of ds.runs) {
      const ex = run.explore;
      if (ex === null) continue;
      for (let i = 0; i < ex.length; i++) if (!Number.isNaN(ex.s[i] as number)) check += Math.abs((ex.s[i] as number) - (ex.r[i] as number));
    }
  } else if (mode === "sql" || mode === "cached") {
    const db = await openLogDatabase([dataDir], { cacheDir });
    if (db.fromCache !== (mode === "cached")) throw new Error(`${mode}: the cache ${db.fromCache ? "answered" : "did not answer"}`);
    const q0 = performance.now();
    const r = await db.query(GROUP_BY("steps", "episodes"));
    query_s = (performance.now() - q0) / 1000;
    for (const row of r.rows) check += Number(row[2]) * Number(row[3]);
    db.close();
  } else if (mode === "export") {
    await exportTables([dataDir], outDir, "parquet", { cacheDir: null });
  } else {
    const { DuckDBInstance } = await import("@duckdb/node-api");
    const db = await DuckDBInstance.create(":memory:");
    const conn = await db.connect();
    const q0 = performance.now();
    const r = await conn.runAndReadAll(GROUP_BY(`read_parquet('${join(outDir, "steps.parquet")}')`, `read_parquet('${join(outDir, "episodes.parquet")}')`));
    query_s = (performance.now() - q0) / 1000;
    for (const row of r.getRowsJson()) check += Number(row[2]) * Number(row[3]);
    conn.closeSync();
    db.closeSync();
  }
  return { s: (performance.now() - t0) / 1000, query_s, peak_rss_mb: process.resourceUsage().maxRSS / 1024, check };
}

function runChild(mode: Mode, dataDir: string, outDir: string, cacheDir: string): ChildResult {
  const proc = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", mode, dataDir, outDir, cacheDir], { encoding: "utf8", maxBuffer: 64 * MB });
  if (proc.status !== 0) {
    process.stderr.write(proc.stderr);
    throw new Error(`${mode} child failed (exit ${proc.status})`);
  }
  return JSON.parse(proc.stdout.trim().split("\n").pop() ?? "{}") as ChildResult;
}

function folderMb(dir: string): number {
  let bytes = 0;
  for (const f of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const st = statSync(join(dir, f));
    if (st.isFile()) bytes += st.size;
  }
  return bytes / MB;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      scales: { type: "string", default: "1,10" },
      models: { type: "string", default: String(SYNTHETIC_MODELS.length) },
      keep: { type: "boolean", default: false },
      child: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.child !== undefined) {
    const mode = values.child as Mode;
    if (!MODES.includes(mode)) throw new Error(`--child: one of ${MODES.join(", ")}`);
    process.stdout.write(JSON.stringify(await child(mode, positionals[0] as string, positionals[1] as string, positionals[2] as string)) + "\n");
    return;
  }
  const scales = (values.scales ?? "1,10").split(",").map(Number);
  const nModels = Number(values.models);
  if (!Number.isInteger(nModels) || nModels < 1 || nModels > SYNTHETIC_MODELS.length) throw new Error(`--models: 1..${SYNTHETIC_MODELS.length}, got ${values.models}`);
  const rows: string[] = [];
  for (const scale of scales) {
    const root = mkdtempSync(join(tmpdir(), `s3gym-bench-data-x${scale}-`));
    const dataDir = join(root, "data");
    const outDir = join(root, "parquet");
    const cacheDir = join(root, "cache");
    const gen = await writeSyntheticData(dataDir, { seed: 0, models: SYNTHETIC_MODELS.slice(0, nModels), games: SYNTHETIC_GAMES, pathways: ["history", "memory"], runSeeds: scale });
    process.stdout.write(`x${scale}: ${gen.runs} runs, ${gen.steps} steps, ${(gen.bytes / MB).toFixed(0)} MB of logs\n`);
    const res = {} as Record<Mode, ChildResult>;
    const load = (): string =>
      loadavg()
        .map((x) => x.toFixed(1))
        .join(" ");
    process.stdout.write(`x${scale}: load average ${load()}\n`);
    for (const mode of MODES) {
      res[mode] = runChild(mode, dataDir, outDir, cacheDir);
      const r = res[mode];
      process.stdout.write(
        `x${scale} ${mode}: ${r.s.toFixed(2)} s${r.query_s === null ? "" : ` (query ${r.query_s.toFixed(3)} s)`}, peak RSS ${r.peak_rss_mb.toFixed(0)} MB, check ${r.check.toFixed(6)}; load average ${load()}\n`,
      );
    }
    const agree = MODES.filter((m) => m !== "export").every((m) => Math.abs(res[m].check - res.loader.check) <= 1e-6 * Math.max(1, res.loader.check));
    rows.push(
      `| x${scale} | ${gen.runs} | ${gen.steps} | ${(gen.bytes / MB).toFixed(0)} | ${folderMb(outDir).toFixed(0)} | ${res.loader.s.toFixed(1)} / ${res.loader.peak_rss_mb.toFixed(0)} | ${res.sql.s.toFixed(1)} (query ${(res.sql.query_s ?? 0).toFixed(2)}) / ${res.sql.peak_rss_mb.toFixed(0)} | ${res.cached.s.toFixed(2)} / ${res.cached.peak_rss_mb.toFixed(0)} | ${res.export.s.toFixed(1)} / ${res.export.peak_rss_mb.toFixed(0)} | ${(res.parquet.query_s ?? 0).toFixed(2)} / ${res.parquet.peak_rss_mb.toFixed(0)} | ${agree ? "yes" : "NO"} |`,
    );
    if (values.keep) process.stdout.write(`x${scale}: kept ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      "",
      "mean |s - r| per game and pathway (judged exploration steps of ok episodes); each cell: seconds / peak RSS MB of a fresh process",
      "| scale | runs | steps | logs MB | Parquet MB | kit loader | s3gym sql, first: load + query | s3gym sql, cached | export (Parquet, zstd) | query on Parquet | same aggregate |",
      "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --- |",
      ...rows,
      "",
    ].join("\n"),
  );
}

await main();
