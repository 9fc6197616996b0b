/**
 * The views' tables from hand-written logs (only the three JSONL files and calls.jsonl): every point
 * hand-computed; the report writes views/forgetting only when the data has views, cost always.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import { analyzeViews } from "../../src/analysis/tables/viewTables.js";
import { INSTRUMENT_MARK } from "../../src/analysis/tables/instruments.js";
import { reportFigures } from "../../src/report/writeReport.js";
import { callRecord } from "./helpers.js";

const ID = { run_id: "snake__history__m__seed0", model: "m", game: "snake", pathway: "history" };
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");

/** scores[view][x] = [[seed, score], ...]; view "eval" is written without a view field. */
function writeRun(data: string, scores: Record<string, Record<number, [number, number][]>>, calls: object[]): void {
  const dir = join(data, "runs", ID.run_id);
  mkdirSync(dir, { recursive: true });
  const cps: object[] = [];
  const eps: object[] = [];
  for (const [view, byX] of Object.entries(scores))
    for (const [x, list] of Object.entries(byX)) {
      const v = view === "eval" ? {} : { view };
      cps.push({ ...ID, checkpoint: Number(x), ...v, scores: list.map((s) => s[1]), mean: list.reduce((a, s) => a + s[1], 0) / list.length, status: "ok", reason: null });
      list.forEach(([seed, score], i) =>
        eps.push({
          ...ID,
          phase: "eval",
          ...v,
          config: view === "eval" ? "eval" : "explore",
          checkpoint: Number(x),
          episode: i,
          seed,
          score,
          steps: 0,
          status: "ok",
          error: null,
          started_at: "",
          ended_at: "",
        }),
      );
    }
  writeFileSync(join(dir, "checkpoints.jsonl"), jsonl(cps));
  writeFileSync(join(dir, "episodes.jsonl"), jsonl(eps));
  writeFileSync(join(dir, "steps.jsonl"), "");
  writeFileSync(join(dir, "calls.jsonl"), jsonl(calls));
}

const call = (o: Record<string, unknown>) => callRecord(ID.run_id, o);

const SCORES = {
  // y = 2, 3, 2: OODG 0, best snapshot x=2 (+1), regression 1.
  eval: {
    0: [
      [1, 1],
      [3, 3],
    ],
    2: [
      [1, 3],
      [3, 3],
    ],
    4: [
      [1, 2],
      [3, 2],
    ],
  },
  // y = 1, 2, 4: IDG 3, best x=2 (+1), regression 0.
  id: {
    0: [
      [100, 0],
      [101, 2],
    ],
    2: [
      [100, 2],
      [101, 2],
    ],
    4: [
      [100, 4],
      [101, 4],
    ],
  },
  // exploration seeds 0 and 2 from checkpoint 2, seed 4 from checkpoint 4.
  replay: {
    2: [
      [0, 3],
      [2, 1],
    ],
    4: [
      [0, 2],
      [2, 4],
      [4, 5],
    ],
  },
} as Record<string, Record<number, [number, number][]>>;

const CALLS = [
  call({ phase: "explore", episode: 1, tokens_in: 100, tokens_out: 10 }),
  call({ phase: "explore", episode: 2, tokens_in: 50, tokens_out: 5, cost_usd: 0.5 }),
  call({ phase: "eval", checkpoint: 0, tokens_in: 7 }),
  call({ phase: "eval", checkpoint: 2, view: "replay", tokens_in: 3 }),
];

describe("the views' tables on hand-computed logs", async () => {
  const data = mkdtempSync(join(tmpdir(), "s3vt-"));
  writeRun(data, SCORES, CALLS);
  const ds = await loadDataset(data);
  const va = analyzeViews(ds, { B: 200, seed: 0 });

  it("views: per view Avg, Max, final gain (OODG / IDG), best snapshot, regression; the run's disagreement rate", () => {
    const byView = Object.fromEntries(va.views.rows.map((r) => [r.view, r]));
    expect(Object.keys(byView)).toEqual(["eval", "id", "replay"]);
    expect(byView.eval).toMatchObject({ n_checkpoints: 3, n_seeds: 2, best_x: 2 });
    expect(byView.eval!.avg.point).toBeCloseTo(7 / 3, 12);
    expect(byView.eval!.final_gain.point).toBeCloseTo(0, 12);
    expect(byView.eval!.best_gain.point).toBeCloseTo(1, 12);
    expect(byView.eval!.regression.point).toBeCloseTo(1, 12);
    // NABA: AUC+ = 2 * (0 + 1) / 2 + 2 * (1 + 0) / 2 = 2, scale |y0| = 2.
    expect(byView.eval!.naba.point).toBeCloseTo(1, 12);
    expect(byView.id!.final_gain.point).toBeCloseTo(3, 12);
    expect(byView.id!.best_x).toBe(2);
    expect(byView.id!.regression.point).toBeCloseTo(0, 12);
    expect(byView.id!.max.point).toBeCloseTo(4, 12);
    // replay has no checkpoint 0: no AUC+, NABA or final gain (missing, not 0).
    expect(byView.replay!.final_gain.point).toBeNull();
    expect(byView.replay!.naba.point).toBeNull();
    expect(byView.replay!.n_seeds).toBe(3);
    // Updates: x=2 eval +1, id +1 (agree); x=4 eval -1, id +2, replay +1 (disagree): 1 of 2.
    for (const r of va.views.rows) expect([r.n_updates, r.disagree_rate]).toEqual([2, 0.5]);
    // The seed-level interval of a statistic covers its point here and rests on the view's seeds.
    expect(byView.id!.avg.n).toBe(2);
  });

  it("view_updates: UVG per checkpoint and view, the replay view over the seeds played at both", () => {
    const u = va.updates.rows.map((r) => [r.view, r.x, r.from, r.uvg.point]);
    expect(u).toEqual([
      ["eval", 2, 0, 1],
      ["eval", 4, 2, -1],
      ["id", 2, 0, 1],
      ["id", 4, 2, 2],
      ["replay", 4, 2, 1], // seeds 0 and 2: ((2 - 3) + (4 - 1)) / 2
    ]);
  });

  it("forgetting: snake's threshold 3: seed 0 forgotten, seed 2 fixed, seed 4 kept; FR = max(0, 3 - 11/3) = 0", () => {
    const [f] = va.forgetting.rows;
    expect(f).toMatchObject({ threshold: 3, n_seeds: 3, fixed: 1, forgotten: 1, kept: 1, never: 0 });
    expect(f!.y_first.point).toBeCloseTo(3, 12);
    expect(f!.y_last.point).toBeCloseTo(11 / 3, 12);
    expect(f!.fr.point).toBe(0);
  });

  it("cost: exploration cumulative per checkpoint, evaluation apart; gain per million exploration tokens", () => {
    expect(va.cost.rows.map((r) => [r.x, r.explore_calls, r.explore_tokens_in + r.explore_tokens_out, r.explore_usd, r.eval_calls, r.eval_tokens_in])).toEqual([
      [0, 0, 0, null, 1, 7],
      [2, 2, 165, 0.5, 1, 3],
      [4, 2, 165, 0.5, 0, 0],
    ]);
    const [c] = va.costRuns.rows;
    expect(c).toMatchObject({ explore_calls: 2, explore_tokens: 165, explore_usd: 0.5, eval_calls: 2, eval_tokens: 10 });
    expect(c!.naba_per_mtok).toBeCloseTo(1 / 165e-6, 6);
    expect(c!.oodg_per_mtok).toBeCloseTo(0, 12);
  });

  it("report: views, view_updates, forgetting and the views figures only with views; cost and cost_runs always", async () => {
    const withViews = buildReport(ds, { B: 50 });
    expect(Object.keys(withViews.tables)).toEqual(expect.arrayContaining(["views", "view_updates", "forgetting", "cost", "cost_runs"]));
    expect((await reportFigures(withViews)).map((f) => f.name)).toEqual(expect.arrayContaining(["views_snake", "cost_gain"]));

    const plain = mkdtempSync(join(tmpdir(), "s3vt-plain-"));
    writeRun(plain, { eval: SCORES.eval! }, CALLS);
    const without = buildReport(await loadDataset(plain), { B: 50 });
    expect(Object.keys(without.tables)).not.toContain("views");
    expect(Object.keys(without.tables)).not.toContain("forgetting");
    expect(without.tables.cost.rows).toHaveLength(3);
    expect((await reportFigures(without)).map((f) => f.name).filter((n) => n.startsWith("views_") || n === "cost_gain")).toEqual([]);
  });
});

describe("the views' tables mark instruments", async () => {
  // The same logs, once under an LLM's name and once under the offline learner's.
  const asModel = async (model: string) => {
    const data = mkdtempSync(join(tmpdir(), "s3vti-"));
    writeRun(data, SCORES, CALLS);
    for (const f of ["checkpoints.jsonl", "episodes.jsonl"]) {
      const p = join(data, "runs", ID.run_id, f);
      writeFileSync(p, readFileSync(p, "utf8").replaceAll('"model":"m"', `"model":${JSON.stringify(model)}`));
    }
    return analyzeViews(await loadDataset(data), { B: 20, seed: 0 });
  };
  const tables = (va: Awaited<ReturnType<typeof asModel>>) => ({ views: va.views, updates: va.updates, forgetting: va.forgetting, cost: va.cost, costRuns: va.costRuns });

  it("every view table of an instrument's runs has the instrument note; an LLM's have none", async () => {
    for (const [name, t] of Object.entries(tables(await asModel("builtin:learner")))) {
      expect(t.rows.length, name).toBeGreaterThan(0);
      expect(
        t.notes.some((n) => n.startsWith(`${INSTRUMENT_MARK} instrument:`)),
        name,
      ).toBe(true);
    }
    for (const [name, t] of Object.entries(tables(await asModel("openai:gpt-4o"))))
      expect(
        t.notes.some((n) => n.includes("instrument")),
        name,
      ).toBe(false);
  });
});
