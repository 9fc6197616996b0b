/**
 * One load of the data set for a whole notebook run: `runNotebooks` loads the data directories once
 * (loadDataset: every line validated, the same warnings), writes the result to a snapshot file and
 * names it in `S3GYM_DATASET`; each notebook's `notebookDataset(settings)` takes the snapshot
 * instead of reading and validating the same logs again, and loads them itself otherwise.
 *
 * A snapshot is used only when it was made from the same data directories and no file under their
 * runs has changed since (same names, sizes and modification times): otherwise, or when the
 * variable is unset (Jupyter started by hand) or the file unreadable, the notebook loads the data
 * itself, exactly as before. When the load fails (a bad log line), no snapshot is written, so every
 * notebook meets the error itself, as a failing cell naming the file, line and field.
 *
 * The snapshot is v8's structured serialization of the Dataset (plain objects, arrays, Maps and
 * typed arrays: every number round-trips bit for bit).
 *
 * `s3gym reproduce` writes the snapshot itself, from its report (`writeReportSnapshot`): the Dataset
 * the report loaded, and every table and shared analysis the report computed (partsMemo.ts), so a
 * notebook neither loads the logs nor redoes the report's bootstraps: its `buildReport` of that
 * Dataset, with the report's options, answers from the report's results.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { deserialize, serialize } from "node:v8";
import { loadStillCurrent, runFileStamps } from "../../logs/reader.js";
import { recallDataset } from "../../analysis/load/datasetMemo.js";
import { loadDataset, type Dataset } from "../../analysis/load/dataset.js";
import { attachParts, type PartsMemo } from "../../analysis/tables/partsMemo.js";
import type { NotebookSettings } from "./settings.js";

/** The variable that names the snapshot file. */
export const DATASET_SNAPSHOT_VAR = "S3GYM_DATASET";

const FORMAT = "s3gym-dataset-snapshot/2";

interface Snapshot {
  format: string;
  /** The data directories as given to loadDataset (absolute). */
  dataDirs: string[];
  /** Every file of every run directory: `path size mtimeMs`, in listing order. */
  files: string[];
  dataset: Dataset;
  /** What a report of this Dataset computed (writeReportSnapshot), or absent. */
  memo?: PartsMemo;
}

/**
 * Loads `dataDirs` and writes the snapshot to `file`. Returns false (and writes nothing) when the
 * data cannot be loaded: the notebooks then load it themselves and show the error.
 */
export async function writeDatasetSnapshot(dataDirs: readonly string[], file: string): Promise<boolean> {
  try {
    const files = runFileStamps(dataDirs);
    const dataset = await loadDataset(dataDirs);
    const snap: Snapshot = { format: FORMAT, dataDirs: [...dataDirs], files, dataset };
    writeFileSync(file, serialize(snap));
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes a snapshot of a Dataset already loaded from `dataDirs` (whose run files were `files`,
 * runFileStamps, before the load began) and what a report of it computed (`memo`; parts v8 cannot
 * serialise are left out: a notebook computes them). Returns false when it could not be written.
 */
export function writeReportSnapshot(file: string, dataDirs: readonly string[], files: string[], dataset: Dataset, memo: PartsMemo | null): boolean {
  try {
    const parts: PartsMemo["parts"] = {};
    for (const [name, part] of Object.entries(memo?.parts ?? {})) {
      try {
        serialize(part.value);
        parts[name] = part;
      } catch {
        // not serialisable: left to the notebook
      }
    }
    const snap: Snapshot = { format: FORMAT, dataDirs: [...dataDirs], files, dataset, ...(memo ? { memo: { key: memo.key, parts } } : {}) };
    writeFileSync(file, serialize(snap));
    return true;
  } catch {
    return false;
  }
}

/** The snapshot in `file` when it was made from `dataDirs` and none of their files changed; else null. */
export function readDatasetSnapshot(file: string, dataDirs: readonly string[]): Dataset | null {
  let snap: Snapshot;
  try {
    snap = deserialize(readFileSync(file)) as Snapshot;
  } catch {
    return null;
  }
  if (snap?.format !== FORMAT || !loadStillCurrent({ dirs: snap.dataDirs, stamps: snap.files }, dataDirs)) return null;
  if (snap.memo) attachParts(snap.dataset, snap.memo);
  return snap.dataset;
}

/**
 * The notebook's data set: the run's snapshot (`S3GYM_DATASET`) when it is one of these data
 * directories, unchanged; else the one this process's `loadColumns`/`loadFrames` loaded from them,
 * unchanged (datasetMemo.ts); otherwise `loadDataset(settings.data)`. Either way the same Dataset.
 */
export async function notebookDataset(settings: Pick<NotebookSettings, "data">, env: Record<string, string | undefined> = process.env): Promise<Dataset> {
  const file = env[DATASET_SNAPSHOT_VAR]?.trim();
  const snap = file ? readDatasetSnapshot(file, settings.data) : null;
  // The notebook that loaded frames first (00) has just loaded this data set: reuse it (datasetMemo.ts).
  return snap ?? recallDataset(settings.data) ?? loadDataset(settings.data);
}
