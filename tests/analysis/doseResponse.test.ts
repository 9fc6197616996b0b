/** The judge dial's tables (doseResponse.ts) on hand-made runs, hand-computed. */
import { describe, expect, it } from "vitest";
import { doseCorrelationTable, doseResponseTable, type DialRun } from "../../src/analysis/tables/doseResponse.js";

const run = (judge: number, game: string, pathway: string, agree: number | null, y0: number | null, none: number | null): DialRun => ({
  run_id: `${game}.${pathway}.${judge}`,
  judge,
  game,
  pathway,
  run_seed: 0,
  agree,
  nmae: agree === null ? null : 1 - agree,
  gain_vs_y0: y0,
  gain_vs_none: none,
});

describe("judge_dose_response", () => {
  const runs = [
    run(0, "a", "none", null, 0.1, null),
    run(0, "a", "history", 0.5, 0, -0.2),
    run(1, "a", "history", 1, 1, 0.6),
    run(0, "b", "history", 0.2, 0.5, 0.5),
    run(1, "b", "history", 0.4, 0.3, 0.1),
  ];
  it("rows per judge and pathway, none first; means over the setting's runs", () => {
    const t = doseResponseTable(runs, { B: 0, seed: 0 });
    expect(t.rows.map((r) => [r.judge, r.pathway, r.n_runs, r.agree.point, r.gain_vs_y0.point, r.gain_vs_none.point])).toEqual([
      [0, "none", 1, null, 0.1, null],
      [0, "history", 2, 0.35, 0.25, 0.15],
      [1, "history", 2, 0.7, 0.65, expect.closeTo(0.35, 12)],
    ]);
  });
  it("r(Agree, gain) within games: each game's runs centred on its means", () => {
    // gain_vs_y0: game a centred (-.25, -.5), (.25, .5); game b (-.1, .1), (.1, -.1).
    // sum xy = .125 + .125 - .01 - .01 = .23; sum x^2 = .145; sum y^2 = .52.
    const t = doseCorrelationTable(runs, { B: 0, seed: 0 });
    const y0 = t.rows.find((r) => r.gain === "gain_vs_y0")!;
    expect(y0.r.point).toBeCloseTo(0.23 / Math.sqrt(0.145 * 0.52), 12);
    expect([y0.n_runs, y0.n_cells]).toEqual([4, 4]);
    // none runs are not judged: they never enter the correlation.
    expect(t.rows.map((r) => `${r.gain} ${r.judges}`)).toEqual(["gain_vs_y0 all", "gain_vs_none all", "gain_vs_y0 judge > 0", "gain_vs_none judge > 0"]);
  });
  it("r without the judge-0 setting: only the judge-1 runs, one per game (centred to 0): fewer than 3 points, no r", () => {
    const t = doseCorrelationTable(runs, { B: 0, seed: 0 });
    const y0 = t.rows.find((r) => r.gain === "gain_vs_y0" && r.judges === "judge > 0")!;
    expect([y0.r.point, y0.n_runs]).toEqual([null, 2]);
    // With a second judge-1 run on game a (agree 0.8, gain 0.2): a centred (.1, .4), (-.1, -.4); b (0, 0).
    // r = (.04 + .04) / sqrt(.02 * .32) = 1.
    const more = doseCorrelationTable([...runs, { ...runs[2]!, run_id: "a2", run_seed: 1, agree: 0.8, gain_vs_y0: 0.2 }], { B: 0, seed: 0 });
    expect(more.rows.find((r) => r.gain === "gain_vs_y0" && r.judges === "judge > 0")!.r.point).toBeCloseTo(1, 12);
  });
  it("marks means over fewer runs than the coverage table supports", () => {
    const t = doseResponseTable(runs, { B: 200, seed: 0 });
    const h = t.rows.find((r) => r.judge === 0 && r.pathway === "history")!;
    expect(h.agree.indicative).toBe(true);
    expect(t.notes.some((n) => n.startsWith("n=K beside an interval"))).toBe(true);
  });
  it("the interval resamples cells and contains the point here", () => {
    const t = doseCorrelationTable(runs, { B: 500, seed: 3 });
    const r = t.rows[0]!.r;
    expect(r.lo).not.toBeNull();
    expect(r.lo! <= r.point! && r.point! <= r.hi!).toBe(true);
  });
});
