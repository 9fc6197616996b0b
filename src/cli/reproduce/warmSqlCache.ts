/**
 * Loads a data directory's SQL tables into the user's SQL cache (analysis/sql/sqlCache.ts) in a child
 * process (warmChild.ts), so that a later `openLogDatabase` of the same, unchanged logs opens the
 * cached database instead of validating every line again; given a file, the child also writes the
 * frames' columns there from the same pass (framesSnapshot.ts), so that notebook 00's `loadFrames`
 * (S3GYM_FRAMES) does not validate every line a third time.
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
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { markFramesSnapshot } from "../../analysis/load/framesSnapshot.js";

/** The warm-up under way: `done` resolves with the child's exit code (never rejects: a failed warm-up only costs the time it would save); `stop` ends it early. */
export interface SqlCacheWarmUp {
  done: Promise<number>;
  stop(): void;
}

export function warmSqlCache(dataDir: string, framesFile?: string): SqlCacheWarmUp {
  const here = fileURLToPath(import.meta.url);
  const entry = join(dirname(here), here.endsWith(".ts") ? "warmChild.ts" : "warmChild.js");
  const child = spawn(process.execPath, [...process.execArgv, entry, dataDir, ...(framesFile !== undefined ? [framesFile] : [])], { stdio: "ignore" });
  // Marked here as well as in the child, so a notebook that asks before the child has started waits for it.
  if (framesFile !== undefined && child.pid !== undefined) {
    try {
      markFramesSnapshot(framesFile, child.pid);
    } catch {
      // an unwritable folder: the child cannot write the snapshot either; notebook 00 loads the logs
    }
  }
  const done = new Promise<number>((resolvePromise) => {
    child.on("error", () => resolvePromise(1));
    child.on("close", (code) => resolvePromise(code ?? 1));
  });
  // A stopped build leaves only its private .build- folder, which the cache's next build prunes.
  return { done, stop: () => void child.kill() };
}
