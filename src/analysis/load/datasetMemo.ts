/**
 * The last full data set this process loaded for the frames, kept so that a second request for the
 * same data directories does not read and validate every line again. Notebook 00 loads frames
 * (loadColumns: one pass over every line, the Dataset built beside the columns) and then asks for the
 * Dataset (notebookDataset); it is the notebook that starts before the run's snapshot exists
 * (engines.ts), so without this it loaded the same logs twice.
 *
 * One entry only (a notebook holds one data set), answered only for the same directories, in the same
 * order, when no file under their runs changed since the load began (`runFileStamps` taken before the
 * load and compared again on recall): a run still writing gives a fresh load, never a stale Dataset.
 */
import { loadStillCurrent } from "../../logs/reader.js";
import type { Dataset } from "./dataset.js";

let last: { dirs: string[]; stamps: string[]; dataset: Dataset } | null = null;

/** Keeps `dataset`, loaded from `dirs` whose files were `stamps` before the load began. */
export function rememberDataset(dirs: readonly string[], stamps: string[], dataset: Dataset): void {
  last = { dirs: [...dirs], stamps, dataset };
}

/** The remembered Dataset of exactly these directories when none of their files changed; else null. */
export function recallDataset(dirs: readonly string[]): Dataset | null {
  return last !== null && loadStillCurrent(last, dirs) ? last.dataset : null;
}

/** Forgets the remembered Dataset (tests; a caller done with the data). */
export function forgetDataset(): void {
  last = null;
}
