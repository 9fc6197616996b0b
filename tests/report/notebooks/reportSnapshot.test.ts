/**
 * Reproduce's notebooks take the report's data set and computed tables from the snapshot the report
 * wrote (src/cli/reproduce/reportSnapshot.ts), and reproduce's check (the report's files hashed after
 * the report, compared with the tree after the notebooks: hashTree + diffTrees, as reproduce.ts does)
 * still fails when a notebook writes numbers of its own. Real notebooks on the node engine, reading
 * the built kit (dist/: `npm run build` first, as for library.test.ts).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startReportSnapshot, type ReportSnapshot } from "../../../src/cli/reproduce/reportSnapshot.js";
import { reportCommand } from "../../../src/cli/report/report.js";
import { diffTrees, hashTree } from "../../../src/report/compareTrees.js";
import { runNotebooks } from "../../../src/report/notebooks/engines.js";
import { tempDir } from "../../analysis/helpers.js";
import { writeNotebookTestData, writeTestNotebook } from "./data.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const KIT = JSON.stringify(join(ROOT, "dist", "index.js"));

// What every report notebook does: the report's call, then its writer, for main_results.
const OPEN = `import { notebookSettings, notebookDataset, buildReport, writeTables, showTable, analyzeCurves, mainResultsTable, reportDataset, toCsv } from ${KIT};
import * as fs from "fs";
import * as path from "path";
const settings = notebookSettings();
const ds = await notebookDataset(settings);
const report = buildReport(ds, { B: settings.B, seed: settings.seed });
showTable(report.tables.main_results);`;
const HONEST = `await writeTables(report, settings.out, ["main_results"]);`;
// Its own numbers: main_results rebuilt with another seed, written over the report's CSV.
const OWN = `const cfg = { ...report.bootstrap, seed: report.bootstrap.seed + 1 };
fs.writeFileSync(path.join(settings.out, "tables", "main_results.csv"), toCsv(mainResultsTable(analyzeCurves(reportDataset(ds).ds, cfg), cfg)));`;

let data: string;
let reportOut: string;
let snap: ReportSnapshot;
let written: Map<string, string>;

beforeAll(async () => {
  data = tempDir("s3gym-rsnap-data-");
  await writeNotebookTestData(data, 7);
  reportOut = tempDir("s3gym-rsnap-out-");
  snap = startReportSnapshot(data)!;
  const quiet = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    expect(await reportCommand(["--data", data, "--out", reportOut, "--bootstrap", "40"], { onWritten: (r) => snap.write(r) })).toBe(0);
  } finally {
    quiet.mockRestore();
  }
  expect(snap.file).not.toBeNull();
  written = hashTree(reportOut);
}, 120_000);

afterAll(() => snap?.remove());

/** Runs `cells` as a notebook over a copy of the report's output with `snapshot`; the check's changed + added files. */
async function check(cells: string[], snapshot: string): Promise<string[]> {
  const out = tempDir("s3gym-rsnap-nb-");
  cpSync(reportOut, out, { recursive: true });
  const nb = writeTestNotebook(tempDir("s3gym-rsnap-ipynb-"), "t.ipynb", cells);
  await runNotebooks({ engine: "node", root: ROOT, notebooks: [nb], outDir: join(out, "notebooks"), env: { S3GYM_DATA: data, S3GYM_OUT: out, S3GYM_BOOTSTRAP: "40" }, jobs: 1, snapshot });
  const d = diffTrees(written, hashTree(out));
  return [...d.changed, ...d.added];
}

describe("reproduce's notebooks on the report's snapshot", () => {
  it("write the report's bytes when they call its builders and writers", async () => {
    expect(await check([OPEN, HONEST], snap.file!)).toEqual([]);
  }, 120_000);

  it("fail the check when a notebook writes its own numbers", async () => {
    expect(await check([OPEN, OWN], snap.file!)).toEqual(["tables/main_results.csv"]);
  }, 120_000);

  it("take main_results from the report's results (a tampered one shows, and the check catches it)", async () => {
    // The snapshot's memo altered: a notebook that recomputed would write the true table and pass.
    const s = deserialize(readFileSync(snap.file!)) as { memo: { parts: Record<string, { value: { rows: { model: string }[] } }> } };
    const rows = s.memo.parts.main_results!.value.rows;
    rows[0]!.model = `${rows[0]!.model}-tampered`;
    const tampered = join(tempDir("s3gym-rsnap-t-"), "dataset.v8");
    writeFileSync(tampered, serialize(s));
    expect(await check([OPEN, HONEST], tampered)).toEqual(expect.arrayContaining(["tables/main_results.csv", "tables/main_results.md"]));
  }, 120_000);
});
