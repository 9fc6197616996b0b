/** The gain columns of main_results, the y0 ~ 0 mark and the null check (issue 24 items 3, 4), by hand. */
import { describe, expect, it } from "vitest";
import { pointOnly, type Estimate } from "../../src/analysis/stats/bootstrap.js";
import { analyzeCurves, mainResultsTable } from "../../src/analysis/tables/curveTables.js";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { NABA_UNSTABLE_MARK } from "../../src/analysis/metrics/nabaStability.js";
import { binomialBand, binomialUpperTail, describeNullCheck, estimateGain, isStochasticNull, nullCheck, y0NearZero, type NullCheckRow } from "../../src/analysis/tables/gainTables.js";
import { cannotLearn } from "../../src/analysis/tables/learnerPool.js";
import { curveRecords, tempDir, writeRun } from "./helpers.js";

const iv = (lo: number, hi: number): Estimate => ({ point: (lo + hi) / 2, lo, hi });
const row = (model: string, pathway: string, none: Estimate, y0: Estimate): NullCheckRow => ({ model, game: "g", pathway, gain_vs_none: none, gain_vs_y0: y0 });

const NR = "builtin:random?noise=independent";
const NH = "builtin:heuristic?noise=independent";
const prow = (model: string, pathway: string, none: Estimate, y0: Estimate, pNone: number | null, pY0: number | null): NullCheckRow => ({
  ...row(model, pathway, none, y0),
  gain_vs_none_p: pNone,
  gain_vs_y0_p: pY0,
});

describe("null check", () => {
  it("counts the stochastic nulls' gains and the none rows of models that are not built-ins; the deterministic built-ins are flat references", () => {
    const rows = [
      prow(NR, "history", iv(0.1, 0.5), iv(-0.1, 0.2), 0.03, 0.4), // 2 intervals, 1 excludes; 2 p, 1 below
      prow("openai:m", "none", pointOnly(null), iv(-0.5, -0.1), null, 0.2), // an LLM's none row: its gain_vs_y0 counts
      prow("openai:m", "history", iv(1, 2), iv(1, 2), 0.01, 0.01), // can learn: not counted
      prow("builtin:learner", "none", pointOnly(null), { point: 0, lo: 0, hi: 0 }, null, 1), // the learner's none: flat, not counted
      prow("builtin:heuristic", "memory", { point: 0, lo: 0, hi: 0 }, { point: 0, lo: 0, hi: 0 }, 1, 1), // flat reference
      prow("builtin:random", "memory", iv(0.1, 0.2), iv(0.1, 0.2), 0.01, 0.01), // deterministic built-in: flat, never counted
      prow(NH, "memory", { point: 0, lo: 0, hi: 0 }, pointOnly(null), 1, null), // [0, 0]: did not vary, not counted; its p counts
      prow(NH, "history", pointOnly(null), { point: -0.5, lo: -0.5, hi: -0.5 }, null, 0.5), // a point at -0.5 excludes 0: counted
    ];
    const c = nullCheck(rows);
    expect([c.intervals, c.excluding, c.share]).toEqual([4, 3, 3 / 4]);
    expect([c.p_values.n, c.p_values.hits]).toEqual([5, 1]);
    expect([c.degenerate, c.flat_reference_rows]).toEqual([1, 3]);
    expect(c.models).toEqual([NH, NR, "openai:m"]);
    // P(X >= 3), X ~ Bin(4, 0.05) = 4 * 0.05^3 * 0.95 + 0.05^4
    expect(c.p_binomial).toBeCloseTo(4 * 0.05 ** 3 * 0.95 + 0.05 ** 4, 12);
    // Band of Bin(4, 0.05) at 1% a side: P(X >= 2) = 0.0140 > 1%, P(X >= 3) = 0.00048 <= 1%: hi = 2; lo = 0.
    expect(c.interval_count.band).toEqual({ lo: 0, hi: 2 });
    expect(c.interval_count.verdict).toBe("above");
    expect(c.pass).toBe(false);
    expect(c.examples).toEqual([`${NR} / g / history: gain_vs_none`, "openai:m / g / none: gain_vs_y0", `${NH} / g / history: gain_vs_y0`]);
    const line = describeNullCheck(c);
    // Bin(5, 0.05): P(X >= 2) = 0.0226 > 1%, P(X >= 3) = 0.0012: the p count's band is 0-2.
    expect(line).toMatch(/^NULL CHECK FAILED: .*gain intervals that exclude 0: 3 of 4 \(75\.0%; band 0-2, ABOVE\); sign-flip p < 0\.05: 1 of 5 \(20\.0%; band 0-2\): the intervals call noise/);
    expect(line).toContain("3 rows of deterministic built-ins that cannot learn");
    expect(line).toContain("not counted");
    expect(line).toMatch(/Binomial\(n, 0\.05\)/);
  });

  it("the expected band of Binomial(n, 5%), by hand", () => {
    // n = 10: P(X >= 3) = 0.0115 > 1%, P(X >= 4) = 0.00103 <= 1%: hi = 3; P(X < 1) = 0.95^10 = 0.599 > 1%: lo = 0.
    expect(binomialBand(10, 0.05, 0.01)).toEqual({ lo: 0, hi: 3 });
    // n = 200 (mean 10): the band must hold 10 and exclude 0 and 25.
    const b = binomialBand(200, 0.05, 0.01);
    expect(b.lo).toBeGreaterThan(0);
    expect(b.lo).toBeLessThan(10);
    expect(b.hi).toBeGreaterThan(10);
    expect(b.hi).toBeLessThan(25);
    expect(1 - binomialUpperTail(b.lo, 200, 0.05)).toBeLessThanOrEqual(0.01);
    expect(1 - binomialUpperTail(b.lo + 1, 200, 0.05)).toBeGreaterThan(0.01);
    expect(binomialUpperTail(b.hi + 1, 200, 0.05)).toBeLessThanOrEqual(0.01);
    expect(binomialUpperTail(b.hi, 200, 0.05)).toBeGreaterThan(0.01);
  });

  it("passes only on 10 intervals or more; one interval is not testable, never 'passed: 0 of 1'", () => {
    const one = nullCheck([row("openai:m", "none", pointOnly(null), iv(-1, 1))]);
    expect([one.intervals, one.pass, one.testable]).toEqual([1, null, false]);
    expect(describeNullCheck(one)).toMatch(/^Null check not testable \(1 interval\): /);
    expect(describeNullCheck(one)).not.toMatch(/passed/);
    // 9 intervals (five rows of two, one without an interval): still not testable; 10: passed.
    const rows = (n: number) => Array.from({ length: n }, (_, i) => row(NR, `p${i}`, iv(-1, 1), iv(-1, 1)));
    const nine = nullCheck([...rows(4), row(NR, "x", iv(-1, 1), pointOnly(null))]);
    expect([nine.intervals, nine.pass]).toEqual([9, null]);
    const ten = nullCheck(rows(5));
    expect([ten.intervals, ten.pass, ten.testable]).toEqual([10, true, true]);
    expect(describeNullCheck(ten)).toMatch(/^Null check passed: .*gain intervals that exclude 0: 0 of 10 /);
  });

  it("fails on a miscalibrated data set: honest p-values but intervals too narrow, and the reverse", () => {
    // 40 gains of the stochastic nulls whose truth is 0. Intervals too narrow: 8 of 40 exclude 0 (20%;
    // Bin(40, 0.05) has P(X >= 8) about 0.0006), while their p-values reject 2 (5%).
    const narrow = Array.from({ length: 20 }, (_, i) =>
      prow(i % 2 ? NR : NH, `p${i}`, i < 4 ? iv(0.1, 0.3) : iv(-1, 1), i >= 4 && i < 8 ? iv(-0.3, -0.1) : iv(-1, 1), i === 0 ? 0.01 : 0.5, i === 5 ? 0.02 : 0.6),
    );
    const c = nullCheck(narrow);
    expect([c.intervals, c.excluding, c.p_values.n, c.p_values.hits]).toEqual([40, 8, 40, 2]);
    expect(c.interval_count.verdict).toBe("above");
    expect(c.p_values.verdict).toBe("within");
    expect(c.pass).toBe(false);
    expect(describeNullCheck(c)).toMatch(/^NULL CHECK FAILED: .*: the intervals call noise an effect/);
    // The reverse: intervals that cover, a test that rejects 9 of 40: the p-values fail it.
    const loose = narrow.map((r, i) => ({ ...r, gain_vs_none: iv(-1, 1), gain_vs_y0: iv(-1, 1), gain_vs_none_p: i < 9 ? 0.01 : 0.5 }));
    const d = nullCheck(loose);
    // 9 gain_vs_none p below 0.05, and the one gain_vs_y0 p (0.02) kept from above: 10 of 40.
    expect([d.excluding, d.p_values.hits, d.interval_count.verdict, d.p_values.verdict, d.pass]).toEqual([0, 10, "within", "above", false]);
    expect(describeNullCheck(d)).toMatch(/: the p-values call noise an effect/);
    // Calibrated: 2 of 40 each way passes.
    const fine = narrow.map((r, i) => ({ ...r, gain_vs_none: i < 2 ? iv(0.1, 0.3) : iv(-1, 1), gain_vs_y0: iv(-1, 1) }));
    expect(nullCheck(fine).pass).toBe(true);
  });

  it("with the stochastic nulls played but no gain carrying an interval (few evaluation seeds), says so instead of asking to add them", () => {
    // The paper's design: 3 evaluation seeds, so a gain is a point without an interval, and its exact
    // sign-flip p cannot go below 2 / 2^3 = 0.25.
    const rows = [prow(NR, "history", pointOnly(0.2), pointOnly(-0.1), 0.25, 0.75), prow(NH, "memory", pointOnly(0), pointOnly(0.3), 1, 0.25)];
    const c = nullCheck(rows);
    expect([c.intervals, c.p_values.n, c.p_values.hits, c.pass]).toEqual([0, 4, 0, null]);
    const line = describeNullCheck(c);
    expect(line).toMatch(/^Null check not testable \(0 intervals\): .*the stochastic nulls were played, but none of their gains has an interval/);
    expect(line).not.toMatch(/add the stochastic nulls/);
    // One gain with an interval: "only 1 of their gains has".
    const one = nullCheck([...rows, prow(NR, "none", pointOnly(null), iv(-1, 1), null, 0.5)]);
    expect(describeNullCheck(one)).toMatch(/^Null check not testable \(1 interval\): .*but only 1 of their gains has an interval/);
    // No stochastic null among the counted rows (an LLM's none row only): adding them is the fix.
    expect(describeNullCheck(nullCheck([row("openai:m", "none", pointOnly(null), iv(-1, 1))]))).toMatch(/\(add the stochastic nulls, builtin:random\?noise=independent/);
  });

  it("says so when there is nothing to count, and names the stochastic nulls as the fix", () => {
    expect(nullCheck([row("builtin:learner", "history", iv(1, 2), iv(1, 2))]).intervals).toBe(0);
    expect(describeNullCheck(nullCheck([]))).toMatch(/no gain .* to count; add builtin:random\?noise=independent/);
  });

  it("a stochastic null is a built-in that cannot learn, with independent noise", () => {
    expect([NR, NH, "builtin:random", "builtin:heuristic", "builtin:learner", "openai:random?noise=independent", "builtin:random?noise=loud"].map(isStochasticNull)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
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
    put("g", "none", [
      [0, [1, 1, 1]],
      [3, [1, 1, 1]],
      [6, [1, 2, 1]],
    ]);
    put("g", "history", [
      [0, [1, 1, 1]],
      [3, [2, 3, 2]],
      [6, [3, 3, 4]],
    ]);
    put("h", "none", [
      [0, [0, 0, 0]],
      [3, [0, 0, 0]],
    ]);
    put("h", "history", [
      [0, [0, 0, 0]],
      [3, [1, 2, 2]],
    ]);
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
    expect(by("h", "history").naba.mark).toBe(NABA_UNSTABLE_MARK);
    expect(t.columns.map((c) => c.key)).toEqual(expect.arrayContaining(["gain_vs_none", "gain_vs_none_p", "gain_vs_y0", "gain_vs_y0_p"]));
    expect(t.notes.some((n) => n.startsWith(`${NABA_UNSTABLE_MARK}: |y0| <= 2 standard errors`))).toBe(true);
    // The learner is a deterministic built-in: its two none rows are flat references, not counted.
    expect(t.notes.some((n) => /^Null check not testable \(0 intervals\): .*2 rows of deterministic built-ins/.test(n))).toBe(true);
  });
  it("every empty gain cell has a note naming what is missing", async () => {
    const dir = tempDir("s3gym-gain-empty-");
    const put = (game: string, pathway: string, curve: [number, number[]][]): void => {
      const id = { run_id: `${game}.${pathway}`, model: "builtin:learner", game, pathway };
      const c = curveRecords(id, curve);
      writeRun(dir, id, { checkpoints: c.checkpoints, episodes: c.episodes, steps: [] });
    };
    // g: history and memory, no none run. h: a none run that stops at x = 2, and a history run without checkpoint 0.
    put("g", "history", [
      [0, [1, 1, 1]],
      [3, [2, 3, 2]],
    ]);
    put("g", "memory", [
      [0, [1, 1, 1]],
      [3, [2, 2, 2]],
    ]);
    put("h", "none", [
      [0, [0, 0, 0]],
      [2, [0, 0, 0]],
    ]);
    put("h", "history", [[3, [1, 2, 2]]]);
    const cfg = { B: 50, seed: 0 };
    const t = mainResultsTable(analyzeCurves(await loadDataset(dir), cfg), cfg);
    const by = (game: string, pathway: string) => t.rows.find((r) => r.game === game && r.pathway === pathway)!;
    expect(by("g", "history").gain_vs_none.point).toBeNull();
    expect(t.notes).toContain(
      "No gain_vs_none where its control is missing: no none run of the same model and game in the data (add none to --pathways, same --run-seed): builtin:learner / g / history, builtin:learner / g / memory.",
    );
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
