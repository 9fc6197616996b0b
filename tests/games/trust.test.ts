/** Trust rule scenarios (games.md, "trust"); generic properties live in contract.test.ts. */
import { describe, expect, it } from "vitest";
import { episodeKey, splitObservation } from "../../src/games/envelope.js";
import { playEpisode } from "../../src/games/episode.js";
import { textPolicyDecision } from "../../src/games/policies.js";
import { Rng, rngStateFromKey } from "../../src/util/rng.js";
import { game } from "../../src/games/trust/index.js";
import { heuristic, random } from "../../src/games/trust/policies.js";
import { facts, parseObservation, render } from "../../src/games/trust/render.js";
import { configs, OPPONENT_TYPES, type Move, type OpponentType, type TrustConfig, type TrustInner } from "../../src/games/trust/rules.js";
import type { EpisodeState } from "../../src/games/types.js";

type State = EpisodeState<TrustInner, TrustConfig>;

const C: Move = "collaborate";
const X: Move = "cheat";

/** Reads "CXXC" as a move list. */
function moves(s: string): Move[] {
  return s.split("").map((ch) => (ch === "C" ? C : X));
}

function stateFor(opponent: OpponentType, config: "explore" | "eval" = "eval", seed = 0): State {
  const base = game.reset(seed, config) as State;
  return game.fromState({ ...base, inner: { opponent, history: [] } }) as State;
}

function play(state: State, actions: Move[]): { them: Move[]; rewards: number[]; state: State } {
  const them: Move[] = [];
  const rewards: number[] = [];
  let s = state;
  for (const a of actions) {
    const r = game.step(s, a);
    expect(r.valid).toBe(true);
    rewards.push(r.reward);
    s = r.state as State;
    const round = s.inner.history[s.inner.history.length - 1]!;
    them.push(round.them[round.them.length - 1]!);
  }
  return { them, rewards, state: s };
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe("configs", () => {
  it("5 rounds x 8 moves, a 64-step cap, explore's weaker pool and eval's eight types", () => {
    expect(game.configs.explore).toEqual({ rounds: 5, movesPerRound: 8, opponents: ["always-collaborate", "always-cheat", "copycat"], maxSteps: 64 });
    expect(game.configs.eval.rounds).toBe(5);
    expect(game.configs.eval.movesPerRound).toBe(8);
    expect(game.configs.eval.maxSteps).toBe(64);
    expect([...game.configs.eval.opponents].sort()).toEqual(["always-cheat", "always-collaborate", "copycat", "copykitten", "detective", "grudger", "random", "simpleton"]);
  });

  it("explore draws only from its three types and eval from all eight, about uniformly", () => {
    const count = (config: "explore" | "eval") => {
      const c: Record<string, number> = {};
      for (let seed = 0; seed < 800; seed++) {
        const t = (game.reset(seed, config) as State).inner.opponent;
        c[t] = (c[t] ?? 0) + 1;
      }
      return c;
    };
    const ex = count("explore");
    expect(Object.keys(ex).sort()).toEqual(["always-cheat", "always-collaborate", "copycat"]);
    for (const n of Object.values(ex)) expect(Math.abs(n - 800 / 3)).toBeLessThan(60);
    const ev = count("eval");
    expect(Object.keys(ev).sort()).toEqual([...OPPONENT_TYPES].sort());
    for (const n of Object.values(ev)) expect(Math.abs(n - 100)).toBeLessThan(40);
  });

  it("the rules text gives the real rounds, moves, cap and payoffs, and names no opponent type or drawing rule", () => {
    const ex = game.rules("explore");
    expect(ex).toContain("5 rounds of 8 moves (40 moves)");
    expect(ex).toContain("after 64 steps");
    expect(ex).toContain("both collaborate: +2");
    expect(ex).toContain("you collaborate, the opponent cheats: -1");
    expect(ex).toContain("you cheat, the opponent collaborates: +3");
    expect(ex).toContain("both cheat: 0");
    expect(ex).toContain("collaborate | cheat");
    const ev = game.rules("eval");
    for (const text of [ex, ev]) {
      expect(text).toContain("The opponent follows one fixed hidden strategy for the whole game.");
      expect(text).toContain("starts afresh at the beginning of every round");
      // Type names in either spelling, the strategies' wording, and how the opponent is drawn.
      for (const t of [...OPPONENT_TYPES, "always collaborate", "always cheat", "copy cat", "copy kitten", "cheater"]) expect(text.toLowerCase()).not.toContain(t);
      expect(text).not.toMatch(/copies|previous move|grudge|drawn|uniform|equally likely|probability|at random|weaker|types?\b/i);
    }
    // The two configs' texts are the same: the pools differ, but the text does not say so.
    expect(ev.replace("config: eval", "config: explore")).toBe(ex);
    const custom = game.rules({ rounds: 3, movesPerRound: 4, opponents: ["grudger"], maxSteps: 20 }, "custom");
    expect(custom).toContain("3 rounds of 4 moves (12 moves)");
    expect(custom).toContain("from -12 to 36");
    expect(custom).toContain("after 20 steps");
  });
});

describe("payoffs", () => {
  it("pays +2, -1, +3 and 0 for the four outcomes", () => {
    expect(play(stateFor("always-collaborate"), [C]).rewards).toEqual([2]);
    expect(play(stateFor("always-collaborate"), [X]).rewards).toEqual([3]);
    expect(play(stateFor("always-cheat"), [C]).rewards).toEqual([-1]);
    expect(play(stateFor("always-cheat"), [X]).rewards).toEqual([0]);
  });

  it("a whole game scores the sum of payoffs, from -40 to 120, and ends after 40 moves", () => {
    const best = play(stateFor("always-collaborate"), Array(40).fill(X));
    expect(best.state.done).toBe(true);
    expect(game.score(best.state)).toBe(120);
    const worst = play(stateFor("always-cheat"), Array(40).fill(C));
    expect(worst.state.done).toBe(true);
    expect(game.score(worst.state)).toBe(-40);
    expect(worst.state.step).toBe(40);
  });
});

describe("opponent types against the fixed sequence C X X C C X C C", () => {
  const P = moves("CXXCCXCC");
  // [type, opponent's moves, payoffs], computed by hand from the definitions in games.md.
  const cases: Array<[OpponentType, string, number[]]> = [
    ["copycat", "CCXXCCXC", [2, 3, 0, -1, 2, 3, -1, 2]],
    ["always-collaborate", "CCCCCCCC", [2, 3, 3, 2, 2, 3, 2, 2]],
    ["always-cheat", "XXXXXXXX", [-1, 0, 0, -1, -1, 0, -1, -1]],
    ["grudger", "CCXXXXXX", [2, 3, 0, -1, -1, 0, -1, -1]],
    ["detective", "CXCCCCXC", [2, 0, 3, 2, 2, 3, -1, 2]],
    ["copykitten", "CCCXCCCC", [2, 3, 3, -1, 2, 3, 2, 2]],
    ["simpleton", "CCXCCCXX", [2, 3, 0, 2, 2, 3, -1, -1]],
  ];
  it.each(cases)("%s plays %s", (type, them, payoffs) => {
    const r = play(stateFor(type), P);
    expect(r.them).toEqual(moves(them));
    expect(r.rewards).toEqual(payoffs);
    expect(game.score(r.state)).toBe(sum(payoffs));
  });

  it("detective always cheats after its opening when you never cheat", () => {
    const r = play(stateFor("detective"), moves("CCCCCCCC"));
    expect(r.them).toEqual(moves("CXCCXXXX"));
    expect(r.rewards).toEqual([2, -1, 2, 2, -1, -1, -1, -1]);
  });

  it("detective turns copycat after a cheat that comes after its opening", () => {
    const r = play(stateFor("detective"), moves("CCCCCXCC"));
    expect(r.them).toEqual(moves("CXCCXXXC"));
  });

  it("copykitten forgives single cheats and answers two in a row", () => {
    expect(play(stateFor("copykitten"), moves("XCXCXCXX")).them).toEqual(moves("CCCCCCCC"));
    expect(play(stateFor("copykitten"), moves("XXXCCXXC")).them).toEqual(moves("CCXXCCCX"));
  });

  it("simpleton alternates against a constant cheater", () => {
    expect(play(stateFor("simpleton"), moves("XXXXXXXX")).them).toEqual(moves("CXCXCXCX"));
  });

  it("the random opponent draws each move from the episode generator (0 = collaborate)", () => {
    let found = 0;
    for (let seed = 0; seed < 60 && found < 4; seed++) {
      const s = game.reset(seed, "eval") as State;
      if (s.inner.opponent !== "random") continue;
      found++;
      // Replay the documented draws: the type pick, then one int(2) per valid move.
      const rng = new Rng(rngStateFromKey(episodeKey("trust", "eval", seed)));
      expect(rng.pick(configs.eval.opponents)).toBe("random");
      const want = Array.from({ length: 16 }, () => (rng.int(2) === 0 ? C : X));
      // An invalid answer in between does not consume a draw.
      const mid = game.step(play(s, Array(5).fill(C)).state, "maybe").state as State;
      const rest = play(mid, Array(11).fill(X));
      const all = [...rest.state.inner.history[0]!.them, ...rest.state.inner.history[1]!.them];
      expect(all).toEqual(want);
      // Same seed, same actions: the same opponent moves.
      const again = play(game.reset(seed, "eval") as State, Array(16).fill(C));
      expect([...again.state.inner.history[0]!.them, ...again.state.inner.history[1]!.them]).toEqual(want);
    }
    expect(found).toBe(4);
  });
});

describe("rounds", () => {
  it("every strategy starts afresh each round", () => {
    // Round 1 ends with two cheats: grudger, copycat and copykitten would all cheat on move 9 if
    // they remembered; each starts round 2 by collaborating, and detective replays its opening.
    for (const type of ["grudger", "copycat", "copykitten", "simpleton"] as const) {
      const r = play(stateFor(type), [...moves("CCCCCCXX"), C]);
      expect(r.them[8]).toBe(C);
      expect(r.state.inner.history).toHaveLength(2);
    }
    const d = play(stateFor("detective"), [...moves("XXXXXXXX"), ...moves("CCCCCCCC")]);
    expect(d.them.slice(8)).toEqual(moves("CXCCXXXX"));
  });

  it("the observation counts rounds and moves, and feedback announces a new round", () => {
    let s = play(stateFor("copycat"), moves("CCCCCCC")).state;
    expect(parseObservation(splitObservation(game.observe(s)).body)).toMatchObject({ round: 1, move: 8 });
    const r = game.step(s, X);
    expect(r.feedback).toBe("you cheated, the opponent collaborated; round 1 is over, the opponent starts round 2 afresh");
    s = r.state as State;
    expect(parseObservation(splitObservation(game.observe(s)).body)).toMatchObject({ round: 2, move: 1, over: false });
  });
});

describe("invalid answers", () => {
  it("are no-ops that use a step and name the grammar", () => {
    const s = play(stateFor("always-cheat"), [C, X]).state;
    for (const a of [null, "defect", "cooperate", "collaborate cheat", "c"]) {
      const r = game.step(s, a);
      expect(r.valid).toBe(false);
      expect(r.reward).toBe(0);
      expect(r.done).toBe(false);
      expect(r.feedback).toContain("collaborate | cheat");
      expect(r.state.step).toBe(s.step + 1);
      expect(r.state.inner).toEqual(s.inner);
    }
  });

  it("tolerate case, whitespace, a trailing period and emphasis", () => {
    for (const a of ["Cheat", "  CHEAT.", "**cheat**", "`cheat`"]) {
      const r = game.step(stateFor("always-collaborate"), a);
      expect(r.valid).toBe(true);
      expect(r.reward).toBe(3);
    }
  });

  it("can make the step cap end the game before 40 moves", () => {
    let s = stateFor("always-collaborate");
    for (let i = 0; i < 30; i++) s = game.step(s, "pass").state as State;
    let moved = 0;
    while (!s.done) {
      s = game.step(s, C).state as State;
      moved++;
    }
    expect(moved).toBe(34);
    expect(s.step).toBe(64);
    expect(game.score(s)).toBe(68);
  });
});

describe("observation", () => {
  it("shows the round and move numbers and the full history, never the type", () => {
    const s = play(stateFor("grudger"), [...moves("CXCCCCCC"), C]).state;
    const body = splitObservation(game.observe(s)).body;
    expect(body).toBe(
      [
        "Round 2 of 5, move 2 of 8 (move 10 of 40 overall)",
        "History (your move / opponent's move):",
        "Round 1:",
        "  1. collaborate / collaborate",
        "  2. cheat / collaborate",
        "  3. collaborate / cheat",
        "  4. collaborate / cheat",
        "  5. collaborate / cheat",
        "  6. collaborate / cheat",
        "  7. collaborate / cheat",
        "  8. collaborate / cheat",
        "Round 2:",
        "  1. collaborate / collaborate",
      ].join("\n"),
    );
    expect(body).not.toContain("grudger");
  });

  it("the first observation has no history; the last says the game is over", () => {
    const s0 = stateFor("copycat");
    expect(splitObservation(game.observe(s0)).body).toBe("Round 1 of 5, move 1 of 8 (move 1 of 40 overall)\nHistory: no moves yet.");
    const end = play(s0, Array(40).fill(C)).state;
    const f = parseObservation(splitObservation(game.observe(end)).body);
    expect(f).toMatchObject({ over: true, round: null, move: null });
    expect(f.history).toHaveLength(5);
    expect(game.legalActions(end)).toEqual([]);
  });

  it("parseObservation(render(inner)) equals facts(inner) over many seeds and mid-episode states", () => {
    for (const config of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 20; seed++) {
        let s = game.reset(seed, config) as State;
        const rng = new Rng(rngStateFromKey(`test|${seed}`));
        while (!s.done) {
          expect(parseObservation(render(s.inner, s.config))).toEqual(facts(s.inner, s.config));
          s = game.step(s, rng.float() < 0.1 ? "junk" : rng.pick([C, X])).state as State;
        }
        expect(parseObservation(render(s.inner, s.config))).toEqual(facts(s.inner, s.config));
      }
    }
  });

  it("parseObservation rejects text that is not a trust observation", () => {
    expect(() => parseObservation("Board: 8 columns x 8 rows")).toThrow(/not a trust observation/);
    expect(() => parseObservation("Round 1 of 5, move 2 of 8 (move 2 of 40 overall)\nHistory (your move / opponent's move):\nRound 1:\n  1. defect / cheat")).toThrow(/not a trust observation/);
  });
});

describe("policies", () => {
  const ctx = (s: State, config: "explore" | "eval") => ({ rules: game.rules(config), observation: game.observe(s), history: [] });

  it("random answers collaborate or cheat with self-score 0", () => {
    const seen = new Set<string>();
    for (let k = 0; k < 40; k++) {
      const d = random(ctx(stateFor("copycat"), "eval"), Rng.fromKey(`r${k}`));
      seen.add(d.action);
      expect(d.selfScore).toBe(0);
    }
    expect([...seen].sort()).toEqual(["cheat", "collaborate"]);
  });

  it("heuristic's self-score is the expected payoff of its move under the belief", () => {
    // First move, prior over the eight characters (the rules text lists no pool, so explore and eval
    // start alike): 6 of 7 fixed types collaborate, random does half the time: P(collab) = 13/16.
    for (const config of ["explore", "eval"] as const) {
      const e = heuristic(ctx(stateFor("copycat", config), config), Rng.fromKey("h"));
      expect(e.selfScore).toBeCloseTo(e.action === "collaborate" ? 2 * (13 / 16) - 3 / 16 : 3 * (13 / 16), 12);
    }
    // After you cheated and the opponent collaborated on move 1, always-cheat is ruled out. On move 2
    // copycat, grudger, detective (its opening) and simpleton (you cheated: it switches) cheat;
    // always-collaborate and copykitten collaborate; random's weight, 1/2 after one move, splits
    // 1/4 each way. So P(collaborate) = (2 + 1/4) / (6 + 1/2).
    const after = play(stateFor("copycat"), [X]).state;
    const d2 = heuristic(ctx(after, "eval"), Rng.fromKey("h"));
    const pc = (2 + 0.25) / (6 + 0.5);
    expect(d2.selfScore).toBeCloseTo(d2.action === "collaborate" ? 2 * pc - (1 - pc) : 3 * pc, 12);
  });

  it("heuristic exploits an identified always-collaborate and stops feeding always-cheat", () => {
    // After a full round in which the opponent collaborated against your cheats, only
    // always-collaborate (or, very unlikely, random) explains it: cheat, expecting nearly +3.
    const ac = play(stateFor("always-collaborate"), moves("CXXXXXXX")).state;
    const d = heuristic(ctx(ac, "eval"), Rng.fromKey("h"));
    expect(d.action).toBe("cheat");
    expect(d.selfScore).toBeGreaterThan(2.9);
    const cheater = play(stateFor("always-cheat"), moves("CCCCCCCC")).state;
    expect(heuristic(ctx(cheater, "eval"), Rng.fromKey("h")).action).toBe("cheat");
  });

  it("heuristic cheats on the last move of a round against a copycat it has identified", () => {
    const s = play(stateFor("copycat", "explore"), moves("XCCCCCCX".concat("CCCCCCC"))).state;
    expect(heuristic(ctx(s, "explore"), Rng.fromKey("h")).action).toBe("cheat");
  });

  it("heuristic beats random on eval seeds 0..19", async () => {
    const mean = async (policy: "random" | "heuristic") => {
      let total = 0;
      for (let seed = 0; seed < 20; seed++) {
        const run = await playEpisode(game, seed, "eval", (c) => {
          const d = textPolicyDecision(game, policy, c);
          return { action: d.action, selfScore: d.selfScore };
        });
        total += run.score;
      }
      return total / 20;
    };
    expect(await mean("heuristic")).toBeGreaterThan((await mean("random")) + 10);
  });
});
