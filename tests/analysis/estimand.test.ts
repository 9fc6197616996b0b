/**
 * The estimand each table states is read from its rows' runs: one run per row says "this run" (the
 * interval covers this exploration run), two or more run seeds per row say the model's expected result
 * over run seeds, and a table with both says which rows are which. Checked on data sets of one run and
 * of three runs per cell, through main_results, Table 7's dNABA table and report.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { analyzeCurves, mainResultsTable, pathwayDeltaTable } from "../../src/analysis/tables/curveTables.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { estimandNote, estimandOf } from "../../src/analysis/stats/estimand.js";
import { reportCommand } from "../../src/cli/report/report.js";
import { curveRecords, tempDir, writeRun } from "./helpers.js";

/** A data set: `seedsOf(model)` run seeds of each model on game g, pathways none, history and memory. */
function data(seedsOf: (model: string) => number): string {
  const dir = tempDir("s3gym-estimand-");
  for (const model of ["builtin:learner", "builtin:random?noise=independent"]) {
    for (let seed = 0; seed < seedsOf(model); seed++) {
      for (const pathway of ["none", "history", "memory"]) {
        const id = { run_id: `g__${pathway}__${model.replace(/[^a-z]/g, "-")}__seed${seed}`, model, game: "g", pathway };
        const lift = pathway === "none" ? 0 : pathway === "history" ? 1 : 2;
        const c = curveRecords(id, [
          [0, [1, 2, 1, 2]],
          [3, [1 + lift + seed, 2, 1 + seed, 2 + lift]],
          [6, [2 + lift, 2 + seed, 1, 3]],
        ]);
        writeRun(dir, id, { checkpoints: c.checkpoints, episodes: c.episodes, steps: [] });
      }
    }
  }
  return dir;
}

async function tables(dir: string) {
  const cfg = { B: 100, seed: 0 };
  const ca = analyzeCurves(await loadDataset(dir), cfg);
  const main = mainResultsTable(ca, cfg);
  const t7 = pathwayDeltaTable(ca, cfg, {}, { name: "summary_vs_history", title: "t", a: "memory", b: "history" });
  return { main, t7 };
}

const estimandLine = (notes: readonly string[]) => notes.filter((n) => n.startsWith("Estimand"));

describe("the estimand a table states", () => {
  it("one run per cell: every note says 'this run', never the model over run seeds", async () => {
    const { main, t7 } = await tables(data(() => 1));
    for (const r of main.rows) expect(r.runs).toHaveLength(1);
    for (const t of [main, t7]) {
      const [line, ...more] = estimandLine(t.notes);
      expect(more).toEqual([]);
      expect(line).toMatch(/^Estimand: this run\. Every row rests on one exploration run/);
      expect(line).not.toMatch(/expected result over run seeds\. Every/);
    }
  });

  it("three run seeds per cell: the model's expected result over run seeds, with the run count from the data", async () => {
    const { main, t7 } = await tables(data(() => 3));
    for (const r of main.rows) expect(r.runs).toHaveLength(3);
    for (const t of [main, t7]) {
      const [line] = estimandLine(t.notes);
      expect(line).toMatch(/^Estimand: the model's expected result over run seeds\. Every row pools 3 runs \(run seeds\)/);
      expect(line).not.toMatch(/this run/);
    }
  });

  it("three run seeds for the learner, one for the null: the note says which rows are which", async () => {
    const { main, t7 } = await tables(data((m) => (m === "builtin:learner" ? 3 : 1)));
    // Table 7 has one row per (game, model): 1 of each kind.
    expect(estimandLine(t7.notes)[0]).toMatch(
      /^Estimand, per row: the 1 row that pools 3 runs .* has an interval that covers the model's .*; the 1 row with one run \(models builtin:random\?noise=independent\) has an interval that covers this run/,
    );
    const [line] = estimandLine(main.notes);
    expect(line).toMatch(
      /^Estimand, per row: the 3 rows that pool 3 runs \(run seeds; models builtin:learner\) have intervals that cover the model's expected result over run seeds: .*; the 3 rows with one run \(models builtin:random\?noise=independent\) have intervals that cover this run: /,
    );
    // The same note from the rows' counts, computed independently of the table code.
    const pooled = main.rows.filter((r) => r.runs.length > 1).length;
    expect(pooled).toBe(3);
    expect(estimandOf(main.rows)).toMatchObject({ scope: "mixed", one_run_rows: 3, pooled_rows: 3, runs_per_pooled_row: [3] });
  });

  it("report.json carries the estimand of main_results: 'this run' for one run per cell, over run seeds for three", async () => {
    const quiet = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      for (const [n, scope] of [
        [1, "this run"],
        [3, "over run seeds"],
      ] as const) {
        const out = tempDir("s3gym-estimand-out-");
        expect(await reportCommand(["--data", data(() => n), "--out", out, "--bootstrap", "50"])).toBe(0);
        const json = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { estimand: { scope: string; note: string }; results: { main_results: { notes: string[] } } };
        expect(json.estimand.scope).toBe(scope);
        expect(json.results.main_results.notes).toContain(json.estimand.note);
        expect(json.estimand.note).toBe(estimandNote(estimandOf(Array.from({ length: 6 }, () => ({ model: "m", runs: Array.from({ length: n }, (_, i) => `r${i}`) })))));
      }
    } finally {
      quiet.mockRestore();
    }
  });
});
