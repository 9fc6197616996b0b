/**
 * Issue 11, hand-computed: the paired seed bootstrap enumerated on two seeds and two checkpoints,
 * ties at 12 significant digits, blocks of any checkpoint spacing, the failed-last-checkpoint mark,
 * n_models, left-out steps, and reports over data without (or with partial) manifests.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { WeightedSpearman, couplingStats, runBlocks, spearman, tertileGap } from "../../src/analysis/metrics/coupling.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import type { JudgingCounts } from "../../src/analysis/metrics/judging.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { Report } from "../../src/report/entries.js";
import { toCsv, toMarkdown } from "../../src/report/tables.js";
import { reportCommand } from "../../src/cli/report/report.js";
import { withExitCode } from "../../src/cli/main.js";
import { curveRecords, episode, exploreRecords, tempDir, writeRun, type Identity } from "./helpers.js";

const id = (model: string, game: string, pathway: string): Identity => ({ run_id: `${game}-${model}-${pathway}`, model, game, pathway });

/** Checkpoint and eval-episode records where each score carries its evaluation seed. */
function seeded(ident: Identity, curve: [number, [number, number][]][]): { checkpoints: object[]; episodes: object[] } {
  const checkpoints: object[] = [];
  const episodes: object[] = [];
  for (const [x, pairs] of curve) {
    const scores = pairs.map(([, s]) => s);
    checkpoints.push({ ...ident, checkpoint: x, scores, mean: scores.reduce((a, b) => a + b, 0) / scores.length, status: "ok", reason: null });
    pairs.forEach(([seed, score], e) => episodes.push({ ...episode(ident, { phase: "eval", checkpoint: x, episode: e, score }), seed }));
  }
  return { checkpoints, episodes };
}

function csvRows(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trim().split("\n");
  const cols = (head as string).split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [cols[i] as string, v])));
}

describe("the paired seed bootstrap, enumerated (2 seeds x 2 checkpoints)", () => {
  // Seeds 10 and 11 at checkpoints 0 and 3, the same for both runs.
  // history: x0 {10: 0, 11: 1}, x3 {10: 1, 11: 1}; memory: x0 {10: 0, 11: 1}, x3 {10: 2, 11: 1}.
  // A resample draws the two seeds with replacement: {10,10} p 1/4, {10,11} p 1/2, {11,11} p 1/4.
  //   history y0, y3:  (0, 1)   (0.5, 1)   (1, 1)   -> Avg 0.5, 0.75, 1; AUC+ 1.5, 0.75, 0; NABA 1.5, 1.5, 0
  //   memory  y0, y3:  (0, 2)   (0.5, 1.5) (1, 1)   -> Avg 1, 1, 1;      AUC+ 3, 1.5, 0;    NABA 1.5, 3, 0
  //   (NABA with y0 = 0 scales by the first non-zero y: 1 for history, 2 for memory.)
  //   dNABA on the SAME draw: 0, 1.5, 0 -> point 1.5, replicates 0 (p 1/2) and 1.5 (p 1/2): [0, 1.5].
  // Drawing the runs' seeds independently would allow memory 3 against history 0 (p 1/8): hi 3. And
  // resampling each checkpoint's episodes on its own would make memory's Avg vary ({0, 0.5, 1} + {2, 1.5,
  // 1}) / 2 in [0.5, 1.5]; with the seed drawn once, seed 10's low start and high end cancel: Avg is 1 always.
  let report: Report;
  beforeAll(async () => {
    const dir = tempDir("s3gym-paired-");
    const h = id("m", "g", "history");
    const m = id("m", "g", "memory");
    const hr = seeded(h, [
      [
        0,
        [
          [10, 0],
          [11, 1],
        ],
      ],
      [
        3,
        [
          [10, 1],
          [11, 1],
        ],
      ],
    ]);
    const mr = seeded(m, [
      [
        0,
        [
          [10, 0],
          [11, 1],
        ],
      ],
      [
        3,
        [
          [10, 2],
          [11, 1],
        ],
      ],
    ]);
    writeRun(dir, h, { steps: [], episodes: hr.episodes, checkpoints: hr.checkpoints });
    writeRun(dir, m, { steps: [], episodes: mr.episodes, checkpoints: mr.checkpoints });
    report = buildReport(await loadDataset(dir), { B: 2000, seed: 0 });
  });

  it("Avg, AUC+ and NABA intervals of each run", () => {
    const rows = report.tables.main_results.rows;
    const his = rows.find((r) => r.pathway === "history");
    const mem = rows.find((r) => r.pathway === "memory");
    expect([his?.avg.point, his?.avg.lo, his?.avg.hi]).toEqual([0.75, 0.5, 1]);
    expect([his?.auc_plus.point, his?.auc_plus.lo, his?.auc_plus.hi]).toEqual([0.75, 0, 1.5]);
    expect([mem?.avg.point, mem?.avg.lo, mem?.avg.hi]).toEqual([1, 1, 1]);
    expect([mem?.naba.point, mem?.naba.lo, mem?.naba.hi]).toEqual([3, 0, 3]);
    expect([his?.n_seeds, his?.avg.n]).toEqual([2, 2]);
  });

  it("dNABA shares one draw between the two runs: [0, 1.5], not [.., 3]", () => {
    const row = report.tables.summary_vs_history.rows.find((r) => r.model === "m");
    expect([row?.dnaba.point, row?.dnaba.lo, row?.dnaba.hi]).toEqual([1.5, 0, 1.5]);
    expect(row?.dnaba.n).toBe(2);
    const mean = report.tables.summary_vs_history.rows.find((r) => r.model === "mean");
    expect(mean?.n_models).toBe(1);
  });

  it("two seeds are fewer than the coverage table supports: n=2 beside every interval, and a note", () => {
    const md = toMarkdown(report.tables.main_results);
    expect(md).toContain("0.750 [0.500, 1.000] n=2");
    expect(md).toMatch(/n=K beside an interval: it rests on K resampling units/);
    // History's Avg hull at 2 seeds (t_1 = 12.7) leaves the scores, so the seed bootstrap's interval
    // stands: the note names that one's coverage (avg); memory's constant Avg keeps its hull (avg_hull).
    expect(md).toMatch(/avg \(n=2: below the smallest size measured; no size up to 30 reached 95% \+- 3\); avg \[avg_hull\] \(n=2/);
    expect(toMarkdown(report.tables.summary_vs_history)).toContain("1.500 [0.000, 1.500] n=2");
    // The CSV carries the count in <key>_n.
    const csv = csvRows(toCsv(report.tables.main_results));
    expect(csv[0]?.avg_n).toBe("2");
  });
});

describe("ties at 12 significant digits", () => {
  // x = [0.1 + 0.2, 0.3, 1] with g = [1, 0, 0.5]: 0.1 + 0.2 is 0.30000000000000004, equal to 0.3 in exact
  // arithmetic. Tied mid-ranks x [1.5, 1.5, 3], g [3, 1, 2]: deviations [-.5, -.5, 1] . [1, -1, 0] = 0 ->
  // rho = 0 exactly. Ranking the raw floats gives x ranks [2, 1, 3]: [0, -1, 1] . [1, -1, 0] = 1, / 2 = 0.5.
  const x = [0.1 + 0.2, 0.3, 1];
  const g = [1, 0, 0.5];

  it("spearman is exactly 0", () => {
    expect(x[0]).not.toBe(x[1]);
    expect(spearman(x, g)).toBe(0);
  });

  it("the bootstrap's weighted Spearman agrees (all weights 1), and so does the coupling table's rho(-E, g)", () => {
    expect(new WeightedSpearman(x, g).rho([1, 1, 1])).toBe(0);
    const blocks = x.map((e, i) => ({ A: i, E: -e, g: g[i] as number }));
    expect(couplingStats(blocks).rho_neg_err).toBe(0);
  });

  it("tertiles treat keys equal up to floating-point crumbs as tied", () => {
    // keys [0.30000000000000004, 0.3, 0.3]: all tied -> both thirds are one place of the group at its
    // mean g 2: gap 0. Raw floats would put block 0 on top: gap 5 - 0 = 5 (bottom block 1, g 0).
    expect(tertileGap([0.1 + 0.2, 0.3, 0.3], [5, 0, 1])).toBe(0);
  });
});

describe("blocks between adjacent checkpoints of any spacing", () => {
  const ep = (): JudgingCounts => ({ n: 1, unscored: 0, agree: 1, over: 0, under: 0, absErr: 0, posR: 1, posS: 1 });
  const episodes = new Map(Array.from({ length: 30 }, (_, i) => [i + 1, ep()] as [number, JudgingCounts]));

  it("0, 3, ..., 27, 29 gives 10 blocks; the last covers episodes 28 and 29", () => {
    const xs = [...Array.from({ length: 10 }, (_, i) => 3 * i), 29];
    const blocks = runBlocks(
      xs.map((x) => ({ x, y: x })),
      episodes,
      { min: 0, max: 1 },
    );
    expect(blocks).toHaveLength(10);
    expect(blocks.map((b) => [b.s, b.t]).at(-1)).toEqual([27, 29]);
    // g = (29 - 27) / (29 - 0)
    expect(blocks.at(-1)?.g).toBeCloseTo(2 / 29, 12);
  });

  it("an extra checkpoint at x = 1 gives 11 blocks (0-1, 1-3, 3-6, ..., 27-30)", () => {
    const xs = [0, 1, ...Array.from({ length: 10 }, (_, i) => 3 * (i + 1))];
    const blocks = runBlocks(
      xs.map((x) => ({ x, y: x })),
      episodes,
      { min: 0, max: 1 },
    );
    expect(blocks.map((b) => b.t)).toEqual([1, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
    expect(blocks[1]?.s).toBe(1);
  });
});

describe("marks and counts in the tables", () => {
  let report: Report;
  beforeAll(async () => {
    const dir = tempDir("s3gym-marks-");
    // a: checkpoints 0, 3 valid, 6 failed; b: 0, 3, 6 valid. The game's schedule ends at 6.
    const a = id("a", "g", "history");
    const ar = curveRecords(a, [
      [0, [1]],
      [3, [2]],
      [6, null],
    ]);
    // a failed exploration episode 2 with two steps: left out of judging, counted in the notes.
    const ax = exploreRecords(a, { 1: [[1, 1]] });
    const failedSteps = exploreRecords(a, {
      2: [
        [1, 0],
        [0, 1],
      ],
    }).steps;
    writeRun(dir, a, {
      steps: [...ax.steps, ...failedSteps],
      episodes: [...ar.episodes, ...ax.episodes, episode(a, { phase: "explore", episode: 2, status: "failed" })],
      checkpoints: ar.checkpoints,
    });
    const b = id("b", "g", "history");
    const br = curveRecords(b, [
      [0, [1]],
      [3, [2]],
      [6, [3]],
    ]);
    writeRun(dir, b, { steps: [], episodes: br.episodes, checkpoints: br.checkpoints });
    report = buildReport(await loadDataset(dir), { B: 100, seed: 0 });
  });

  it("a failed last checkpoint is flagged beside AUC+ (and NABA): its range is 0..3, not 0..6", () => {
    const a = report.tables.main_results.rows.find((r) => r.model === "a");
    const b = report.tables.main_results.rows.find((r) => r.model === "b");
    expect(a?.auc_plus.point).toBe(1.5); // 3 * (0 + 1) / 2
    expect(a?.auc_plus.mark).toBe("to x=3");
    expect(b?.auc_plus.mark).toBeUndefined();
    const md = toMarkdown(report.tables.main_results);
    expect(md).toMatch(/1\.500( \[[^\]]*\])?( n=\d+)? to x=3/);
    expect(md).toContain("a / g / history (0..3 instead of 0..6)");
  });

  it("steps of failed exploration episodes are left out of judging and counted in the notes", () => {
    const row = report.tables.self_judging.rows.find((r) => r.model === "a");
    expect(row?.n_steps).toBe(1);
    expect(report.tables.self_judging.notes.join("\n")).toMatch(/Left out: steps of exploration episodes that failed[^\n]*: g 2\./);
  });
});

describe("report without manifests, or with partial ones", () => {
  afterEach(() => vi.restoreAllMocks());

  async function run(argv: string[]): Promise<{ rc: number; err: string }> {
    let err = "";
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
    const rc = await withExitCode("report", () => reportCommand(argv));
    vi.restoreAllMocks();
    return { rc, err };
  }

  function writeTwoRuns(dir: string): string[] {
    return ["history", "memory"].map((pw) => {
      const x = id("m", "g", pw);
      const ex = exploreRecords(x, {
        1: [
          [1, 1],
          [0, 1],
        ],
      });
      const c = curveRecords(x, [
        [0, [1, 2]],
        [3, [2, 3]],
      ]);
      return writeRun(dir, x, { steps: ex.steps, episodes: [...ex.episodes, ...c.episodes], checkpoints: c.checkpoints });
    });
  }

  it("only the three JSONL files per run: the report is written", async () => {
    const dir = tempDir("s3gym-nomanifest-");
    writeTwoRuns(dir);
    const out = tempDir("s3gym-nomanifest-out-");
    const { rc, err } = await run(["--data", dir, "--out", out, "--bootstrap", "20"]);
    expect(rc).toBe(0);
    expect(err).not.toMatch(/manifest/);
  });

  it("partial manifests: the fields that validate are used, the rest are named in a warning, the report never stops", async () => {
    const dir = tempDir("s3gym-partial-");
    const [hDir, mDir] = writeTwoRuns(dir) as [string, string];
    // Written by another tool: identity and a run seed, an eval_seeds of the wrong type, no kit fields.
    writeFileSync(join(hDir, "manifest.json"), JSON.stringify({ run_id: "g-m-history", model: "m", game: "g", pathway: "history", run_seed: 3, eval_seeds: "1,2", tool: "other" }));
    writeFileSync(join(mDir, "manifest.json"), "{ not json");
    const ds = await loadDataset(dir);
    const h = ds.runs.find((r) => r.pathway === "history");
    expect(h?.manifest?.run_seed).toBe(3);
    expect(h?.manifest?.eval_seeds).toBeUndefined();
    expect((h?.manifest as Record<string, unknown>).tool).toBe("other");
    const warning = ds.warnings.find((w) => w.startsWith(join(hDir, "manifest.json"))) as string;
    expect(warning).toContain("kit_version (missing)");
    expect(warning).toContain("eval_seeds (");
    expect(warning).not.toContain("run_seed");
    expect(ds.warnings.some((w) => w.includes(join(mDir, "manifest.json")) && w.includes("invalid JSON"))).toBe(true);
    const out = tempDir("s3gym-partial-out-");
    const { rc, err } = await run(["--data", dir, "--out", out, "--bootstrap", "20"]);
    expect(rc).toBe(0);
    expect(err).toContain("kit_version (missing)");
  });

  it("a manifest that contradicts its run's records is not used (a warning, not an error)", async () => {
    const dir = tempDir("s3gym-clash-");
    const [hDir] = writeTwoRuns(dir) as [string, string];
    writeFileSync(join(hDir, "manifest.json"), JSON.stringify({ run_id: "g-m-history", model: "other-model", game: "g", pathway: "history" }));
    const ds = await loadDataset(dir);
    expect(ds.runs.find((r) => r.pathway === "history")?.manifest).toBeNull();
    expect(ds.warnings.some((w) => w.includes("field 'model' says other-model"))).toBe(true);
  });
});
