/**
 * The pvz heuristic with its replay cache and one-row look-ahead (rowCombat.ts) decides exactly like
 * the version that replayed everything on whole-lawn clones (tests/games/reference/pvzHeuristicReference.ts):
 * same actions and self-scores at every step of whole episodes on every config, lost lawns included,
 * whatever order the contexts come in and whether their strings are the runner's or a JSON copy's.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/util/rng.js";
import { game } from "../../src/games/pvz/index.js";
import { heuristic, paramsFromRules, reconstruct } from "../../src/games/pvz/policies.js";
import { RowCombat } from "../../src/games/pvz/rowCombat.js";
import { configs, resolveCombat, type PvzInner } from "../../src/games/pvz/rules.js";
import type { PolicyContext } from "../../src/games/types.js";
import { allConfigs, differentialPlay, mixedDriver } from "./reference/differential.js";
import { heuristicReference, reconstruct as reconstructReference } from "./reference/pvzHeuristicReference.js";

const same = (ctx: PolicyContext) => {
  const a = heuristic(ctx, Rng.fromKey("a"));
  const b = heuristicReference(ctx, Rng.fromKey("a"));
  return { a, b };
};

describe("one row's combat equals resolveCombat on a lawn with only that row's zombies", () => {
  it("turn after turn, on random lawns of every config", () => {
    const rng = Rng.fromKey("pvz-row-combat");
    const kinds = ["X", "W", "S", "J", "H", null, null, null] as const;
    let breaches = 0;
    let kills = 0;
    for (let n = 0; n < 400; n++) {
      const config = rng.pick([configs.explore, configs.eval]);
      const lawn: PvzInner["lawn"] = Array.from({ length: config.rows }, () =>
        Array.from({ length: config.cols }, () => {
          const t = rng.pick(kinds);
          return t === null ? null : { type: t, hp: rng.intBetween(1, 10) };
        }),
      );
      const row = rng.int(config.rows);
      const zombies = Array.from({ length: rng.intBetween(1, 5) }, () => ({
        type: rng.pick(["N", "R", "B", "I"] as const),
        row,
        col: rng.int(config.cols),
        hp: rng.intBetween(1, 12),
      }));
      const whole: PvzInner = { turn: 0, sun: 0, survived: 0, lost: false, lawn: structuredClone(lawn), zombies: structuredClone(zombies) };
      const sim = new RowCombat(lawn, structuredClone(zombies), config, row);
      const chili = rng.float() < 0.1;
      for (let k = 0; k < 30 && whole.zombies.length > 0; k++) {
        const before = whole.zombies.length;
        const breach = resolveCombat(whole, config, k === 0 && chili ? [row] : []).breachRow !== null;
        expect(sim.turn(k === 0 && chili)).toBe(breach);
        expect(sim.zombies).toEqual(whole.zombies);
        expect(sim.hpLeft()).toBe(whole.zombies.reduce((a, z) => a + z.hp, 0));
        if (whole.zombies.length < before) kills++;
        if (breach) {
          breaches++;
          break;
        }
      }
      // The lawn it was given is only read.
      expect(lawn).toEqual(lawn.map((l) => l.map((x) => (x ? { ...x } : null))));
    }
    expect(breaches).toBeGreaterThan(20);
    expect(kills).toBeGreaterThan(20);
  });
});

describe("the pvz heuristic decides like the reference", () => {
  const all = allConfigs(game);

  it("covers explore, eval and both named variants", () => {
    expect(all.map((c) => c.name).sort()).toEqual(["eval", "explore", "fast-waves", "five-rows"]);
  });

  it("on its own episodes, twice (the second time from the decision cache), all steps", () => {
    for (let pass = 0; pass < 2; pass++) {
      const r = differentialPlay(game, all, [0, 1, 2], heuristic, heuristicReference, (_c, _s, d) => d.action);
      expect(r.mismatches).toEqual([]);
      expect(r.steps).toBeGreaterThan(4 * 3 * 50);
    }
  });

  it("on episodes with random, empty and unparsable answers, played until lawns are lost", () => {
    const poor = { p: 0.3, action: (st: { step: number }) => (st.step % 3 === 0 ? null : st.step % 3 === 1 ? "pass" : "W 9 9; nonsense") };
    const r = differentialPlay(game, all, [3, 4, 5, 6], heuristic, heuristicReference, mixedDriver(game, 0.3, poor));
    expect(r.mismatches).toEqual([]);
    const lost = r.finals.filter((s) => (s.inner as PvzInner).lost).length;
    expect(lost).toBeGreaterThan(r.episodes / 2);
  });

  it("whatever the order of the calls and whether the text is a JSON copy", () => {
    const contexts: PolicyContext[] = [];
    differentialPlay(game, all.slice(0, 2), [7, 8], heuristic, heuristicReference, (ctx, _s, d, rng) => {
      contexts.push(ctx);
      return rng.float() < 0.8 ? d.action : "pass";
    });
    const order = Rng.fromKey("pvz-order").shuffled(contexts.map((_, i) => i));
    for (const i of order) {
      const ctx = JSON.parse(JSON.stringify(contexts[i])) as PolicyContext;
      const { a, b } = same(ctx);
      expect(a).toEqual(b);
    }
    expect(contexts.length).toBeGreaterThan(100);
  });

  it("when a history observation is unreadable or a history answer was changed", () => {
    const contexts: PolicyContext[] = [];
    differentialPlay(game, all.slice(1, 2), [9, 10], heuristic, heuristicReference, (ctx, _s, d) => {
      contexts.push(ctx);
      return d.action;
    });
    let checked = 0;
    let changed = 0;
    let otherParams = 0;
    for (const ctx of contexts.filter((c, i) => c.history.length >= 4 && i % 3 === 0)) {
      const p = paramsFromRules(ctx.rules, game.parseObservation(ctx.observation));
      // The unchanged context first, so the cache holds its replay when the variants come.
      const base = reconstruct(ctx, p);
      expect(base).toEqual(reconstructReference(ctx, p));
      // Other game parameters (a rules text with stronger peas): another replay, not the cached one.
      const strong = { ...p, peaDamage: p.peaDamage + 1 };
      const other = reconstruct(ctx, strong);
      expect(other).toEqual(reconstructReference(ctx, strong));
      if (JSON.stringify(other) !== JSON.stringify(base)) otherParams++;
      // The newest history step decides the hidden HP the current lawn inherits; a middle one, what came after.
      const swap = (k: number, h: Partial<PolicyContext["history"][number]>) => ({ ...ctx, history: ctx.history.map((x, i) => (i === k ? { ...x, ...h } : x)) });
      const variants = [ctx.history.length - 1, ctx.history.length >> 1].flatMap((k) => [
        swap(k, { observation: "Step 1 of 64\nnot a lawn" }),
        swap(k, { action: ctx.history[k]!.action === "pass" ? "W 0 0; W 1 0; W 2 0" : "pass" }),
        swap(k, { action: null }),
      ]);
      for (const c of variants) {
        const fast = reconstruct(c, p);
        expect(fast).toEqual(reconstructReference(c, p));
        if (JSON.stringify(fast) !== JSON.stringify(base)) changed++;
        const { a, b } = same(c);
        expect(a).toEqual(b);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
    // The variants did change what the replay recovers (eval hides zombie HP), so a cache that
    // ignored the answer or the observation would be caught above.
    expect(changed).toBeGreaterThan(10);
    expect(otherParams).toBeGreaterThan(10);
  });
});
