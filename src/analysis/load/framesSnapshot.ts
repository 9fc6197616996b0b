/**
 * The frames' columns (loadColumns' result with its default options) written by another process that
 * has just read and validated the same logs, so that notebook 00's `loadFrames` does not read and
 * validate every line a third time.
 *
 * Why: `s3gym reproduce` loads the logs in its report and, beside it, in the SQL warm-up
 * (cli/reproduce/warmSqlCache.ts) that builds the DuckDB tables notebook 00 queries; notebook 00 then
 * loaded them again for its frames (about 30 CPU-seconds on the full reproduction, on the notebook
 * phase's critical path). The warm-up's load now also collects the frames' columns (the same loader
 * hooks, frames.ts `frameCollector`) and writes them here; the notebook reads them back.
 *
 * The file named by `S3GYM_FRAMES` answers only when it was made from the same data directories and no
 * file under their runs changed since its load began (the stamps of datasetSnapshot.ts); else the
 * caller loads the logs itself, exactly as before. While a live writer has its mark beside the file
 * (`<file>.writing`, holding its pid) and the file is not there yet, the reader waits for it rather
 * than loading the same logs beside it; a writer that died (kill -9) leaves a mark with a dead pid,
 * and the reader loads the logs itself.
 *
 * The file is v8's structured serialization (every number, NaN included, round-trips bit for bit).
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { deserialize, serialize } from "node:v8";
import { loadStillCurrent } from "../../logs/reader.js";
import { pidIsAlive } from "../../util/pid.js";

/** The variable that names the frames' snapshot file. */
export const FRAMES_SNAPSHOT_VAR = "S3GYM_FRAMES";

const FORMAT = "s3gym-frames-snapshot/1";

/** The columns are frames.ts' FrameColumns; kept generic here so that this module does not import frames.ts back. */
interface FramesSnapshot<T> {
  format: string;
  /** The data directories as given to the load. */
  dirs: string[];
  /** Their run files' stamps taken before the load began (reader.ts runFileStamps). */
  stamps: string[];
  columns: T;
}

const markOf = (file: string): string => `${file}.writing`;

/** Marks `file` as being written by process `pid` (default this one): readers wait for it while that process lives. */
export function markFramesSnapshot(file: string, pid: number = process.pid): void {
  writeFileSync(markOf(file), String(pid));
}

/** Removes this process's mark (the snapshot written or given up). */
export function unmarkFramesSnapshot(file: string): void {
  rmSync(markOf(file), { force: true });
}

/** Writes the columns loaded from `dirs`, whose run files were `stamps` before the load; whole or absent. */
export function writeFramesSnapshot<T>(file: string, dirs: readonly string[], stamps: string[], columns: T): void {
  const snap: FramesSnapshot<T> = { format: FORMAT, dirs: [...dirs], stamps, columns };
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, serialize(snap));
  renameSync(tmp, file);
}

/** The columns in `file` when made from exactly `dirs` and none of their run files changed; else null. */
export function readFramesSnapshot<T>(file: string, dirs: readonly string[]): T | null {
  let snap: FramesSnapshot<T>;
  try {
    snap = deserialize(readFileSync(file)) as FramesSnapshot<T>;
  } catch {
    return null;
  }
  if (snap?.format !== FORMAT || !loadStillCurrent(snap, dirs)) return null;
  return snap.columns;
}

/** Whether a live process other than this one is writing `file` (its mark names it). */
function beingWritten(file: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(markOf(file), "utf8"));
  } catch {
    return false;
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidIsAlive(pid);
}

/**
 * The snapshot named by `file` (unset: none) for `dirs`, waiting while a live writer is still at it
 * (polls every `pollMs`); null when there is none to take.
 */
export async function awaitFramesSnapshot<T>(file: string | undefined, dirs: readonly string[], pollMs = 250): Promise<T | null> {
  const path = file?.trim();
  if (!path) return null;
  while (!existsSync(path) && beingWritten(path)) await new Promise((r) => setTimeout(r, pollMs));
  return existsSync(path) ? readFramesSnapshot<T>(path, dirs) : null;
}
