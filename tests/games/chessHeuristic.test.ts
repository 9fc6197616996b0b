/**
 * The chess policies with the view cache decide exactly like the versions that parsed every earlier
 * observation again at each step (tests/games/reference/chessPoliciesReference.ts): the heuristic, the
 * heuristic starting from learned vectors (the learner's), random and the rules-knowing player, at
 * every step of whole episodes on every config, with accepted, rejected, unparsable and END answers.
 */
import { describe, expect, it } from "vitest";
import { game } from "../../src/games/chess/index.js";
import { heuristic, heuristicKnowing, learnVectors, random, rulesKnowing } from "../../src/games/chess/policies.js";
import type { PolicyContext } from "../../src/games/types.js";
import { allConfigs, differentialPlay, mixedDriver } from "./reference/differential.js";
import * as ref from "./reference/chessPoliciesReference.js";

describe("the chess policies decide like the reference", () => {
  const all = allConfigs(game);

  it("covers explore, eval and both named variants", () => {
    expect(all.map((c) => c.name).sort()).toEqual(["eval", "explore", "more-targets", "wide-board"]);
  });

  it("the heuristic, on its own episodes", () => {
    const r = differentialPlay(game, all, [0, 1, 2, 3], heuristic, ref.heuristic, (_c, _s, d) => d.action);
    expect(r.mismatches).toEqual([]);
    expect(r.steps).toBeGreaterThan(200);
  });

  it("the heuristic and random, on episodes with random, unparsable and stopping answers", () => {
    const poor = { p: 0.2, action: (st: { step: number }) => (st.step % 4 === 0 ? null : st.step % 4 === 1 ? "a1 a1" : st.step % 4 === 2 ? "castle" : "END") };
    const h = differentialPlay(game, all, [4, 5, 6], heuristic, ref.heuristic, mixedDriver(game, 0.5, poor));
    expect(h.mismatches).toEqual([]);
    const r = differentialPlay(game, all, [7, 8], random, ref.random, mixedDriver(game, 0.5));
    expect(r.mismatches).toEqual([]);
    const k = differentialPlay(game, all, [9], rulesKnowing, ref.rulesKnowing, (_c, _s, d) => d.action);
    expect(k.mismatches).toEqual([]);
    expect(h.steps + r.steps + k.steps).toBeGreaterThan(200);
  });

  it("learned vectors, and the heuristic that starts from them", () => {
    const steps: PolicyContext["history"] = [];
    differentialPlay(game, all.slice(0, 2), [10, 11], heuristic, ref.heuristic, (ctx, _s, d, rng) => {
      steps.push(...ctx.history.slice(-1));
      return rng.float() < 0.7 ? d.action : "END";
    });
    const vectors = learnVectors(steps);
    expect(vectors).toEqual(ref.learnVectors(steps));
    // Something was learned, so the prior changes what the heuristic does.
    expect(Object.values(vectors).some((v) => (v?.legal.length ?? 0) > 0)).toBe(true);
    const r = differentialPlay(game, all, [12, 13], heuristicKnowing(vectors), ref.heuristicKnowing(vectors), (_c, _s, d) => d.action);
    expect(r.mismatches).toEqual([]);
  });
});
