/**
 * Loads a data directory's SQL tables into the user's SQL cache (analysis/sql/sqlCache.ts) in a child
 * process, `s3gym sql --data DIR "select 1"`, so that a later `openLogDatabase` of the same, unchanged
 * logs opens the cached database instead of validating every line again.
 *
 * Why: `reproduce` runs its report in its own process, on one core; the other core idles for that
 * phase, and notebook 00 then spends most of its time, on the notebook phase's critical path,
 * loading the same logs into DuckDB. Building the cache beside the report moves that load onto the
 * idle core (measured in README "What it costs"). The cache answers only for files unchanged since
 * the build (its fingerprint), so a notebook never reads a stale database. A notebook that gets there
 * before the warm-up is done waits for it (buildLogDatabase waits for a live build of the same files)
 * rather than loading the same logs beside it; when the warm-up failed, the notebook loads the logs
 * itself: the result is the same bytes.
 */
import { spawn } from "node:child_process";
import { s3gymArgv } from "../childCommand.js";

/** The warm-up under way: `done` resolves with the child's exit code (never rejects: a failed warm-up only costs the time it would save); `stop` ends it early. */
export interface SqlCacheWarmUp {
  done: Promise<number>;
  stop(): void;
}

export function warmSqlCache(dataDir: string): SqlCacheWarmUp {
  const child = spawn(process.execPath, s3gymArgv("sql", "--data", dataDir, "select 1"), { stdio: "ignore" });
  const done = new Promise<number>((resolvePromise) => {
    child.on("error", () => resolvePromise(1));
    child.on("close", (code) => resolvePromise(code ?? 1));
  });
  // A stopped build leaves only its private .build- folder, which the cache's next build prunes.
  return { done, stop: () => void child.kill() };
}
