/**
 * The minesweeper heuristic with its analysis cache decides exactly like the version that analysed the
 * board on every call (tests/games/reference/minesweeperPoliciesReference.ts), at every step of whole
 * episodes on every config, the first time a board is seen and when it comes back (a cache hit).
 */
import { describe, expect, it } from "vitest";
import { game } from "../../src/games/minesweeper/index.js";
import { heuristic } from "../../src/games/minesweeper/policies.js";
import { allConfigs, expectSameDecisionsTwice } from "./reference/differential.js";
import { heuristic as heuristicReference } from "./reference/minesweeperPoliciesReference.js";

describe("the minesweeper heuristic decides like the reference", () => {
  const all = allConfigs(game);

  it("covers explore, eval and the named variants", () => {
    expect(all.map((c) => c.name)).toEqual(expect.arrayContaining(["eval", "explore"]));
    expect(all.length).toBeGreaterThanOrEqual(4);
  });

  it("on its own and on mixed episodes, then on the same episodes again (cached analyses)", () => {
    const poor = { p: 0.2, action: (st: { step: number }) => (st.step % 2 === 0 ? null : "flag (0, 0)") };
    expectSameDecisionsTwice(game, all, heuristic, heuristicReference, poor);
  });
});
