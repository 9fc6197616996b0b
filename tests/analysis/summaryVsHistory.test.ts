/**
 * Table 7 (summary_vs_history) cannot point the wrong way: beside dNABA it prints the paired signed
 * gain of the summary pathway over history, marks rows where the two disagree in sign, pools the
 * game mean over the models that can learn only, and counts a win only where the gain's interval
 * lies above 0. Every expected number below is worked out by hand from the scores written.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import { toCsv, toMarkdown } from "../../src/report/tables.js";
import { writeSyntheticData } from "../../src/logs/synthetic.js";
import { curveRecords, tempDir, writeRun } from "./helpers.js";
import type { Report } from "../../src/report/entries.js";

// History on 8 seeds at x = 0, 3, 6, 9: y0 = 1 on every seed, then scores 2..5 varying by seed.
// Memory = history + 1 on every seed and checkpoint.
const SEEDS = 8;
const hist = (x: number, k: number): number => (x === 0 ? 1 : 1 + x / 3 + (k % 3));
const XS = [0, 3, 6, 9];

function write(dir: string, model: string, game: string, pathway: string, shift: number): void {
  const id = { run_id: `${game}.${pathway}.${model.replace(/[^a-z]/g, "")}`, model, game, pathway };
  const c = curveRecords(
    id,
    XS.map((x) => [x, Array.from({ length: SEEDS }, (_, k) => hist(x, k) + shift)] as [number, number[]]),
  );
  writeRun(dir, id, { checkpoints: c.checkpoints, episodes: c.episodes });
}

describe("summary_vs_history on memory = history + 1.0", () => {
  let report: Report;
  beforeAll(async () => {
    const dir = tempDir();
    write(dir, "m", "pvz", "history", 0);
    write(dir, "m", "pvz", "memory", 1);
    // A built-in that cannot learn: identical curves on both pathways (gain 0, no win).
    write(dir, "builtin:random", "pvz", "history", 0);
    write(dir, "builtin:random", "pvz", "memory", 0);
    report = buildReport(await loadDataset(dir), { B: 400, seed: 1 });
  });

  it("prints the paired gain +1.000 with p = 2/2^8 and counts a win, whatever dNABA says", () => {
    const rows = report.tables.summary_vs_history.rows;
    const m = rows.find((r) => r.model === "m")!;
    // Every seed's difference is exactly +1 at x = 3, 6, 9: gain 1, every resample 1.
    expect(m.gain.point).toBeCloseTo(1, 12);
    // The inversion counts ties within 1e-10 as reaching, so a constant difference gives ends 1e-10 either side of it.
    expect(m.gain.lo).toBeCloseTo(1, 8);
    expect(m.gain.hi).toBeCloseTo(1, 8);
    // Only the identity and the all-flipped pattern reach |T| = 1: p = 2 / 256.
    expect(m.gain_p).toBeCloseTo(2 / 256, 12);
    // dNABA: history y0 = 1, memory y0 = 2 (the same AUC+ over a doubled scale) -> dNABA < 0: a "loss"
    // by the paper's statistic, marked as disagreeing with the gain.
    expect(m.dnaba.point as number).toBeLessThan(0);
    expect(m.sign).toBe("disagree");
    const mean = rows.find((r) => r.model === "mean" && r.pool === "learners")!;
    expect([mean.wins, mean.losses, mean.undecided, mean.n_models]).toEqual([1, 0, 0, 1]);
    expect(mean.gain.point).toBeCloseTo(1, 12);
    expect(toMarkdown(report.tables.summary_vs_history)).toMatch(/\| pvz \| memory \| history \| learners \| mean \| [^|]+ \| 1\.000 \[1\.000, 1\.000\] /);
  });

  it("keeps the models that cannot learn apart: their own mean row, no win", () => {
    const rows = report.tables.summary_vs_history.rows;
    const nullMean = rows.find((r) => r.model === "mean" && r.pool === "null")!;
    expect(nullMean.gain.point).toBe(0);
    expect([nullMean.wins, nullMean.losses, nullMean.undecided]).toEqual([0, 0, 1]);
    const learners = rows.find((r) => r.model === "mean" && r.pool === "learners")!;
    expect(learners.n_models).toBe(1);
  });

  it("the CSV carries the gain's interval and the adjusted p-values beside gain_p", () => {
    const header = toCsv(report.tables.summary_vs_history).split("\n")[0]!;
    expect(header).toContain("gain,gain_lo,gain_hi,gain_n,gain_indicative,gain_p,gain_p_holm,gain_p_bh,sign");
  });
});

describe("summary_vs_history with a hybrid pathway", () => {
  it("lists memory and hybrid against history, and hybrid against memory, with the same columns", async () => {
    const dir = tempDir();
    await writeSyntheticData(dir, {
      models: ["m1", "m2"],
      games: ["chess", "trust"],
      pathways: ["history", "memory", "hybrid"],
      exploreEpisodes: 6,
      checkpointEvery: 3,
      evalEpisodes: 4,
      stepsPerEpisode: [2, 3],
      failRate: 0,
    });
    const r = buildReport(await loadDataset(dir), { B: 50, seed: 0 });
    const rows = r.tables.summary_vs_history.rows;
    const contrasts = [...new Set(rows.map((x) => `${x.pathway} - ${x.versus}`))];
    expect(contrasts).toEqual(["memory - history", "hybrid - history", "hybrid - memory"]);
    for (const c of contrasts) {
      const mine = rows.filter((x) => `${x.pathway} - ${x.versus}` === c);
      // 2 games x (2 models + their learners' mean).
      expect(mine.map((x) => `${x.game} ${x.model}`)).toEqual(["chess m1", "chess m2", "chess mean", "trust m1", "trust m2", "trust mean"]);
      expect(mine.every((x) => x.gain.point !== null)).toBe(true);
    }
    expect(r.tables.summary_vs_history.notes.some((n) => n.startsWith("Across games, hybrid vs memory:"))).toBe(true);
  });

  it("without hybrid runs it is the memory-vs-history table alone", async () => {
    const dir = tempDir();
    await writeSyntheticData(dir, { models: ["m1"], games: ["chess"], pathways: ["history", "memory"], exploreEpisodes: 6, checkpointEvery: 3, evalEpisodes: 3, stepsPerEpisode: [2, 3], failRate: 0 });
    const r = buildReport(await loadDataset(dir), { B: 20, seed: 0 });
    expect([...new Set(r.tables.summary_vs_history.rows.map((x) => x.pathway))]).toEqual(["memory"]);
  });
});
