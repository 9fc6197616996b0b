/**
 * step() and clone() copy states with copyPlain (envelope.ts) instead of structuredClone. The two are
 * equal on plain JSON trees; this checks that every game's states are such trees (no object reached
 * twice, only arrays, plain objects and primitives) over whole episodes on every config, and that the
 * copy equals structuredClone's, key order included, and shares nothing with the original.
 *
 * step() copies less: the next state shares the config and whatever the game's copyInner shares
 * (minesweeper's grids, trust's finished rounds ...), and apply replaces what it changes. So it
 * also checks, over whole episodes, that no state changes after it was made (by the steps that
 * follow it) and that the state step() returns serialises like a full copy would.
 */
import { describe, expect, it } from "vitest";
import { copyPlain } from "../../src/games/envelope.js";
import { GAMES } from "../../src/games/registry.js";
import { GAME_NAMES } from "../../src/games/types.js";
import { Rng } from "../../src/util/rng.js";
import { allConfigs } from "./reference/differential.js";

/** Every object in `x`, failing on one reached twice or one that is not a plain array or object. */
function plainTree(x: unknown, seen: Set<object>, path: string): void {
  if (typeof x !== "object" || x === null) {
    expect(typeof x === "function" || typeof x === "symbol" || typeof x === "bigint", `${path}: ${typeof x}`).toBe(false);
    return;
  }
  expect(seen.has(x), `${path} is reached twice`).toBe(false);
  seen.add(x);
  const proto = Object.getPrototypeOf(x);
  expect(Array.isArray(x) || proto === Object.prototype || proto === null, `${path} is not a plain array or object`).toBe(true);
  for (const [k, v] of Object.entries(x)) plainTree(v, seen, `${path}.${k}`);
}

/** Objects of `a` that are also in `b` (a copy must share none). */
function shared(a: unknown, b: unknown): boolean {
  const inA = new Set<object>();
  const walk = (x: unknown, f: (o: object) => void) => {
    if (typeof x !== "object" || x === null) return;
    f(x);
    for (const v of Object.values(x)) walk(v, f);
  };
  walk(a, (o) => inA.add(o));
  let hit = false;
  walk(b, (o) => (hit ||= inA.has(o)));
  return hit;
}

describe("copyPlain", () => {
  it("copies a hand-made tree like structuredClone: -0, NaN, undefined fields, key order, nothing shared", () => {
    const x = { b: [1, -0, NaN, null, "s", [true]], a: { u: undefined, z: { k: 1 } } };
    const c = copyPlain(x);
    expect(Object.is(c.b[1], -0)).toBe(true);
    expect(c).toStrictEqual(structuredClone(x));
    expect(JSON.stringify(Object.keys(c))).toBe('["b","a"]');
    expect("u" in c.a).toBe(true);
    expect(shared(x, c)).toBe(false);
  });

  for (const name of GAME_NAMES) {
    it(`${name}: every state of random and heuristic episodes is a plain tree, copied like structuredClone`, () => {
      const game = GAMES[name];
      let states = 0;
      for (const { name: cname, config } of allConfigs(game)) {
        for (const seed of [0]) {
          for (const policy of ["random", "heuristic"] as const) {
            let state = game.reset(seed, config, cname);
            const rules = game.rules(config, cname);
            const history: Array<{ observation: string; action: string | null; feedback: string }> = [];
            for (;;) {
              plainTree(state, new Set(), "state");
              const c = game.clone(state);
              expect(c).toStrictEqual(structuredClone(state));
              expect(JSON.stringify(c)).toBe(JSON.stringify(state));
              expect(shared(state, c)).toBe(false);
              states++;
              if (state.done) break;
              const observation = game.observe(state);
              const d = game.policies[policy]({ rules, observation, history: history.slice() }, Rng.fromKey(`copy|${name}|${seed}|${state.step}`));
              const res = game.step(state, d.action);
              history.push({ observation, action: d.action, feedback: res.feedback });
              state = res.state;
            }
          }
        }
      }
      expect(states).toBeGreaterThan(20);
    });
  }
});

describe("step() with shared parts", () => {
  for (const name of GAME_NAMES) {
    it(`${name}: no state of an episode changes after it was made, on every config`, () => {
      const game = GAMES[name];
      let states = 0;
      for (const { name: cname, config } of allConfigs(game)) {
        for (const seed of [0, 1]) {
          for (const policy of ["random", "heuristic"] as const) {
            let state = game.reset(seed, config, cname);
            const rules = game.rules(config, cname);
            const kept: Array<{ state: unknown; json: string }> = [{ state, json: JSON.stringify(state) }];
            const history: Array<{ observation: string; action: string | null; feedback: string }> = [];
            while (!state.done) {
              const observation = game.observe(state);
              // Every third step answers garbage, so the invalid paths run on shared parts too.
              const d = state.step % 3 === 2 ? { action: "no such move" } : game.policies[policy]({ rules, observation, history: history.slice() }, Rng.fromKey(`share|${name}|${seed}|${state.step}`));
              const res = game.step(state, d.action);
              history.push({ observation, action: d.action, feedback: res.feedback });
              state = res.state;
              plainTree(state, new Set(), "state");
              kept.push({ state, json: JSON.stringify(state) });
            }
            for (const [i, k] of kept.entries()) expect(JSON.stringify(k.state), `${cname} seed ${seed} ${policy}: state ${i} changed`).toBe(k.json);
            states += kept.length;
          }
        }
      }
      expect(states).toBeGreaterThan(40);
    });
  }
});
