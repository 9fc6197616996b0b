/**
 * The SQL warm-up's child process (warmSqlCache.ts): `node warmChild.js DATA [FRAMES_FILE]` loads the
 * data directory's SQL tables into the SQL cache and, from the same validating pass, writes the
 * frames' columns to FRAMES_FILE (framesSnapshot.ts) as soon as every record is read, before DuckDB
 * builds the tables. Exit code 0 when the tables were built (or the cache already held them), 1 otherwise.
 *
 * The data directories are resolved as the notebooks resolve S3GYM_DATA, so both the cache entry and
 * the frames snapshot answer notebook 00's `openLogDatabase(settings.data)` and `loadFrames(settings.data)`.
 */
import { pathToFileURL } from "node:url";
import { markFramesSnapshot, unmarkFramesSnapshot, writeFramesSnapshot } from "../../analysis/load/framesSnapshot.js";
import { buildLogDatabase } from "../../analysis/sql/logDatabase.js";
import type { FrameColumns } from "../../analysis/load/frames.js";
import { runFileStamps } from "../../logs/reader.js";
import { notebookSettings } from "../../report/notebooks/settings.js";

export async function warmChild(data: string, framesFile?: string): Promise<number> {
  const dirs = notebookSettings({ S3GYM_DATA: data }).data;
  let stamps: string[] | null = null;
  if (framesFile !== undefined) {
    markFramesSnapshot(framesFile);
    try {
      // Taken before the load: the snapshot is never newer than its stamps.
      stamps = runFileStamps(dirs);
    } catch {
      stamps = null;
    }
  }
  const frames =
    framesFile === undefined || stamps === null
      ? undefined
      : (columns: FrameColumns): void => {
          try {
            writeFramesSnapshot(framesFile, dirs, stamps as string[], columns);
          } catch {
            // No room for the snapshot: notebook 00 loads the logs itself, as without it.
          }
          unmarkFramesSnapshot(framesFile);
        };
  try {
    const built = await buildLogDatabase(dirs, frames === undefined ? {} : { frames });
    built.remove();
    return 0;
  } finally {
    if (framesFile !== undefined) unmarkFramesSnapshot(framesFile);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [data, framesFile] = process.argv.slice(2);
  warmChild(data ?? "", framesFile).then(
    (code) => (process.exitCode = code),
    () => (process.exitCode = 1),
  );
}
