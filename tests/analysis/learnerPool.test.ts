/** Which models the coupling tables pool (learnerPool.ts), and the rows they get. */
import { describe, expect, it } from "vitest";
import { couplingTable, type BlockRow } from "../../src/analysis/tables/couplingTables.js";
import { canLearn, learnerJudge, poolNote } from "../../src/analysis/tables/learnerPool.js";

const block = (model: string, run: string, A: number, g: number): BlockRow => ({ run_id: run, model, game: "g", pathway: "history", t: 3, s: 0, A, E: 1 - A, g, n_scored: 1 }) as unknown as BlockRow;

describe("the learner pool", () => {
  it("pools every model but the built-in policies that ignore experience", () => {
    expect(["builtin:random", "builtin:heuristic", "builtin:oracle"].map(canLearn)).toEqual([false, false, false]);
    expect(["builtin:learner", "builtin:learner?judge=0.25", "openai:qwen/qwen3-8b"].map(canLearn)).toEqual([true, true, true]);
    expect([
      learnerJudge("builtin:learner"),
      learnerJudge("builtin:learner?judge=0.25"),
      learnerJudge("builtin:learner@ck.json?judge=0"),
      learnerJudge("builtin:oracle"),
      learnerJudge("openai:x"),
    ]).toEqual([1, 0.25, 0, null, null]);
    expect(poolNote(["builtin:oracle", "builtin:learner", "builtin:learner"])).toMatch(/Pooled \(rows 'learners'\): .*: builtin:learner\. The null \(rows 'null'\): builtin:oracle,/);
  });

  it("coupling: the learners' rows rho over their blocks alone, the null's apart", () => {
    // Learners: A = [0, .5, 1] with g = [0, 1, 2] -> rho 1. The oracle: A 1 with g 0 and 1 (A constant:
    // no rho); pooled with the learners it would give A = [0, .5, 1, 1, 1], g = [0, 1, 2, 0, 1]: rho 0.354.
    const blocks = [
      block("builtin:learner", "a", 0, 0),
      block("builtin:learner", "b", 0.5, 1),
      block("builtin:learner", "c", 1, 2),
      block("builtin:oracle", "o1", 1, 0),
      block("builtin:oracle", "o2", 1, 1),
    ];
    const t = couplingTable(blocks, { B: 0, seed: 0 });
    expect(t.rows.map((r) => [r.pool, r.game, r.n_blocks, r.rho_agree.point])).toEqual([
      ["learners", "g", 3, 1],
      ["learners", "all", 3, 1],
      ["null", "g", 2, null],
      ["null", "all", 2, null],
      // The paper's all-model row: average ranks A (1, 2, 4, 4, 4), g (1.5, 3.5, 5, 1.5, 3.5), centred
      // (-2, -1, 1, 1, 1) and (-1.5, .5, 2, -1.5, .5): rho = 3.5 / sqrt(8 * 9).
      ["all models", "all", 5, expect.closeTo(3.5 / Math.sqrt(72), 12)],
    ]);
  });
});
