/**
 * self_judging's balanced accuracy and AUROC on hand-made runs: a model that always says 0 must read
 * 0.5 (or "not estimable"), never Agree's near-1; the "not estimable" rule at its edge; the mark on
 * Agree when it exceeds balanced accuracy by more than 0.2; and the rendered Markdown and CSV.
 *
 * Game g, each model a history and a memory run of 5 exploration episodes of 10 steps (100 steps):
 * - `zero`: always s = 0; r = 1 on the first 2 steps of each episode (20 of 100), else 0.
 *   Agree 80/100 = 0.8; balanced accuracy (0/20 + 80/80) / 2 = 0.5; AUROC: every pair tied = 0.5.
 *   0.8 - 0.5 > 0.2: marked.
 * - `silent`: always s = 0 and every r = 0 (builtin:random on chess in the quick reproduction):
 *   Agree 1.0, NMAE 0; no r > 0 step: not estimable.
 * - `rare`: always s = 0; r = 1 on one step of each of 4 episodes of the history run only (4 of 100).
 *   Agree 0.96; 4 r > 0 steps < 10: not estimable.
 * - `edge9` / `edge10`: s = r; 9 (resp. 10) r > 0 steps, the rest r = 0. Balanced accuracy 1 and
 *   AUROC 1 for edge10 (exactly 10 r > 0 steps: estimable); edge9 not estimable.
 * - `mixed`: r = 1 on steps 0..3 of each episode (40), else 0; s = 1 on steps 0, 1, 2 and 4 (so of
 *   each episode's 4 rewarded steps 3 are said positive, and 1 of its 6 unrewarded ones).
 *   Agree (3 + 5) / 10 = 0.8; balanced accuracy (30/40 + 50/60) / 2 = 0.791666...; AUROC: r > 0
 *   steps at s = 1 (30) and s = 0 (10), r <= 0 at s = 1 (10) and s = 0 (50):
 *   U = 30 * (50 + 10/2) + 10 * (50/2) = 1650 + 250 = 1900 over 40 * 60 = 2400 -> 0.791666...
 *   Agree - balanced accuracy = 0.008: not marked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { Report } from "../../src/report/entries.js";
import { toCsv, toMarkdown } from "../../src/report/tables.js";
import { curveRecords, exploreRecords, tempDir, writeRun } from "./helpers.js";

type Pairs = Record<number, [number | null, number][]>;

/** 5 episodes of 10 steps, (s, r) of step k of episode e from `f`. */
function episodes(f: (e: number, k: number) => [number, number]): Pairs {
  const out: Pairs = {};
  for (let e = 1; e <= 5; e++) out[e] = Array.from({ length: 10 }, (_, k) => f(e, k));
  return out;
}

function fixture(): string {
  const dir = tempDir();
  const models: Record<string, { history: Pairs; memory: Pairs }> = {
    zero: { history: episodes((_, k) => [0, k < 2 ? 1 : 0]), memory: episodes((_, k) => [0, k < 2 ? 1 : 0]) },
    silent: { history: episodes(() => [0, 0]), memory: episodes(() => [0, 0]) },
    rare: { history: episodes((e, k) => [0, e <= 4 && k === 0 ? 1 : 0]), memory: episodes(() => [0, 0]) },
    edge9: { history: episodes((e, k) => (e <= 5 && k === 0 ? [1, 1] : [0, 0])), memory: episodes((e, k) => (e <= 4 && k === 0 ? [1, 1] : [0, 0])) },
    edge10: { history: episodes((e, k) => (k === 0 ? [1, 1] : [0, 0])), memory: episodes((_, k) => (k === 0 ? [1, 1] : [0, 0])) },
    mixed: {
      history: episodes((_, k) => [k <= 2 || k === 4 ? 1 : 0, k <= 3 ? 1 : 0]),
      memory: episodes((_, k) => [k <= 2 || k === 4 ? 1 : 0, k <= 3 ? 1 : 0]),
    },
  };
  for (const [model, runs] of Object.entries(models)) {
    for (const pathway of ["history", "memory"] as const) {
      const id = { run_id: `g.${pathway}.${model}`, model, game: "g", pathway };
      const c = curveRecords(id, [
        [0, [1]],
        [3, [1]],
      ]);
      const x = exploreRecords(id, runs[pathway]);
      writeRun(dir, id, { checkpoints: c.checkpoints, episodes: [...c.episodes, ...x.episodes], steps: x.steps });
    }
  }
  return dir;
}

let report: Report;
beforeAll(async () => {
  report = buildReport(await loadDataset(fixture()), { B: 200, seed: 0 });
});

const row = (model: string) => report.tables.self_judging.rows.find((r) => r.model === model)!;

describe("self_judging: judging metrics a constant cannot pass", () => {
  it("a model that always says 0 reads Agree 0.8 but balanced accuracy and AUROC 0.5, and is marked", () => {
    const z = row("zero");
    expect([z.n_pos, z.n_neg]).toEqual([20, 80]);
    expect(z.agree.point).toBeCloseTo(0.8, 12);
    expect(z.balanced_accuracy.point).toBe(0.5);
    expect(z.auroc.point).toBe(0.5);
    // Every resample of a constant answer is 0.5 too: the interval cannot leave it.
    expect([z.balanced_accuracy.lo, z.balanced_accuracy.hi, z.auroc.lo, z.auroc.hi]).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(z.zero_reward_agree).toBe(true);
    expect(z.agree.mark).toBe("§");
  });

  it("a model that always says 0 on a game that never rewards reads Agree 1.0 and not estimable, never 1.0", () => {
    const r = row("silent");
    expect([r.agree.point, r.nmae.point, r.n_pos, r.n_neg]).toEqual([1, 0, 0, 100]);
    expect([r.balanced_accuracy.point, r.auroc.point, r.balanced_accuracy.missing, r.auroc.missing]).toEqual([null, null, "not estimable", "not estimable"]);
  });

  it("fewer than 10 rewarded steps: not estimable, never a number", () => {
    const r = row("rare");
    expect(r.n_pos).toBe(4);
    expect(r.agree.point).toBeCloseTo(0.96, 12);
    expect([r.balanced_accuracy.point, r.auroc.point]).toEqual([null, null]);
    expect(r.balanced_accuracy.missing).toBe("not estimable");
    expect(r.zero_reward_agree).toBe(false); // no balanced accuracy to compare with
  });

  it("the rule's edge: 9 rewarded steps are not estimable, 10 are", () => {
    expect(row("edge9").n_pos).toBe(9);
    expect(row("edge9").balanced_accuracy.point).toBeNull();
    expect(row("edge10").n_pos).toBe(10);
    expect(row("edge10").balanced_accuracy.point).toBe(1);
    expect(row("edge10").auroc.point).toBe(1);
  });

  it("a model with some skill: hand-computed balanced accuracy and AUROC, not marked", () => {
    const m = row("mixed");
    expect([m.n_pos, m.n_neg]).toEqual([40, 60]);
    expect(m.agree.point).toBeCloseTo(0.8, 12);
    expect(m.balanced_accuracy.point).toBeCloseTo((30 / 40 + 50 / 60) / 2, 12);
    expect(m.auroc.point).toBeCloseTo(1900 / 2400, 12);
    expect(m.zero_reward_agree).toBe(false);
    expect(m.agree.mark).toBeUndefined();
    // Episodes are identical within each run, so every resample is the same data: a zero-width interval.
    expect(m.balanced_accuracy.lo).toBeCloseTo(m.balanced_accuracy.point as number, 12);
  });

  it("the pooled row pools the steps of every model", () => {
    const all = row("all");
    expect(all.n_pos).toBe(20 + 4 + 9 + 10 + 40);
    expect(all.n_neg).toBe(600 - 83);
    expect(all.balanced_accuracy.point).not.toBeNull();
    expect(all.balanced_accuracy.lo).not.toBeNull();
    expect(all.balanced_accuracy.lo as number).toBeLessThanOrEqual(all.balanced_accuracy.point as number);
    expect(all.balanced_accuracy.hi as number).toBeGreaterThanOrEqual(all.balanced_accuracy.point as number);
  });

  it("Markdown says 'not estimable' and marks Agree with a footnote; CSV leaves the cells empty", () => {
    const t = report.tables.self_judging;
    const md = toMarkdown(t);
    const line = (m: string) => md.split("\n").find((l) => l.startsWith(`| g | ${m} |`))!;
    expect(line("rare")).toContain("| not estimable | not estimable | 4 | 96 |");
    expect(line("zero")).toMatch(/\| 0\.800 [^|]*§ \|/);
    expect(line("mixed")).not.toContain("§");
    expect(md).toMatch(/§ agreement from zero-reward steps: agree exceeds balanced_accuracy by more than 0\.2[^\n]*1 row\(s\): g\/zero\)/);
    expect(md).toMatch(/Not estimable: a row with fewer than 10 scored steps with r > 0[^\n]*3 row\(s\) here/);
    const csv = toCsv(t).trim().split("\n");
    const header = (csv[0] as string).split(",");
    const cells = (m: string) => {
      const rec = (csv.find((l) => l.startsWith(`g,${m},`)) as string).split(",");
      return (k: string) => rec[header.indexOf(k)];
    };
    for (const k of ["balanced_accuracy", "balanced_accuracy_lo", "balanced_accuracy_hi", "auroc", "auroc_lo", "auroc_n"]) expect(cells("rare")(k)).toBe("");
    expect(cells("rare")("n_pos")).toBe("4");
    expect(cells("zero")("balanced_accuracy")).toBe("0.5");
    expect(cells("zero")("auroc_lo")).toBe("0.5");
  });
});
