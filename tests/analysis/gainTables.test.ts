/** The gain columns of main_results, the y0 ~ 0 mark and the null check (issue 24 items 3, 4), by hand. */
import { describe, expect, it } from "vitest";
import { pointOnly, type Estimate } from "../../src/analysis/bootstrap.js";
import { analyzeCurves, mainResultsTable } from "../../src/analysis/curveTables.js";
import { loadDataset } from "../../src/analysis/dataset.js";
import { Y0_MARK, binomialUpperTail, describeNullCheck, estimateGain, nullCheck, y0NearZero, type NullCheckRow } from "../../src/analysis/gainTables.js";
import { cannotLearn } from "../../src/analysis/learnerPool.js";
import { curveRecords, tempDir, writeRun } from "./helpers.js";

const iv = (lo: number, hi: number): Estimate => ({ point: (lo + hi) / 2, lo, hi });
const row = (model: string, pathway: string, none: Estimate, y0: Estimate): NullCheckRow => ({ model, game: "g", pathway, gain_vs_none: none, gain_vs_y0: y0 });

describe("null check", () => {
  it("counts the gain intervals of non-learners and of every none row, and which exclude 0", () => {
    const rows = [
      row("builtin:random", "history", iv(0.1, 0.5), iv(-0.1, 0.2)), // 2 counted, 1 excludes
      row("builtin:learner", "none", pointOnly(null), iv(-0.5, -0.1)), // 1 counted (y0), excludes
      row("builtin:learner", "history", iv(1, 2), iv(1, 2)), // can learn: not counted
      row("builtin:oracle", "memory", pointOnly(0.3), pointOnly(null)), // no interval: not counted
      row("builtin:heuristic", "memory", { point: 0, lo: 0, hi: 0 }, { point: 0, lo: 0, hi: 0 }), // 2 counted, [0, 0] holds 0
    ];
    const c = nullCheck(rows);
    expect([c.intervals, c.excluding, c.share]).toEqual([5, 2, 0.4]);
    // P(X >= 2), X ~ Bin(5, 0.05) = 1 - 0.95^5 - 5 * 0.05 * 0.95^4 = 0.0225925...
    expect(c.p_binomial).toBeCloseTo(1 - 0.95 ** 5 - 5 * 0.05 * 0.95 ** 4, 12);
    // Five intervals, not too many exclusions: too few to show a pass.
    expect([c.pass, c.testable]).toEqual([null, false]);
    expect(c.examples).toEqual(["builtin:random / g / history: gain_vs_none", "builtin:learner / g / none: gain_vs_y0"]);
    expect(describeNullCheck(c)).toMatch(/^Null check not testable \(5 intervals\): 2 of 5 gain intervals .* exclude 0 \(40\.0%; expected about 5%/);
  });
  it("passes only on 10 intervals or more; one interval is not testable, never 'passed: 0 of 1'", () => {
    const one = nullCheck([row("builtin:learner", "none", pointOnly(null), iv(-1, 1))]);
    expect([one.intervals, one.pass, one.testable]).toEqual([1, null, false]);
    expect(describeNullCheck(one)).toMatch(/^Null check not testable \(1 interval\): 0 of 1 /);
    expect(describeNullCheck(one)).not.toMatch(/passed/);
    // 9 intervals (five rows of two, one without an interval): still not testable; 10: passed.
    const rows = (n: number) => Array.from({ length: n }, (_, i) => row("builtin:random", `p${i}`, iv(-1, 1), iv(-1, 1)));
    const nine = nullCheck([...rows(4), row("builtin:random", "x", iv(-1, 1), pointOnly(null))]);
    expect([nine.intervals, nine.pass]).toEqual([9, null]);
    const ten = nullCheck(rows(5));
    expect([ten.intervals, ten.pass, ten.testable]).toEqual([10, true, true]);
    expect(describeNullCheck(ten)).toMatch(/^Null check passed: 0 of 10 /);
  });
  it("fails loudly when the exclusions are too many for 95% intervals", () => {
    const bad = [row("builtin:random", "history", iv(0.1, 0.5), iv(0.1, 0.2)), row("builtin:random", "memory", iv(0.1, 0.5), iv(-1, 1)), row("builtin:heuristic", "history", iv(-1, 1), iv(-1, 1))];
    const c = nullCheck(bad);
    // A failure is reported however few the intervals (3 of 6: binomial p about 0.002).
    expect([c.intervals, c.excluding, c.pass, c.testable]).toEqual([6, 3, false, false]);
    expect(describeNullCheck(c)).toMatch(/^NULL CHECK FAILED: 3 of 6/);
  });
  it("says so when there is nothing to count", () => {
    expect(nullCheck([row("builtin:learner", "history", iv(1, 2), iv(1, 2))]).intervals).toBe(0);
    expect(describeNullCheck(nullCheck([]))).toMatch(/no gain interval/);
  });
  it("binomial upper tail", () => {
    expect(binomialUpperTail(0, 10, 0.05)).toBe(1);
    expect(binomialUpperTail(1, 1, 0.05)).toBeCloseTo(0.05, 15);
    expect(binomialUpperTail(2, 2, 0.5)).toBeCloseTo(0.25, 15);
    expect(binomialUpperTail(3, 2, 0.5)).toBe(0);
  });
  it("the instruments that cannot learn", () => {
    expect(["builtin:random", "builtin:heuristic", "builtin:oracle", "builtin:perfect-judge", "builtin:ceiling", "builtin:random?x=1"].map(cannotLearn)).toEqual([true, true, true, true, true, true]);
    expect(["builtin:learner", "builtin:learner?judge=0.25", "builtin:randomize", "openai:gpt-4o"].map(cannotLearn)).toEqual([false, false, false, false]);
  });
});

describe("y0 near 0", () => {
  it("within 5% of the game's score range from 0", () => {
    expect(y0NearZero(0.05, { min: 0, max: 1 })).toBe(true);
    expect(y0NearZero(-0.04, { min: -1, max: 0 })).toBe(true);
    expect(y0NearZero(0.051, { min: 0, max: 1 })).toBe(false);
    expect(y0NearZero(0, { min: 0, max: 0 })).toBe(false);
    expect(y0NearZero(null, { min: 0, max: 1 })).toBe(false);
  });
});

describe("main_results gains (hand-computed)", () => {
  // Model builtin:learner, seeds 0, 1, 2 (episode index = seed).
  // Game g: none x0 [1,1,1] x3 [1,1,1] x6 [1,2,1]; history x0 [1,1,1] x3 [2,3,2] x6 [3,3,4].
  //   history gain_vs_none: x3 [1,2,1] -> 4/3, x6 [2,1,3] -> 2: 5/3; per-seed means 1.5, 1.5, 2, all > 0 -> p = 2/8.
  //   history gain_vs_y0: x3 [1,2,1] -> 4/3, x6 [2,2,3] -> 7/3: 11/6 (p 2/8); none gain_vs_y0: 0 and 1/3 -> 1/6, p = 1.
  // Game h: none all 0; history x0 [0,0,0] x3 [1,2,2]: y0 = 0 within 5% of the range [0, 2]: NABA marked.
  function data(): string {
    const dir = tempDir("s3gym-gain-");
    const put = (game: string, pathway: string, curve: [number, number[]][]): void => {
      const id = { run_id: `${game}.${pathway}`, model: "builtin:learner", game, pathway };
      const c = curveRecords(id, curve);
      writeRun(dir, id, { checkpoints: c.checkpoints, episodes: c.episodes, steps: [] });
    };
    put("g", "none", [[0, [1, 1, 1]], [3, [1, 1, 1]], [6, [1, 2, 1]]]);
    put("g", "history", [[0, [1, 1, 1]], [3, [2, 3, 2]], [6, [3, 3, 4]]]);
    put("h", "none", [[0, [0, 0, 0]], [3, [0, 0, 0]]]);
    put("h", "history", [[0, [0, 0, 0]], [3, [1, 2, 2]]]);
    return dir;
  }
  it("gain_vs_none, gain_vs_y0, their p, and the mark", async () => {
    const ds = await loadDataset(data());
    const cfg = { B: 200, seed: 0 };
    const t = mainResultsTable(analyzeCurves(ds, cfg), cfg);
    const by = (game: string, pathway: string) => t.rows.find((r) => r.game === game && r.pathway === pathway)!;
    const gh = by("g", "history");
    expect(gh.gain_vs_none.point).toBeCloseTo(5 / 3, 12);
    expect(gh.gain_vs_none_p).toBe(0.25);
    expect(gh.gain_vs_y0.point).toBeCloseTo(11 / 6, 12);
    expect(gh.gain_vs_y0_p).toBe(0.25);
    // 3 seeds: the sign-flip test cannot reject (p >= 2/8), so its inversion is unbounded: no interval.
    expect(gh.gain_vs_none.lo).toBeNull();
    expect(gh.gain_vs_none.n).toBe(3);
    const gn = by("g", "none");
    expect(gn.gain_vs_none.point).toBeNull();
    expect(gn.gain_vs_y0.point).toBeCloseTo(1 / 6, 12);
    expect(gn.gain_vs_y0_p).toBe(1);
    expect(gh.naba.mark).toBeUndefined();
    expect(by("h", "history").naba.mark).toBe(Y0_MARK);
    expect(t.columns.map((c) => c.key)).toEqual(expect.arrayContaining(["gain_vs_none", "gain_vs_none_p", "gain_vs_y0", "gain_vs_y0_p"]));
    expect(t.notes.some((n) => n.startsWith(`${Y0_MARK}: y0 lies within 5%`))).toBe(true);
    // The two none rows' gain_vs_y0 rest on 3 seeds: no interval, so the null check has none to count.
    expect(t.notes.some((n) => n.startsWith("Null check not testable (0 intervals)"))).toBe(true);
  });
  it("every empty gain cell has a note naming what is missing", async () => {
    const dir = tempDir("s3gym-gain-empty-");
    const put = (game: string, pathway: string, curve: [number, number[]][]): void => {
      const id = { run_id: `${game}.${pathway}`, model: "builtin:learner", game, pathway };
      const c = curveRecords(id, curve);
      writeRun(dir, id, { checkpoints: c.checkpoints, episodes: c.episodes, steps: [] });
    };
    // g: history and memory, no none run. h: a none run that stops at x = 2, and a history run without checkpoint 0.
    put("g", "history", [[0, [1, 1, 1]], [3, [2, 3, 2]]]);
    put("g", "memory", [[0, [1, 1, 1]], [3, [2, 2, 2]]]);
    put("h", "none", [[0, [0, 0, 0]], [2, [0, 0, 0]]]);
    put("h", "history", [[3, [1, 2, 2]]]);
    const cfg = { B: 50, seed: 0 };
    const t = mainResultsTable(analyzeCurves(await loadDataset(dir), cfg), cfg);
    const by = (game: string, pathway: string) => t.rows.find((r) => r.game === game && r.pathway === pathway)!;
    expect(by("g", "history").gain_vs_none.point).toBeNull();
    expect(t.notes).toContain("No gain_vs_none where its control is missing: no none run of the same model and game in the data (add none to --pathways, same --run-seed): builtin:learner / g / history, builtin:learner / g / memory.");
    expect(t.notes).toContain("No gain_vs_none for runs that share no checkpoint at x >= 3 with their none run: h.history.");
    expect(t.notes.some((n) => n.startsWith("No gain_vs_none for runs without a none run on the same evaluation seeds"))).toBe(false);
    expect(t.notes).toContain("No gain_vs_y0 where the run has no checkpoint 0 (y0) or no checkpoint at x >= 3: builtin:learner / h / history, builtin:learner / h / none.");
  });
});

describe("estimateGain's designs: runs drawn, or runs kept (the judge swap's rejudged evidence)", () => {
  // Two runs, 6 paired seeds each, one checkpoint row: every difference of run A is +1, of run B +3.
  // The gain is the mean of the runs' gains, 2.
  const g = { rows: 1, n: 12, d: Float64Array.from([1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3]), sizes: [6, 6] };
  const cfg = { B: 400, seed: 0 };

  it("runs kept: the sign-flip test over the 12 seeds and its inversion (all 12 differences > 0: p = 2/4096)", () => {
    const e = estimateGain(g, cfg, ["t"], { runsFixed: true });
    expect(e.estimate.point).toBe(2);
    expect(e.p).toBe(2 / 4096);
    expect(e.test).toBe("sign-flip");
    expect(e.estimand).toBe("these runs");
    // Every pattern's accepted shifts lie between a flipped and an unflipped seeds' mean, inside [1, 3].
    expect(e.estimate.lo!).toBeGreaterThan(1);
    expect(e.estimate.hi!).toBeLessThan(3);
    expect(e.estimate.n).toBe(12);
  });

  it("runs drawn: the t interval over the 2 runs' gains: 2 +- t_{1, 0.975} (12.706) x sd(1, 3) / sqrt 2 = 2 +- 12.706", () => {
    const e = estimateGain(g, cfg, ["t"]);
    expect(e.estimate.point).toBe(2);
    expect(e.estimate.n).toBe(2);
    expect(e.estimate.lo!).toBeCloseTo(2 - 12.7062047, 5);
    expect(e.estimate.hi!).toBeCloseTo(2 + 12.7062047, 5);
    // t = 2 / 1 on 1 df: p = 1 - 2 atan(2) / pi = 0.2952.
    expect(e.p!).toBeCloseTo(1 - (2 * Math.atan(2)) / Math.PI, 9);
    expect(e.test).toBe("t over runs");
    expect(e.estimand).toBe("model");
  });
});
