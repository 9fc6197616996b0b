/**
 * Issue 24: over random small data sets (2..12 evaluation seeds and episodes, ties, constant columns,
 * a seed that scores 0 everywhere), every interval every table builder produces is finite, ordered and
 * inside what its statistic can take: correlations in [-1, 1], rates in [0, 1], Avg and Max within the
 * observed scores, AUC+ and NABA >= 0. Checked on the CSVs, as a reader (scripts/check-intervals.mjs) would.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/analysis/load/dataset.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { Report } from "../../src/report/entries.js";
import type { Table } from "../../src/analysis/tables/table.js";
import { toCsv } from "../../src/report/tables.js";
import { curveRecords, exploreRecords, tempDir, writeRun, type Identity } from "./helpers.js";

const XS = [0, 3, 6, 9];
const CORRELATION = /^(rho_|pearson_|spearman_)/;
const RATE = /^(agree|nmae|over|under)$/;
const NONNEGATIVE = /^(auc_plus|naba|regression)$/;
const SCORE = /^(avg|max)$/;

/** Every (table, key, lo, hi) of the report's CSVs. */
function intervals(report: Report): { table: string; key: string; lo: string; hi: string }[] {
  const out: { table: string; key: string; lo: string; hi: string }[] = [];
  for (const name of Object.keys(report.tables) as (keyof Report["tables"])[]) {
    const [head, ...lines] = toCsv(report.tables[name] as Table<object>)
      .trimEnd()
      .split("\n");
    const cols = (head as string).split(",");
    for (const line of lines) {
      const row = line.split(",");
      cols.forEach((c, i) => {
        if (!c.endsWith("_lo")) return;
        const key = c.slice(0, -3);
        const j = cols.indexOf(`${key}_hi`);
        if (j >= 0 && (row[i] !== "" || row[j] !== "")) out.push({ table: name, key, lo: row[i] ?? "", hi: row[j] ?? "" });
      });
    }
  }
  return out;
}

const seedsArb = fc.integer({ min: 2, max: 12 });
const scoreArb = fc.integer({ min: -3, max: 12 });
const dataArb = seedsArb.chain((K) =>
  fc.record({
    K: fc.constant(K),
    // per run (2 models x history/memory), per checkpoint, per seed
    scores: fc.array(fc.array(fc.array(scoreArb, { minLength: K, maxLength: K }), { minLength: XS.length, maxLength: XS.length }), { minLength: 4, maxLength: 4 }),
    constantRun: fc.integer({ min: -1, max: 3 }),
    zeroSeed: fc.integer({ min: 0, max: K - 1 }),
    // exploration episodes: [s, r] pairs, s may be missing (unscored)
    judged: fc.array(
      fc.array(fc.array(fc.tuple(fc.option(fc.integer({ min: -1, max: 3 }), { nil: null }), fc.integer({ min: -1, max: 3 })), { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 12 }),
      { minLength: 4, maxLength: 4 },
    ),
  }),
);

describe("every table interval is finite and in range (property, issue 24)", () => {
  it("random small data sets: ties, constant columns, a seed with all zeros", async () => {
    await fc.assert(
      fc.asyncProperty(dataArb, async (d) => {
        const dir = tempDir("s3gym-range-");
        const ids: Identity[] = [];
        for (const model of ["A", "B"]) for (const pathway of ["history", "memory"]) ids.push({ model, game: "g", pathway, run_id: `${model}-${pathway}` });
        const observed: number[] = [];
        ids.forEach((id, r) => {
          const curve: [number, number[]][] = XS.map((x, c) => [x, d.scores[r]![c]!.map((v, k) => (k === d.zeroSeed ? 0 : r === d.constantRun ? 5 : v))] as [number, number[]]);
          for (const [, s] of curve) observed.push(...s);
          const eps = Object.fromEntries(d.judged[r]!.map((e, i) => [i + 1, e]));
          const ex = exploreRecords(id, eps);
          const cr = curveRecords(id, curve);
          writeRun(dir, id, { steps: ex.steps, episodes: [...ex.episodes, ...cr.episodes], checkpoints: cr.checkpoints });
        });
        const report = buildReport(await loadDataset(dir), { B: 60, seed: 1 });
        const lo = Math.min(...observed);
        const hi = Math.max(...observed);
        for (const iv of intervals(report)) {
          const where = `${iv.table}.${iv.key} [${iv.lo}, ${iv.hi}]`;
          const a = Number(iv.lo);
          const b = Number(iv.hi);
          expect(iv.lo !== "" && iv.hi !== "" && Number.isFinite(a) && Number.isFinite(b), where).toBe(true);
          expect(a <= b, where).toBe(true);
          if (CORRELATION.test(iv.key)) expect(a >= -1 - 1e-9 && b <= 1 + 1e-9, where).toBe(true);
          if (RATE.test(iv.key)) expect(a >= -1e-9 && b <= 1 + 1e-9, where).toBe(true);
          if (NONNEGATIVE.test(iv.key)) expect(a >= -1e-9, where).toBe(true);
          if (SCORE.test(iv.key) && iv.table !== "training") expect(a >= lo - 1e-9 && b <= hi + 1e-9, where).toBe(true);
        }
      }),
      { numRuns: 15, seed: 24 },
    );
  }, 120_000);
});
