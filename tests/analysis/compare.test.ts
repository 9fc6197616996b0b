/** `compare` and `power` (issue 11) on hand-computed cases. */
import { describe, expect, it } from "vitest";
import { CompareError, compareTable, holm, parseSelector } from "../../src/analysis/stats/compare.js";
import { loadDataset, type Dataset } from "../../src/analysis/load/dataset.js";
import { mddFromNull, powerTable } from "../../src/analysis/stats/power.js";
import { episode, tempDir, writeRun, type Identity } from "./helpers.js";

const id = (model: string, game: string, pathway: string): Identity => ({ run_id: `${game}-${model}-${pathway}`, model, game, pathway });

/** A run whose checkpoints carry one score per (seed, score) pair. */
function run(dir: string, ident: Identity, curve: [number, [number, number][]][]): void {
  const checkpoints: object[] = [];
  const episodes: object[] = [];
  for (const [x, pairs] of curve) {
    const scores = pairs.map(([, v]) => v);
    checkpoints.push({ ...ident, checkpoint: x, scores, mean: scores.reduce((a, b) => a + b, 0) / scores.length, status: "ok", reason: null });
    pairs.forEach(([seed, score], e) => episodes.push({ ...episode(ident, { phase: "eval", checkpoint: x, episode: e, score }), seed }));
  }
  writeRun(dir, ident, { steps: [], episodes, checkpoints });
}

async function fourSeeds(): Promise<Dataset> {
  // Game g, model m: memory - history per seed at checkpoint 0 (the only one): 1, 2, 3, -1.
  const dir = tempDir("s3gym-compare-");
  run(dir, id("m", "g", "memory"), [
    [
      0,
      [
        [1, 5],
        [2, 6],
        [3, 7],
        [4, 3],
      ],
    ],
  ]);
  run(dir, id("m", "g", "history"), [
    [
      0,
      [
        [1, 4],
        [2, 4],
        [3, 4],
        [4, 4],
      ],
    ],
  ]);
  // Game h: the same numbers; game k: identical sides (no difference).
  run(dir, id("m", "h", "memory"), [
    [
      0,
      [
        [1, 5],
        [2, 6],
        [3, 7],
        [4, 3],
      ],
    ],
  ]);
  run(dir, id("m", "h", "history"), [
    [
      0,
      [
        [1, 4],
        [2, 4],
        [3, 4],
        [4, 4],
      ],
    ],
  ]);
  return loadDataset(dir);
}

describe("compare", () => {
  it("the exact sign-flip p of a 4-seed comparison: 6 of 16 patterns reach |T| = 1.25", async () => {
    // d = 1, 2, 3, -1, T = 5/4. Patterns s with |sum s_k d_k| >= 5: sums 7 (all +) and 5 (either 1
    // flipped) on each side: 6 of 16 -> p = 0.375. Two games with the same p: Holm 2 * 0.375 = 0.75 for
    // the smaller and max(0.75, 0.375) for the other.
    const t = compareTable(await fourSeeds(), { a: { pathway: "memory" }, b: { pathway: "history" }, metrics: ["avg"], B: 200, seed: 0 });
    expect(t.rows.map((r) => [r.game, r.n_seeds, r.a, r.b, r.diff, r.p, r.p_holm, r.flips])).toEqual([
      ["g", 4, 5.25, 4, 1.25, 0.375, 0.75, "exact"],
      ["h", 4, 5.25, 4, 1.25, 0.375, 0.75, "exact"],
    ]);
    // The paired interval brackets the difference.
    expect(t.rows[0]?.lo as number).toBeLessThan(1.25);
    expect(t.rows[0]?.hi as number).toBeGreaterThan(1.25);
    expect(t.notes.join("\n")).toContain("Holm-adjusted");
    expect(t.notes.join("\n")).toContain("cannot reach p < 0.05");
  });

  it("Holm: sorted p times (m - rank), running maximum, capped at 1", () => {
    // 0.01, 0.04, 0.03 -> sorted 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> max 0.06)
    const h = holm([0.01, 0.04, 0.03, null]);
    expect(h[0]).toBeCloseTo(0.03, 12);
    expect(h[1]).toBeCloseTo(0.06, 12);
    expect(h[2]).toBeCloseTo(0.06, 12);
    expect(h[3]).toBeNull();
    expect(holm([0.6, 0.7])).toEqual([1, 1]);
  });

  it("refuses to pair runs whose evaluation seeds differ", async () => {
    const dir = tempDir("s3gym-compare-seeds-");
    run(dir, id("m", "g", "memory"), [
      [
        0,
        [
          [1, 5],
          [2, 6],
        ],
      ],
    ]);
    run(dir, id("m", "g", "history"), [
      [
        0,
        [
          [1, 4],
          [3, 4],
        ],
      ],
    ]);
    const ds = await loadDataset(dir);
    expect(() => compareTable(ds, { a: { pathway: "memory" }, b: { pathway: "history" }, B: 10, seed: 0 })).toThrow(CompareError);
    expect(() => compareTable(ds, { a: { pathway: "memory" }, b: { pathway: "history" }, B: 10, seed: 0 })).toThrow(/different seeds \(1,2 vs 1,3\)/);
  });

  it("checkpoint x against checkpoint 0 of the same run: y(3) - y(0) per seed", async () => {
    // seeds 1, 2, 3: y0 = 1, 2, 3; y3 = 2, 4, 6 -> diff mean 2; all three per-seed diffs positive (1, 2, 3):
    // only the identity and the all-flipped pattern reach |T| = 2 -> p = 2/8.
    const dir = tempDir("s3gym-compare-x-");
    run(dir, id("m", "g", "history"), [
      [
        0,
        [
          [1, 1],
          [2, 2],
          [3, 3],
        ],
      ],
      [
        3,
        [
          [1, 2],
          [2, 4],
          [3, 6],
        ],
      ],
    ]);
    const t = compareTable(await loadDataset(dir), { a: { checkpoint: 3 }, b: { checkpoint: 0 }, B: 50, seed: 0 });
    expect(t.rows.map((r) => [r.metric, r.a, r.b, r.diff, r.p])).toEqual([["y", 4, 2, 2, 0.25]]);
  });

  it("selectors: a clear error for an unknown key, an empty value, a model that is not there", async () => {
    expect(() => parseSelector("pathwy=memory", "--a")).toThrow(/unknown key 'pathwy'/);
    expect(() => parseSelector("model=", "--a")).toThrow(/needs a value/);
    expect(parseSelector("pathway=memory,checkpoint=30")).toEqual({ pathway: "memory", checkpoint: 30 });
    const ds = await fourSeeds();
    expect(() => compareTable(ds, { a: { model: "zz" }, b: { model: "m" }, B: 10, seed: 0 })).toThrow(/no run has model=zz: the data has m/);
  });

  it("more than 16 seeds: 10,000 seeded flips, p = (1 + hits) / (1 + flips)", async () => {
    const dir = tempDir("s3gym-compare-many-");
    const seeds = Array.from({ length: 20 }, (_, i) => i);
    run(dir, id("m", "g", "memory"), [[0, seeds.map((s) => [s, 10 + (s % 3)] as [number, number])]]);
    run(dir, id("m", "g", "history"), [[0, seeds.map((s) => [s, 0] as [number, number])]]);
    const t = compareTable(await loadDataset(dir), { a: { pathway: "memory" }, b: { pathway: "history" }, metrics: ["avg"], B: 50, seed: 0, flips: 999 });
    // every per-seed difference is positive (10..12): only a flip pattern of all + or all - reaches |T|,
    // which 999 random patterns almost never draw -> p = 1 / 1000.
    expect(t.rows[0]?.flips).toBe("random");
    expect(t.rows[0]?.p).toBeCloseTo(1 / 1000, 12);
  });
});

describe("power", () => {
  it("mdd from a null sample: T = +-1 -> the test needs |T + d| > 1 for both signs: d > 2", () => {
    expect(mddFromNull([-1, 1, -1, 1])).toBeCloseTo(2, 6);
    expect(mddFromNull([])).toBeNull();
  });

  it("no difference is detectable with 5 or fewer seeds; with more the mdd shrinks as episodes grow", async () => {
    const dir = tempDir("s3gym-power-");
    const seeds = Array.from({ length: 12 }, (_, i) => i);
    // memory and history differ by a seed-dependent amount around 0 (a seed effect shared by checkpoints).
    for (const pw of ["memory", "history"]) {
      run(
        dir,
        id("m", "g", pw),
        [0, 3, 6].map((x) => [x, seeds.map((s) => [s, x / 3 + ((s * (pw === "memory" ? 7 : 5)) % 11) / 5] as [number, number])]),
      );
    }
    const t = powerTable(await loadDataset(dir), { episodes: [3, 5, 6, 10, 50], metrics: ["avg"], sims: 600, seed: 1 });
    const mdd = t.rows.map((r) => r.mdd);
    expect(t.rows.map((r) => r.episodes)).toEqual([3, 5, 6, 10, 50]);
    expect(mdd.slice(0, 2)).toEqual([null, null]);
    const [m6, m10, m50] = mdd.slice(2) as number[];
    expect(m6).toBeGreaterThan(m10 as number);
    expect(m10).toBeGreaterThan(m50 as number);
    expect(m50).toBeGreaterThan(0);
  });

  /** A pilot of `n` seeds: memory = history + effect + a seed-dependent wobble. */
  async function pilot(n: number, effect: number, wobble = 1): Promise<Dataset> {
    const dir = tempDir("s3gym-power-");
    const seeds = Array.from({ length: n }, (_, i) => i);
    const his = (s: number, x: number): number => x / 3 + ((s * 5) % 11) / 5;
    run(
      dir,
      id("m", "g", "history"),
      [0, 3, 6].map((x) => [x, seeds.map((s) => [s, his(s, x)] as [number, number])]),
    );
    run(
      dir,
      id("m", "g", "memory"),
      [0, 3, 6].map((x) => [x, seeds.map((s) => [s, his(s, x) + effect + wobble * (((s * 7) % 11) / 5 - 1)] as [number, number])]),
    );
    return loadDataset(dir);
  }

  it("the null is centred: a real effect in the pilot leaves the mdd as it is", async () => {
    const opts = { episodes: [10], metrics: ["avg" as const], sims: 600, seed: 1 };
    const none = powerTable(await pilot(12, 0), opts).rows[0]!.mdd as number;
    const big = powerTable(await pilot(12, 5), opts).rows[0]!.mdd as number;
    expect(none).toBeGreaterThan(0);
    expect(big).toBeCloseTo(none, 9);
  });

  it("a flat pilot has no mdd and says 'no variation in the pilot'; a pilot under 10 seeds is warned about", async () => {
    const t = powerTable(await pilot(8, 0.5, 0), { episodes: [3, 10], metrics: ["avg"], sims: 300, seed: 1 });
    expect(t.rows.map((r) => [r.episodes, r.mdd, r.note])).toEqual([
      [3, null, "p < 0.05 unreachable with 3 seeds"],
      [10, null, "no variation in the pilot"],
    ]);
    expect(t.notes.some((n) => n.startsWith("WARNING: pilots with fewer than 10 seeds: g (8)"))).toBe(true);
    const ok = powerTable(await pilot(12, 0), { episodes: [10], metrics: ["avg"], sims: 300, seed: 1 });
    expect(ok.notes.some((n) => n.startsWith("WARNING"))).toBe(false);
  });
});
