/**
 * The notebooks' data set snapshot, made from reproduce's report instead of a second load of the logs.
 *
 * Why: `runNotebooks` used to load the data set again (every line read and validated: ~25 CPU-seconds
 * on the full reproduction, before any notebook but 00 could start) and every notebook then rebuilt
 * its tables, bootstraps included, that the report had just built. The report runs in reproduce's own
 * process, so its Dataset and every part it computed (src/analysis/tables/partsMemo.ts) are at hand:
 * they are written to one snapshot file (datasetSnapshot.ts) that every notebook gets from its start,
 * with the judge dial's runs and the verified pathway's inputs the report loaded (notebookDialDataset,
 * notebookVerifiedInputs).
 *
 * The snapshot names the data directories as the notebooks resolve S3GYM_DATA and their run files'
 * stamps taken before the report's load began, so a notebook takes it only while no run file changed
 * (and loads the logs itself otherwise). It is written only when the report read the whole data set
 * (no --models view). The notebooks still write their own tables and figures, which reproduce compares
 * byte for byte with the report's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFileStamps } from "../../logs/reader.js";
import type { Dataset } from "../../analysis/load/dataset.js";
import type { VerifiedInputs } from "../../analysis/load/verifiedData.js";
import { reportPartsMemo } from "../../report/buildReport.js";
import type { Report } from "../../report/entries.js";
import { writeReportSnapshot } from "../../report/notebooks/datasetSnapshot.js";
import { notebookSettings } from "../../report/notebooks/settings.js";

export interface ReportSnapshot {
  /** The snapshot file once written (null before, or when it could not be). */
  readonly file: string | null;
  /** Writes it from the report (reportCommand's onWritten). */
  write(r: { ds: Dataset; full: Dataset; report: Report; dial: Dataset | undefined; verified: VerifiedInputs | undefined }): void;
  /** Removes it (and its folder). */
  remove(): void;
}

/** Takes the run files' stamps of `dataAbs` now, before the report loads it; returns the writer. */
export function startReportSnapshot(dataAbs: string): ReportSnapshot | null {
  let dirs: string[];
  let stamps: string[];
  try {
    dirs = notebookSettings({ S3GYM_DATA: dataAbs }).data;
    stamps = runFileStamps(dirs);
  } catch {
    return null; // no data to snapshot: the notebooks load (and report) it themselves
  }
  const folder = mkdtempSync(join(tmpdir(), "s3gym-reproduce-snapshot-"));
  let file: string | null = null;
  return {
    get file() {
      return file;
    },
    write({ ds, full, report, dial, verified }) {
      if (ds !== full) return; // a --models view is not the notebooks' data set
      const path = join(folder, "dataset.v8");
      if (writeReportSnapshot(path, dirs, stamps, ds, reportPartsMemo(report), { dial: dial ?? null, verified: verified ?? null })) file = path;
    },
    remove() {
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
