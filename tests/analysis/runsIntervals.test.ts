/**
 * The curve statistics' intervals of a cell with several run seeds (the model as estimand), hand-computed
 * on 3 runs: the t interval over the runs' own values (t_{2, 0.975} = 4.302653), cut at the bound the
 * expected value cannot cross (Avg), and its hull with the two-stage percentile interval (AUC+); NABA
 * and dNABA print the point alone (no method covers them in every shape bench/coverage simulates).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { MethodTally, describeBootstrap, methodsNamed } from "../../src/analysis/stats/bootstrap.js";
import { ANY_RANGE, NONNEGATIVE_RANGE, runsHullInterval, runsMeanInterval } from "../../src/analysis/stats/intervals.js";
import { runsEstimate } from "../../src/analysis/tables/curveTables.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { Report } from "../../src/report/entries.js";
import { toCsv, toMarkdown } from "../../src/report/tables.js";
import { curveRecords, tempDir, writeRun } from "./helpers.js";

// [0.3, 0.6, 0.9]: mean 0.6, sd 0.3, se 0.3 / sqrt 3 = 0.1732051, half-width 4.302653 x se = 0.7452413.
const T_LO = -0.14524131352509917;
const T_HI = 1.3452413135250991;

describe("runsMeanInterval: t over the runs' values, cut at the statistic's bound", () => {
  it("[0.3, 0.6, 0.9] unbounded: 0.6 +- 0.7452413", () => {
    const r = runsMeanInterval([0.3, 0.6, 0.9], ANY_RANGE)!;
    expect(r.point).toBeCloseTo(0.6, 12);
    expect(r.lo).toBeCloseTo(T_LO, 9);
    expect(r.hi).toBeCloseTo(T_HI, 9);
    expect(r.df).toBe(2);
    expect(r.cut).toBe(false);
  });

  it("AUC+ cannot be below 0: the lower end is cut at 0, the upper end kept", () => {
    const r = runsMeanInterval([0.3, 0.6, 0.9], NONNEGATIVE_RANGE)!;
    expect(r.lo).toBe(0);
    expect(r.hi).toBeCloseTo(T_HI, 9);
    expect(r.cut).toBe(true);
  });

  it("Avg [0.2, 0.3, 0.9] within scores observed in [0.1, 1]: 0.466667 +- 0.940477 = [-0.473813, 1.407146], cut to [0.1, 1]", () => {
    const open = runsMeanInterval([0.2, 0.3, 0.9])!;
    expect(open.lo).toBeCloseTo(-0.47381269222507627, 9);
    expect(open.hi).toBeCloseTo(1.4071460255584096, 9);
    const r = runsMeanInterval([0.2, 0.3, 0.9], { lo: 0.1, hi: 1 })!;
    expect([r.lo, r.hi, r.cut]).toEqual([0.1, 1, true]);
  });

  it("fewer than 2 runs: none; equal values: the point", () => {
    expect(runsMeanInterval([0.5], ANY_RANGE)).toBeNull();
    const r = runsMeanInterval([0.5, 0.5, 0.5], NONNEGATIVE_RANGE)!;
    expect([r.lo, r.hi]).toEqual([0.5, 0.5]);
  });
});

describe("runsHullInterval: the t part and the two-stage percentile part", () => {
  it("takes the lower of the lower ends and the higher of the upper ends", () => {
    expect(runsHullInterval({ lo: 0, hi: 1.3 }, { lo: 0.3, hi: 0.9 })).toEqual({ lo: 0, hi: 1.3 });
    expect(runsHullInterval({ lo: 0.5, hi: 0.5 }, { lo: 0.2, hi: 0.9 })).toEqual({ lo: 0.2, hi: 0.9 });
    expect(runsHullInterval({ lo: 0.1, hi: 0.6 }, { lo: 0.2, hi: 0.9 })).toEqual({ lo: 0.1, hi: 0.9 });
  });

  it("one part missing: the other alone; both: no interval", () => {
    expect(runsHullInterval(null, { lo: 0.2, hi: 0.9 })).toEqual({ lo: 0.2, hi: 0.9 });
    expect(runsHullInterval({ lo: 0, hi: 1 }, { lo: null, hi: null })).toEqual({ lo: 0, hi: 1 });
    expect(runsHullInterval(null, { lo: null, hi: null })).toEqual({ lo: null, hi: null });
  });
});

describe("the methods line names the hull apart from the t interval and the percentile bootstrap", () => {
  it("a tally of 2 t-over-runs and 1 hull interval", () => {
    const t = new MethodTally();
    t.add("truns", false, 2);
    t.add("runshull");
    const line = describeBootstrap({ B: 100, seed: 1 }, "runs", t);
    expect(line).toContain("t interval over runs (2 intervals), hull of the t interval over runs and the two-stage percentile interval (runs, then evaluation seeds) (1)");
    expect(methodsNamed(line)).toEqual(["t over runs", "t over runs + two-stage percentile hull"]);
    const hullOnly = new MethodTally();
    hullOnly.add("runshull");
    expect(methodsNamed(describeBootstrap({ B: 100, seed: 1 }, "runs", hullOnly))).toEqual(["t over runs + two-stage percentile hull"]);
  });
});

describe("runsEstimate: n is the run count, flagged by the coverage measured over runs", () => {
  const e = { point: 0.6, lo: 0.3, hi: 1.5, n: 10, indicative: true };
  it("AUC+ at 3 runs: the hull of the cut t interval and the percentile part, not indicative whatever the seed-level flag said", () => {
    const r = runsEstimate(e, "auc_plus", [0.3, 0.6, 0.9], ANY_RANGE);
    expect(r.lo).toBe(0);
    expect(r.hi).toBe(1.5);
    expect(r.n).toBe(3);
    expect(r.indicative).toBeUndefined();
  });
  it("Avg at 3 runs: the t interval alone, cut at the scores observed (the percentile part does not widen it)", () => {
    const r = runsEstimate({ point: 0.466667, lo: 0.05, hi: 0.95, n: 10 }, "avg", [0.2, 0.3, 0.9], { lo: 0.1, hi: 1 });
    expect([r.lo, r.hi, r.n]).toEqual([0.1, 1, 3]);
    const open = runsEstimate({ point: 0.4, lo: 0, hi: 2, n: 10 }, "avg", [0.3, 0.4, 0.5], ANY_RANGE);
    expect(open.lo).toBeCloseTo(0.151586228824967, 9);
    expect(open.hi).toBeCloseTo(0.6484137711750331, 9);
  });
  it("NABA: the point alone, no n and no flag", () => {
    expect(runsEstimate(e, "naba", [0.3, 0.6, 0.9], ANY_RANGE)).toEqual({ point: 0.6, lo: null, hi: null });
  });
  it("2 runs: below the 3 runs the bench measured covering: indicative, n=2", () => {
    const r = runsEstimate({ point: 0.45, lo: 0.3, hi: 0.6, n: 10 }, "avg", [0.3, 0.6], ANY_RANGE);
    expect(r.n).toBe(2);
    expect(r.indicative).toBe(true);
  });
});

describe("main_results and Table 7 on 3 run seeds of one cell (1 evaluation seed, checkpoints 0 and 3)", () => {
  // y0 = 0.2 in every run; y3 = 0.4, 0.6, 0.8. Per run: Avg 0.3, 0.4, 0.5; AUC+ = 3 x (y3 - y0) / 2 =
  // 0.3, 0.6, 0.9; NABA = AUC+ / 0.2 = 1.5, 3, 4.5. One seed per run: the two-stage percentile part
  // lies within the runs' values, and with 3 runs the t interval always holds them (max |v - mean| <=
  // 1.155 sd < 2.484 sd): the printed interval is the t part.
  //   Avg  0.4 +- 4.302653 x 0.1 / sqrt 3 = [0.151586, 0.648414], cut at the lowest score observed (0.2)
  //   AUC+ 0.6 -> [-0.145241, 1.345241] cut at 0 -> [0, 1.345241]
  //   NABA 3   -> [-0.726207, 6.726207] cut at 0 -> [0, 6.726207]
  // Memory, on each run seed's evaluation seed: y0 = 0.2, y3 = 0.5, 0.6, 1.0 -> NABA 2.25, 3, 6; Table 7's
  // dNABA = mean NABA(memory) - mean NABA(history) = 3.75 - 3 = 0.75, the point alone.
  let report: Report;
  beforeAll(async () => {
    const dir = tempDir("s3gym-runs-");
    const write = (pathway: string, y3s: number[]): void =>
      y3s.forEach((y3, k) => {
        const ident = { run_id: `g-m-${pathway}-${k}`, model: "m", game: "g", pathway };
        const c = curveRecords(ident, [
          [0, [0.2]],
          [3, [y3]],
        ]);
        // Run seed k evaluates on seed 100 + k (both pathways): the pairs are by seed, not by order.
        const episodes = (c.episodes as Record<string, unknown>[]).map((e) => ({ ...e, seed: 100 + k }));
        writeRun(dir, ident, { steps: [], episodes, checkpoints: c.checkpoints });
      });
    write("history", [0.4, 0.6, 0.8]);
    write("memory", [0.5, 0.6, 1.0]);
    report = buildReport(await loadDataset(dir), { B: 2000, seed: 0 });
  });

  it("Table 7: dNABA of 3 run seeds is the point alone (no interval, no n=K)", () => {
    const row = report.tables.summary_vs_history.rows.find((r) => r.model === "m")!;
    expect(row.dnaba.point).toBeCloseTo(0.75, 9);
    expect([row.dnaba.lo, row.dnaba.hi, row.dnaba.indicative]).toEqual([null, null, undefined]);
    const mean = report.tables.summary_vs_history.rows.find((r) => r.model === "mean")!;
    expect([mean.dnaba.lo, mean.dnaba.hi]).toEqual([null, null]);
    expect(toMarkdown(report.tables.summary_vs_history)).not.toMatch(/\] n=\d/);
  });

  it("Avg and AUC+: the hand-computed intervals over 3 runs, n = 3, not indicative; NABA the point alone", () => {
    const row = report.tables.main_results.rows.find((r) => r.pathway === "history")!;
    expect(row.runs.length).toBe(3);
    expect(row.n_seeds).toBe(1);
    const got = (k: "avg" | "auc_plus") => [row[k].point, row[k].lo, row[k].hi];
    const exp: Record<string, number[]> = {
      avg: [0.4, 0.2, 0.6484137711750331],
      auc_plus: [0.6, 0, 1.3452413135250991],
    };
    for (const k of ["avg", "auc_plus"] as const) {
      got(k).forEach((v, i) => expect(v, `${k}[${i}]`).toBeCloseTo(exp[k]![i]!, 9));
      expect(row[k].n, k).toBe(3);
      expect(row[k].indicative, k).toBeUndefined();
    }
    expect(row.naba.point).toBeCloseTo(3, 9);
    expect([row.naba.lo, row.naba.hi]).toEqual([null, null]);
    // Max: the point alone (no method covers it).
    expect([row.max.lo, row.max.hi]).toEqual([null, null]);
  });

  it("the Markdown prints no n=K mark, the CSV says indicative false (NABA: no interval), and the first note names the methods with their counts", () => {
    const t = report.tables.main_results;
    const md = toMarkdown(t);
    expect(md).toContain("0.600 [0.000, 1.345]");
    expect(md).not.toMatch(/\] n=\d/);
    const [head, ...lines] = toCsv(t).trim().split("\n") as [string, ...string[]];
    const cols = head.split(",");
    const line = lines.find((l) => l.split(",")[cols.indexOf("pathway")] === "history") as string;
    const val = (k: string): string => line.split(",")[cols.indexOf(k)] as string;
    expect([val("avg_indicative"), val("auc_plus_indicative"), val("naba_indicative")]).toEqual(["false", "false", ""]);
    expect([val("avg_n"), val("auc_plus_n"), val("naba_lo")]).toEqual(["3", "3", ""]);
    // Two rows (history, memory): Avg and gain_vs_y0 by the t over runs (4; no none run, so no
    // gain_vs_none), AUC+ by the hull (2), NABA none.
    expect(t.notes[0]).toContain("t interval over runs (4 intervals), hull of the t interval over runs and the two-stage percentile interval (runs, then evaluation seeds) (2)");
  });
});
