/**
 * Red team, issue 44 item 5: run quality when the manifest is missing or foreign.
 *
 * Before: a degenerate run (100% unusable replies) whose manifest was gone entered every table
 * unmarked, as complete; a data set written by another tool whose manifests say `status: "done"`
 * had every run flagged without a word on the terminal, so Table 4 came out empty with exit 0.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import { runVerdict } from "../../src/analysis/tables/runQuality.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";

async function data(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), "s3-quality-")), "data");
  await writeSyntheticData(dir, {
    models: ["m:a", "m:b"],
    games: ["nullify"],
    pathways: ["history"],
    exploreEpisodes: 3,
    checkpointEvery: 3,
    evalEpisodes: 2,
    stepsPerEpisode: [6, 8],
    failRate: 0,
    unscoredRate: 0,
  });
  return dir;
}

function editRun(dir: string, part: string, f: (file: string, record: Record<string, unknown>) => Record<string, unknown>): string {
  const id = readdirSync(join(dir, "runs")).find((r) => r.includes(part))!;
  for (const file of ["steps.jsonl", "episodes.jsonl", "checkpoints.jsonl"]) {
    const path = join(dir, "runs", id, file);
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
    writeFileSync(path, lines.map((l) => JSON.stringify(f(file, JSON.parse(l) as Record<string, unknown>))).join("\n") + "\n");
  }
  return id;
}

function setManifest(dir: string, f: (m: Record<string, unknown>) => Record<string, unknown>): void {
  for (const id of readdirSync(join(dir, "runs"))) {
    const path = join(dir, "runs", id, "manifest.json");
    writeFileSync(path, JSON.stringify(f(JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>)));
  }
}

describe("run quality without a recorded quality", () => {
  it("a degenerate run whose manifest is gone is measured from its steps, flagged and left out of the tables", async () => {
    const dir = await data();
    const id = editRun(dir, "m-a", (file, r) => (file === "steps.jsonl" ? { ...r, response: "I cannot decide.", action: null, self_score: null, parse_error: "no Answer line", valid: false } : r));
    rmSync(join(dir, "runs", id, "manifest.json"));
    const ds = await loadDataset(dir);
    const run = ds.runs.find((r) => r.run_id === id)!;
    const v = runVerdict(run);
    expect(v.source).toBe("steps");
    expect(v.quality?.bad_reply_share).toBe(1);
    expect(v.flags).toContain("100% bad replies");
    const report = buildReport(ds, { B: 100 });
    const main = report.tables.main_results.rows as { model: string }[];
    expect(main.map((r) => r.model)).not.toContain("m:a");
    expect(main.map((r) => r.model)).toContain("m:b");
    const q = report.tables.run_quality.rows.find((r) => r.run_id === id)!;
    expect(q.flagged).not.toBe("");
    expect(q.step_replies).toBe(run.replies!.replies);
  }, 60_000);

  it("an unknown status is named, not a flag; all runs flagged says so on the terminal and in report.json", async () => {
    const dir = await data();
    setManifest(dir, (m) => {
      const { quality: _q, ...rest } = m;
      return { ...rest, status: "done" };
    });
    const ds = await loadDataset(dir);
    for (const r of ds.runs) expect(runVerdict(r)).toMatchObject({ status: "complete", unknownStatus: "done", flags: [] });
    const report = buildReport(ds, { B: 100 });
    expect(report.tables.main_results.rows.length).toBeGreaterThan(0);
    expect(report.warnings.join("\n")).toMatch(/unknown status 'done': treated as complete, judged by its steps/);

    // Now every run degenerate: the tables are empty, and the terminal and report.json say why and the fix.
    for (const part of ["m-a", "m-b"]) editRun(dir, part, (file, r) => (file === "steps.jsonl" ? { ...r, action: null, self_score: null, parse_error: "no Answer line" } : r));
    const out = join(dir, "..", "out");
    const said: string[] = [];
    const spies = [process.stdout, process.stderr].map((s) => vi.spyOn(s, "write").mockImplementation((t: string | Uint8Array) => (said.push(String(t)), true)));
    let code: number;
    try {
      code = await main(["report", "--data", dir, "--out", out, "--bootstrap", "100"]);
    } finally {
      for (const s of spies) s.mockRestore();
    }
    expect(code).toBe(0);
    const text = said.join("");
    expect(text).toMatch(/warning: every run \(2\) was flagged by run_quality and left out, so every table but run_quality is empty: .*100% bad replies.*--include-flagged/);
    const json = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { tables_empty_by_flags?: string };
    expect(json.tables_empty_by_flags).toMatch(/every run \(2\) was flagged/);
  }, 60_000);
});
