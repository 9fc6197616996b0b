/** Rule scenarios for nullify (games.md, "nullify"); the generic properties are in contract.test.ts. */
import { describe, expect, it } from "vitest";
import { episodeKey, splitObservation } from "../../src/games/envelope.js";
import { game } from "../../src/games/nullify/index.js";
import { heuristic, random } from "../../src/games/nullify/policies.js";
import { facts, parseObservation, render } from "../../src/games/nullify/render.js";
import { configs, type NullifyConfig, type NullifyInner, generate, rulesBody, solveExact, type Unit } from "../../src/games/nullify/rules.js";
import { solve } from "../../src/games/nullify/solver.js";
import { Rng, rngStateFromKey } from "../../src/util/rng.js";
import type { EpisodeState } from "../../src/games/types.js";

type State = EpisodeState<NullifyInner, NullifyConfig>;

const n = (value: number): Unit => ({ kind: "num", value });
const mul = (by: number): Unit => ({ kind: "mul", by });
const div = (by: number): Unit => ({ kind: "div", by });
const op = (kind: "floor" | "ceil" | "sqrt" | "square" | "reciprocal"): Unit => ({ kind });

/** A hand-made state in the given config (eval unless said otherwise). */
function board(units: Unit[], configName: "explore" | "eval" = "eval"): State {
  const base = game.reset(0, configName);
  return game.fromState({ ...base, inner: { units, status: "playing" } });
}

function values(s: State): Array<number | string> {
  return s.inner.units.map((u) => (u.kind === "num" ? u.value : u.kind === "mul" ? `*${u.by}` : u.kind === "div" ? `/${u.by}` : u.kind));
}

/**
 * Boards per config with the exact solver's line (null: not found within its node budget); computed
 * once. Explore: seeds 0..199; eval: 0..59 (a board the search cannot settle costs its whole budget).
 */
const boards = new Map<string, Array<{ seed: number; state: State; line: Array<[number, number]> | null }>>();
function generated(configName: "explore" | "eval") {
  let list = boards.get(configName);
  if (!list) {
    list = [];
    for (let seed = 0; seed < (configName === "explore" ? 200 : 60); seed++) {
      const state = game.reset(seed, configName) as State;
      list.push({ seed, state, line: solveExact(state.inner.units) });
    }
    boards.set(configName, list);
  }
  return list;
}

/** Replays moves through step; returns the final state and the reward sum. */
function replayLine(state: State, line: Array<[number, number]>, seed: number) {
  let s = state;
  let rewards = 0;
  for (const [i, j] of line) {
    const r = game.step(s, `${i} ${j}`);
    expect(r.valid, `seed ${seed}: ${i} ${j}`).toBe(true);
    rewards += r.reward;
    s = r.state;
  }
  return { s, rewards };
}

describe("configs", () => {
  it("explore and eval are games.md's table", () => {
    expect(configs.explore).toEqual({ minGenSteps: 3, maxGenSteps: 5, maxOperand: 10, unaryOperators: [], maxSteps: 64 });
    expect(configs.eval).toEqual({
      minGenSteps: 6,
      maxGenSteps: 10,
      maxOperand: 10,
      unaryOperators: ["floor", "ceil", "sqrt", "square", "reciprocal"],
      maxSteps: 64,
    });
  });

  it("the schema rejects an inverted step range and unknown operators", () => {
    expect(() => game.resolveConfig({ ...configs.eval, minGenSteps: 11 })).toThrow(/minGenSteps/);
    expect(() => game.resolveConfig({ ...configs.eval, unaryOperators: ["log"] } as unknown as NullifyConfig)).toThrow();
  });
});

describe("generation", () => {
  it.each(["explore", "eval"] as const)("every %s board for seeds 0..199 is solvable: the line it was built along wins through step", (configName) => {
    for (let seed = 0; seed < 200; seed++) {
      const state = game.reset(seed, configName) as State;
      // The same generator the episode's reset used, so the same board and its certificate line.
      const g = generate(configs[configName], new Rng(rngStateFromKey(episodeKey("nullify", configName, seed))));
      expect(g.units, `seed ${seed}`).toEqual(state.inner.units);
      const { s, rewards } = replayLine(state, g.line, seed);
      expect(s.inner.status, `seed ${seed}`).toBe("won");
      expect(game.score(s)).toBe(1);
      expect(rewards).toBe(1);
    }
  });

  it("the exact solver settles every explore board and most eval boards within its budget", () => {
    expect(generated("explore").every((b) => b.line !== null)).toBe(true);
    // The generator no longer keeps only boards the solver settles quickly (that made reset slow):
    // some eval boards need more than its 20,000 nodes. None is ever proved unsolvable.
    const found = generated("eval").filter((b) => b.line !== null).length;
    expect(found).toBeGreaterThanOrEqual(45);
    for (const b of generated("eval").slice(0, 20)) {
      expect(
        solve(
          b.state.inner.units.map((u) => (u.kind === "num" ? { kind: "num" as const, v: u.value, e: 0 } : u)),
          { maxNodes: 20000, tolerant: false },
        ).status,
      ).not.toBe("unsolvable");
    }
  });

  it.each(["explore", "eval"] as const)("replaying the solver's line (where found) through step wins the %s board with score 1", (configName) => {
    for (const { seed, state, line } of generated(configName)) {
      if (line === null) continue;
      const { s, rewards } = replayLine(state, line, seed);
      expect(s.done, `seed ${seed}`).toBe(true);
      expect(s.inner.status).toBe("won");
      expect(game.score(s)).toBe(1);
      expect(rewards).toBe(1);
    }
  });

  it("explore boards: 3..5 steps of +-numbers, *v and /v only", () => {
    for (const { seed, state } of generated("explore")) {
      const units = state.inner.units;
      // each backward step adds one unit, plus the final number (absent when the walk ends on 0)
      expect(units.length, `seed ${seed}`).toBeGreaterThanOrEqual(3);
      expect(units.length, `seed ${seed}`).toBeLessThanOrEqual(6);
      for (const u of units) {
        expect(["num", "mul", "div"]).toContain(u.kind);
        if (u.kind === "mul" || u.kind === "div") {
          expect(Number.isInteger(u.by) && u.by !== 0 && Math.abs(u.by) <= 10).toBe(true);
        }
      }
    }
  });

  it("eval boards: 6..10 steps and every unary operator appears across seeds", () => {
    const seen = new Set<string>();
    for (const { seed, state } of generated("eval")) {
      const units = state.inner.units;
      // floor/ceil steps may add a fraction number: at most 2 units per step plus the final number
      expect(units.length, `seed ${seed}`).toBeGreaterThanOrEqual(6);
      expect(units.length, `seed ${seed}`).toBeLessThanOrEqual(21);
      for (const u of units) {
        seen.add(u.kind);
        if (u.kind === "mul" || u.kind === "div") expect(Number.isInteger(u.by) && u.by !== 0 && Math.abs(u.by) <= 10).toBe(true);
      }
    }
    for (const k of ["floor", "ceil", "sqrt", "square", "reciprocal", "mul", "div", "num"]) expect(seen.has(k), k).toBe(true);
  });

  it("the state keeps exact doubles while the board prints at most 6 decimals", () => {
    let inexact = 0;
    for (const { state } of generated("eval")) {
      for (const u of state.inner.units) {
        if (u.kind !== "num") continue;
        const printed = Number(u.value.toFixed(6));
        if (printed !== u.value) inexact++;
      }
      for (const line of render(state.inner).split("\n").slice(1)) {
        const token = line.split(" ")[1]!;
        if (/^[+-]?\d/.test(token)) expect(token.split(".")[1]?.length ?? 0).toBeLessThanOrEqual(6);
      }
    }
    expect(inexact).toBeGreaterThan(0);
  });

  it("the same seed gives the same board; explore and eval draw different boards", () => {
    expect(game.reset(7, "eval").inner).toEqual(game.reset(7, "eval").inner);
    expect(game.reset(7, "eval").inner).not.toEqual(game.reset(7, "explore").inner);
  });
});

describe("combining units", () => {
  it("two numbers that cancel both vanish (order-free)", () => {
    for (const action of ["0 1", "1 0"]) {
      const r = game.step(board([n(3), n(-3), n(5), mul(2)]), action);
      expect(r.valid).toBe(true);
      expect(r.reward).toBe(0);
      expect(r.done).toBe(false);
      expect(values(r.state)).toEqual([5, "*2"]);
    }
  });

  it("a non-zero sum replaces both numbers and is appended at the end", () => {
    const r = game.step(board([n(3), mul(2), n(-1), n(4)]), "2 0");
    expect(values(r.state)).toEqual(["*2", 4, 2]);
    expect(r.feedback).toContain("now unit 2");
  });

  it("cancellation tolerates floating error below 1e-9 but keeps a sum of 1e-8", () => {
    // 0.1 + 0.2 is 0.30000000000000004 in doubles; adding -0.3 leaves about 5.6e-17
    const s1 = game.step(board([n(0.1), n(0.2), n(-0.3), n(4), n(-4)]), "0 1").state;
    const r = game.step(s1, "0 3");
    expect(values(r.state)).toEqual([4, -4]);
    const r2 = game.step(board([n(1), n(-0.99999999), n(5), mul(2)]), "0 1");
    expect(r2.state.inner.units).toHaveLength(3);
    expect((r2.state.inner.units[2] as { value: number }).value).toBeCloseTo(1e-8, 15);
  });

  it("number + operator applies the operator, in either order", () => {
    const cases: Array<[Unit, Unit, number]> = [
      [n(-7), mul(3), -21],
      [n(-7), mul(-3), 21],
      [n(9), div(-2), -4.5],
      [n(-2.5), op("floor"), -3],
      [n(-2.5), op("ceil"), -2],
      [n(2.5), op("floor"), 2],
      [n(2.5), op("ceil"), 3],
      [n(4), op("floor"), 4],
      [n(2.25), op("sqrt"), 1.5],
      [n(0), op("sqrt"), 0],
      [n(-3), op("square"), 9],
      [n(4), op("reciprocal"), 0.25],
      [n(-0.5), op("reciprocal"), -2],
      [n(1e6), op("square"), 1e12],
    ];
    for (const [a, b, expected] of cases) {
      for (const [x, y, action] of [
        [a, b, "0 1"],
        [b, a, "1 0"],
      ] as const) {
        const r = game.step(board([x, y, n(1), n(-1)]), action);
        expect(r.valid, `${JSON.stringify(x)} ${JSON.stringify(y)}`).toBe(true);
        expect(values(r.state)).toEqual([1, -1, expected]);
      }
    }
  });

  it("sqrt of a negative, reciprocal of 0 and a result beyond 1e12 are illegal no-ops", () => {
    for (const units of [
      [n(-4), op("sqrt"), n(1), n(2)],
      [n(0), op("reciprocal"), n(1), n(2)],
      [n(2e6), op("square"), n(1), n(2)],
      [n(1e12), mul(2), n(1), n(2)],
    ]) {
      const s = board(units);
      const r = game.step(s, "0 1");
      expect(r.valid).toBe(false);
      expect(r.reward).toBe(0);
      expect(r.done).toBe(false);
      expect(r.state.inner).toEqual(s.inner);
      expect(r.state.step).toBe(1);
      expect(r.feedback).toContain(game.actionGrammar);
    }
  });

  it("the exact value is kept: 1/3 prints as 0.333333 but times 3 cancels -1 exactly", () => {
    let s = board([n(1), div(3), mul(3), n(-1)]);
    s = game.step(s, "0 1").state;
    expect(game.observe(s)).toContain("[2] +0.333333");
    s = game.step(s, "0 2").state; // *3 with 1/3
    const r = game.step(s, "0 1"); // -1 with 1
    expect(r.reward).toBe(1);
    expect(r.state.inner.status).toBe("won");
  });
});

describe("illegal actions", () => {
  const start = () => board([n(2), mul(3), div(5), n(-2), op("sqrt")]);

  it.each([
    ["1 2", "both are operators"],
    ["1 4", "both are operators"],
    ["0 0", "itself"],
    ["3 3", "itself"],
    ["0 5", "out of range"],
    ["7 1", "out of range"],
  ])("%s is an illegal no-op (%s)", (action, why) => {
    const s = start();
    const r = game.step(s, action);
    expect(r.valid).toBe(false);
    expect(r.reward).toBe(0);
    expect(r.done).toBe(false);
    expect(r.state.inner).toEqual(s.inner);
    expect(r.feedback).toContain(why);
    expect(r.feedback).toContain(`expected '${game.actionGrammar}'`);
  });

  it.each(["0", "0 1 2", "-1 2", "a b", "0,1", "combine 0 and 1", ""])("'%s' does not parse", (action) => {
    const s = start();
    const r = game.step(s, action);
    expect(r.valid).toBe(false);
    expect(r.state.inner).toEqual(s.inner);
    expect(r.feedback).toContain(game.actionGrammar);
  });

  it("a missing answer is a counted no-op", () => {
    const r = game.step(start(), null);
    expect(r.valid).toBe(false);
    expect(r.state.step).toBe(1);
    expect(r.feedback).toContain(game.actionGrammar);
  });

  it("markdown, case and a trailing period are tolerated", () => {
    for (const action of ["**0 3**", " 0   3. ", "`3 0`"]) {
      const r = game.step(start(), action);
      expect(r.valid, action).toBe(true);
      expect(values(r.state)).toEqual(["*3", "/5", "sqrt"]);
    }
  });
});

describe("end of the game", () => {
  it("the last two numbers cancelling wins with r = 1 and score 1", () => {
    const r = game.step(board([n(2.5), n(-2.5)]), "1 0");
    expect(r.reward).toBe(1);
    expect(r.done).toBe(true);
    expect(r.state.inner.units).toEqual([]);
    expect(game.score(r.state)).toBe(1);
    expect(r.feedback).toMatch(/win/);
  });

  it("a last number within 1e-6 of 0 wins; 2e-6 does not", () => {
    const win = game.step(board([n(0.5), op("floor")]), "0 1");
    expect(win.reward).toBe(1);
    expect(win.state.inner.status).toBe("won");
    const near = game.step(board([n(0.0000005), mul(1)]), "0 1");
    expect(near.reward).toBe(1);
    const far = game.step(board([n(0.000002), mul(1)]), "0 1");
    expect(far.reward).toBe(0);
    expect(far.done).toBe(true);
    expect(far.state.inner.status).toBe("stuck");
    expect(game.score(far.state)).toBe(0);
  });

  it("a cancellation that leaves a single 0 wins", () => {
    const r = game.step(board([n(3), n(-3), n(0)]), "0 1");
    expect(r.reward).toBe(1);
    expect(r.state.inner.status).toBe("won");
  });

  it("a single non-zero number ends the episode at once with score 0", () => {
    const r = game.step(board([n(3), mul(2)]), "0 1");
    expect(values(r.state)).toEqual([6]);
    expect(r.done).toBe(true);
    expect(r.reward).toBe(0);
    expect(r.state.step).toBe(1);
    expect(r.state.inner.status).toBe("stuck");
    expect(game.score(r.state)).toBe(0);
    expect(game.legalActions(r.state)).toEqual([]);
    expect(game.observe(r.state)).toContain("No legal move remains.");
  });

  it("only operators left ends the episode", () => {
    const r = game.step(board([n(3), n(-3), mul(2), op("sqrt")]), "0 1");
    expect(values(r.state)).toEqual(["*2", "sqrt"]);
    expect(r.done).toBe(true);
    expect(r.state.inner.status).toBe("stuck");
  });

  it("only pairs that cannot combine end the episode (sqrt of a negative, reciprocal of 0)", () => {
    const a = game.step(board([n(-2), n(-2), op("sqrt")]), "0 1");
    expect(values(a.state)).toEqual(["sqrt", -4]);
    expect(a.done).toBe(true);
    expect(a.state.inner.status).toBe("stuck");
    const b = game.step(board([n(0.5), op("floor"), op("reciprocal")]), "0 1");
    expect(values(b.state)).toEqual(["reciprocal", 0]);
    expect(b.done).toBe(true);
    expect(b.state.inner.status).toBe("stuck");
  });

  it("a board with a legal move continues even when it can no longer be cleared (literal reading)", () => {
    const r = game.step(board([n(3), mul(2), n(1)]), "0 1");
    expect(values(r.state)).toEqual([1, 6]);
    expect(r.done).toBe(false);
    expect(game.legalActions(r.state)).toEqual(["0 1"]);
    const last = game.step(r.state, "0 1");
    expect(last.done).toBe(true);
    expect(game.score(last.state)).toBe(0);
  });

  it("legalActions lists exactly the combinable pairs", () => {
    const s = board([n(-4), op("sqrt"), n(2), mul(3)]);
    // -4+sqrt is illegal, sqrt+*3 are two operators
    expect(game.legalActions(s)).toEqual(["0 2", "0 3", "1 2", "2 3"]);
  });
});

describe("observation", () => {
  it("lists the units with indices and never the verifier's numbers", () => {
    const s = board([n(3), mul(-2), div(7), n(-1 / 7), op("reciprocal"), n(0)]);
    expect(render(s.inner)).toBe(["Units (6):", "[0] +3", "[1] *-2", "[2] /7", "[3] -0.142857", "[4] reciprocal", "[5] 0"].join("\n"));
  });

  it("parseObservation(render(inner)) equals facts(inner) over seeds and mid-episode states", () => {
    for (const configName of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 40; seed++) {
        let s = game.reset(seed, configName) as State;
        const rng = new Rng([seed + 1, 2, 3, 4]);
        for (let k = 0; k < 12; k++) {
          expect(parseObservation(render(s.inner))).toEqual(facts(s.inner));
          expect(parseObservation(splitObservation(game.observe(s)).body)).toEqual(facts(s.inner));
          if (s.done) break;
          const legal = game.legalActions(s);
          s = game.step(s, rng.int(4) === 0 ? "0 0" : rng.pick(legal)).state;
        }
      }
    }
    const won = game.step(board([n(1), n(-1)]), "0 1").state;
    expect(parseObservation(render(won.inner))).toEqual({ units: [], status: "won" });
  });

  it("parseObservation rejects text that is not a nullify board", () => {
    expect(() => parseObservation("Board:\n. . .")).toThrow(/nullify/);
    expect(() => parseObservation("Units (2):\n[0] +3")).toThrow(/unit line/);
    expect(() => parseObservation("Units (1):\n[0] log")).toThrow(/not a unit/);
    expect(() => parseObservation("Units (1):\n[0] +3\nsurprise")).toThrow(/unexpected/);
  });
});

describe("rules text", () => {
  it("names the config's real parameters", () => {
    const explore = game.rules("explore");
    expect(explore).toContain("3 to 5 steps");
    expect(explore).toContain("between -10 and 10");
    expect(explore).not.toContain("`floor`:");
    expect(explore).toContain("at most 64 steps");
    expect(explore).toContain("`<i> <j>`");
    const evalText = game.rules("eval");
    expect(evalText).toContain("6 to 10 steps");
    for (const u of ["floor", "ceil", "sqrt", "square", "reciprocal"]) expect(evalText).toContain(`\`${u}\`:`);
    const custom = rulesBody({ ...configs.explore, maxOperand: 5, maxSteps: 30, unaryOperators: ["sqrt"] });
    expect(custom).toContain("between -5 and 5");
    expect(custom).toContain("at most 30 steps");
    expect(custom).toContain("`sqrt`:");
    expect(custom).not.toContain("`floor`:");
  });
});

describe("state restore", () => {
  it("rejects malformed units", () => {
    const base = game.reset(0, "eval");
    expect(() => game.fromState({ ...base, inner: { units: [{ kind: "mul", by: 0 }], status: "playing" } })).toThrow(/inner/);
    expect(() => game.fromState({ ...base, inner: { units: [{ kind: "num", value: null }], status: "playing" } })).toThrow(/inner/);
    expect(() => game.fromState({ ...base, inner: { units: [{ kind: "log" }], status: "playing" } })).toThrow(/inner/);
  });
});

describe("solver", () => {
  const exact = (units: Unit[]) =>
    solve(
      units.map((u) => (u.kind === "num" ? { kind: "num" as const, v: u.value, e: 0 } : u)),
      { maxNodes: 100000, tolerant: false },
    );

  it("proves small dead boards unsolvable and finds short lines", () => {
    expect(exact([n(3), mul(2)]).status).toBe("unsolvable");
    expect(exact([n(1), n(2)]).status).toBe("unsolvable");
    expect(exact([n(-4), op("sqrt"), n(1)]).status).toBe("unsolvable");
    const r = exact([n(2), mul(3), n(-6)]);
    expect(r.status).toBe("solved");
    if (r.status === "solved")
      expect(r.moves).toEqual([
        [0, 1],
        [0, 1],
      ]);
  });

  it("finds lines through every operator", () => {
    // sqrt(12.25) = 3.5; floor(3.5) = 3; 3 * -2 = -6; reciprocal(-6) = -1/6; -1/6 + 1/6 = 0
    const units = [op("floor"), n(1 / 6), mul(-2), op("reciprocal"), n(12.25), op("sqrt")];
    expect(exact(units).status).toBe("solved");
    expect(exact([n(-3), op("square"), n(-9)]).status).toBe("solved");
    expect(exact([n(-3.5), op("ceil"), n(3)]).status).toBe("solved");
  });
});

describe("policies", () => {
  const ctx = (units: Unit[]) => {
    const s = board(units);
    return { rules: game.rules("eval"), observation: game.observe(s), history: [] };
  };

  it("random picks two distinct indices on the board", () => {
    const rng = new Rng([9, 8, 7, 6]);
    const seen = new Set<string>();
    for (let k = 0; k < 300; k++) {
      const d = random(ctx([n(1), n(2), mul(3)]), rng);
      const [i, j] = d.action.split(" ").map(Number) as [number, number];
      expect(i).not.toBe(j);
      expect(i >= 0 && i < 3 && j >= 0 && j < 3).toBe(true);
      expect(d.selfScore).toBe(0);
      seen.add(d.action);
    }
    expect(seen.size).toBe(6);
  });

  it("heuristic plays the first move of a winning line and self-scores an immediate win as 1", () => {
    const rng = new Rng([1, 2, 3, 4]);
    expect(heuristic(ctx([n(2), mul(3), n(-6)]), rng)).toEqual({ action: "0 1", selfScore: 0 });
    // the only winning first move: 2 * 3 (then 6 cancels -6)
    expect(heuristic(ctx([n(-6), mul(3), n(2)]), rng)).toEqual({ action: "1 2", selfScore: 0 });
    expect(heuristic(ctx([n(-6), n(6)]), rng)).toEqual({ action: "0 1", selfScore: 1 });
  });

  it("heuristic tolerates the 6-decimal rounding of the board", () => {
    // the board shows 0.333333 for 1/3: 0.333333 * 3 = 0.999999 must still count as cancelling -1
    let s = board([n(1 / 3), mul(3), n(-1)]);
    for (let k = 0; k < 2; k++) {
      const d = heuristic({ rules: "", observation: game.observe(s), history: [] }, new Rng([1, 1, 1, 1]));
      const r = game.step(s, d.action);
      expect(r.valid).toBe(true);
      expect(d.selfScore).toBe(r.reward);
      s = r.state;
    }
    expect(s.inner.status).toBe("won");
  });

  it("heuristic clears every explore board and most eval boards of seeds 0..19", () => {
    const cleared = { explore: 0, eval: 0 };
    for (const configName of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 20; seed++) {
        let s = game.reset(seed, configName) as State;
        const history: Array<{ observation: string; action: string | null; feedback: string }> = [];
        while (!s.done) {
          const observation = game.observe(s);
          const d = heuristic({ rules: game.rules(configName), observation, history: history.slice() }, new Rng([seed + 1, 5, 6, 7]));
          const r = game.step(s, d.action);
          history.push({ observation, action: d.action, feedback: r.feedback });
          s = r.state;
        }
        cleared[configName] += game.score(s);
      }
    }
    expect(cleared.explore).toBe(20);
    expect(cleared.eval).toBeGreaterThanOrEqual(15);
  });
});
