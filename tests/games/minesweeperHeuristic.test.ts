/**
 * The minesweeper heuristic with its analysis cache decides exactly like the version that analysed the
 * board on every call (tests/games/reference/minesweeperPoliciesReference.ts), at every step of whole
 * episodes on every config, the first time a board is seen and when it comes back (a cache hit).
 */
import { describe, expect, it } from "vitest";
import { game } from "../../src/games/minesweeper/index.js";
import { heuristic } from "../../src/games/minesweeper/policies.js";
import { allConfigs, differentialPlay, mixedDriver } from "./reference/differential.js";
import { heuristic as heuristicReference } from "./reference/minesweeperPoliciesReference.js";

describe("the minesweeper heuristic decides like the reference", () => {
  const all = allConfigs(game);

  it("covers explore, eval and the named variants", () => {
    expect(all.map((c) => c.name)).toEqual(expect.arrayContaining(["eval", "explore"]));
    expect(all.length).toBeGreaterThanOrEqual(4);
  });

  it("on its own and on mixed episodes, then on the same episodes again (cached analyses)", () => {
    const poor = { p: 0.2, action: (st: { step: number }) => (st.step % 2 === 0 ? null : "flag (0, 0)") };
    for (let pass = 0; pass < 2; pass++) {
      const own = differentialPlay(game, all, [0, 1, 2], heuristic, heuristicReference, (_c, _s, d) => d.action);
      expect(own.mismatches).toEqual([]);
      const mixed = differentialPlay(game, all, [3, 4, 5], heuristic, heuristicReference, mixedDriver(game, 0.5, poor));
      expect(mixed.mismatches).toEqual([]);
      expect(own.steps + mixed.steps).toBeGreaterThan(50);
    }
  });
});
