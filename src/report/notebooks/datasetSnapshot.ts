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
import { loadDataset, loadDialDataset, type Dataset } from "../../analysis/load/dataset.js";
import { attachParts, tagContent, type PartsMemo } from "../../analysis/tables/partsMemo.js";
import { loadVerifiedInputs, type VerifiedInputs } from "../../analysis/load/verifiedData.js";
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
  /** The report's other inputs (null: it had none), or absent when not recorded. */
  inputs?: ReportInputs;
}

/** What `s3gym report` loads beside the data set: the judge dial's runs and the verified pathway's inputs (null: none). */
export interface ReportInputs {
  dial: Dataset | null;
  verified: VerifiedInputs | null;
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
export function writeReportSnapshot(file: string, dataDirs: readonly string[], files: string[], dataset: Dataset, memo: PartsMemo | null, inputs?: ReportInputs): boolean {
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
    const snap: Snapshot = { format: FORMAT, dataDirs: [...dataDirs], files, dataset, ...(memo ? { memo: { key: memo.key, parts } } : {}), ...(inputs ? { inputs } : {}) };
    writeFileSync(file, serialize(snap));
    return true;
  } catch {
    return false;
  }
}

/** The snapshot in `file` when it was made from `dataDirs` and none of their files changed; else null. */
export function readDatasetSnapshot(file: string, dataDirs: readonly string[]): Dataset | null {
  return readSnapshot(file, dataDirs)?.dataset ?? null;
}

// The snapshot this process read last: a notebook asks for its Dataset, then for the dial's runs or the verified inputs.
let last: { file: string; dirs: string[]; snap: Snapshot } | null = null;

function readSnapshot(file: string, dataDirs: readonly string[]): Snapshot | null {
  let snap: Snapshot;
  try {
    snap = deserialize(readFileSync(file)) as Snapshot;
  } catch {
    return null;
  }
  if (snap?.format !== FORMAT || !loadStillCurrent({ dirs: snap.dataDirs, stamps: snap.files }, dataDirs)) return null;
  if (snap.memo) {
    attachParts(snap.dataset, snap.memo);
    // The report's inputs carry the hashes the memo was keyed with (partsMemo.ts).
    const { dial, verified } = snap.memo.key.inputs;
    if (snap.inputs?.dial && dial !== null) tagContent(snap.inputs.dial, dial);
    if (snap.inputs?.verified && verified !== null) tagContent(snap.inputs.verified, verified);
  }
  return snap;
}

/** The run's snapshot for `settings.data` (S3GYM_DATASET), or null. */
function runSnapshot(settings: Pick<NotebookSettings, "data">, env: Record<string, string | undefined>): Snapshot | null {
  const file = env[DATASET_SNAPSHOT_VAR]?.trim();
  if (!file) return null;
  const dirs = settings.data;
  if (last !== null && last.file === file && last.dirs.length === dirs.length && last.dirs.every((d, i) => d === dirs[i])) {
    return loadStillCurrent({ dirs: last.snap.dataDirs, stamps: last.snap.files }, dirs) ? last.snap : null;
  }
  const snap = readSnapshot(file, dirs);
  if (snap !== null) last = { file, dirs: [...dirs], snap };
  return snap;
}

/**
 * The judge dial's runs as `s3gym report` reads them (`loadDialDataset`): the report's own, from the
 * run's snapshot, when it recorded them; otherwise loaded here. Undefined when there are none.
 */
export async function notebookDialDataset(settings: Pick<NotebookSettings, "data">, env: Record<string, string | undefined> = process.env): Promise<Dataset | undefined> {
  const inputs = runSnapshot(settings, env)?.inputs;
  if (inputs) return inputs.dial ?? undefined;
  return loadDialDataset(settings.data);
}

/**
 * The verified pathway's inputs (`loadVerifiedInputs`): the report's own, from the run's snapshot,
 * when it had them; otherwise loaded here.
 */
export async function notebookVerifiedInputs(settings: Pick<NotebookSettings, "data">, env: Record<string, string | undefined> = process.env): Promise<VerifiedInputs> {
  return runSnapshot(settings, env)?.inputs?.verified ?? loadVerifiedInputs(settings.data);
}

/**
 * The notebook's data set: the run's snapshot (`S3GYM_DATASET`) when it is one of these data
 * directories, unchanged; else the one this process's `loadColumns`/`loadFrames` loaded from them,
 * unchanged (datasetMemo.ts); otherwise `loadDataset(settings.data)`. Either way the same Dataset.
 */
export async function notebookDataset(settings: Pick<NotebookSettings, "data">, env: Record<string, string | undefined> = process.env): Promise<Dataset> {
  const snap = runSnapshot(settings, env)?.dataset ?? null;
  // The notebook that loaded frames first (00) has just loaded this data set: reuse it (datasetMemo.ts).
  return snap ?? recallDataset(settings.data) ?? loadDataset(settings.data);
}
