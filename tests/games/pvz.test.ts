/**
 * pvz rules (games.md, "pvz"), scenario by scenario on hand-built lawns. Expected numbers are worked
 * out by hand from the rules, never read back from the code under test.
 */
import { describe, expect, it } from "vitest";
import { splitObservation } from "../../src/games/envelope.js";
import { playEpisode } from "../../src/games/episode.js";
import { textPolicyDecision } from "../../src/games/policies.js";
import { game } from "../../src/games/pvz/index.js";
import { paramsFromRules, reconstruct } from "../../src/games/pvz/policies.js";
import { facts, parseObservation, render } from "../../src/games/pvz/render.js";
import { availableZombies, configs, parseAction, parseAnswer, type PvzConfig, type PvzInner } from "../../src/games/pvz/rules.js";
import { rngStateFromKey } from "../../src/util/rng.js";
import type { EpisodeState } from "../../src/games/types.js";

type Cfg = "explore" | "eval";
type P = [row: number, col: number, type: "X" | "W" | "S" | "J" | "H", hp?: number];
type Z = [row: number, col: number, type: "N" | "R" | "B" | "I", hp?: number];

function state(cfg: Cfg, opts: { plants?: P[]; zombies?: Z[]; sun?: number; turn?: number; survived?: number; key?: string; config?: Partial<PvzConfig> } = {}): EpisodeState<PvzInner, PvzConfig> {
  const config = { ...configs[cfg], ...opts.config };
  const lawn: PvzInner["lawn"] = Array.from({ length: config.rows }, () => Array.from({ length: config.cols }, () => null));
  for (const [r, c, type, hp] of opts.plants ?? []) (lawn[r] as PvzInner["lawn"][number])[c] = { type, hp: hp ?? config.plantHp[type] };
  const inner: PvzInner = {
    turn: opts.turn ?? 1,
    sun: opts.sun ?? 0,
    survived: opts.survived ?? 0,
    lost: false,
    lawn,
    zombies: (opts.zombies ?? []).map(([row, col, type, hp]) => ({ row, col, type, hp: hp ?? config.zombies[type].hp })),
  };
  return game.fromState({
    game: "pvz",
    configName: cfg,
    config,
    seed: 0,
    step: inner.turn,
    done: false,
    rng: rngStateFromKey(opts.key ?? "pvz-test"),
    inner,
  }) as EpisodeState<PvzInner, PvzConfig>;
}

const plantAt = (s: EpisodeState<PvzInner, PvzConfig>, r: number, c: number) => s.inner.lawn[r]?.[c] ?? null;

describe("turn order", () => {
  it("a chili planted this turn clears its row before the zombies move", () => {
    // Row 1: a zombie at column 0 would walk past the lawn this turn; the chili burns it and the other one.
    const s = state("eval", {
      sun: 300,
      zombies: [
        [1, 0, "N"],
        [1, 3, "B"],
        [2, 4, "N"],
      ],
    });
    const r = game.step(s, "F 1 2");
    expect(r.done).toBe(false);
    expect(r.reward).toBe(1);
    expect(r.feedback).toContain("burned 2 zombies");
    expect(r.state.inner.zombies).toEqual([{ row: 2, col: 3, type: "N", hp: 4 }]);
    // The chili is gone at once: its cell is free, and 300 - 300 + 25 sun.
    expect(plantAt(r.state, 1, 2)).toBeNull();
    expect(r.state.inner.sun).toBe(25);
    // Without the chili the same lawn is lost.
    const lost = game.step(s, "pass");
    expect(lost.done).toBe(true);
    expect(lost.reward).toBe(0);
  });

  it("a chili's cell is taken for the rest of the plant phase", () => {
    const s = state("eval", { sun: 400 });
    const r = game.step(s, "F 1 2; W 1 2");
    expect(r.feedback).toContain("W 1 2 (cell occupied)");
    expect(r.state.inner.sun).toBe(400 - 300 + 25);
  });

  it("a sunflower planted this turn already gives sun, after the planting is paid", () => {
    // 50 - 50 (sunflower) + 10 (sunflower phase) + 25 (end of turn) = 35.
    const r = game.step(state("eval", { sun: 50 }), "X 0 0");
    expect(r.state.inner.sun).toBe(35);
    // Two standing sunflowers and no planting: 50 + 2*10 + 25 = 95.
    const r2 = game.step(
      state("eval", {
        sun: 50,
        plants: [
          [0, 0, "X"],
          [3, 0, "X"],
        ],
      }),
      "pass",
    );
    expect(r2.state.inner.sun).toBe(95);
    // Sun can pay for a second placement only from what is there when planting.
    const r3 = game.step(state("eval", { sun: 50, plants: [[0, 0, "X"]] }), "X 1 0; J 2 2");
    expect(r3.feedback).toContain("J 2 2 (not enough sun: need 50, have 0)");
    expect(r3.state.inner.sun).toBe(0 + 20 + 25);
  });

  it("shooters fire before zombies move, and zombies move before the wave enters", () => {
    // The 1-HP zombie at column 1 dies before it can step onto column 0.
    const r = game.step(state("eval", { turn: 2, plants: [[0, 0, "W"]], zombies: [[0, 1, "N", 1]] }), "pass");
    expect(r.state.inner.zombies).toEqual([]);
    expect(r.feedback).toContain("Peas destroyed 1 zombie");
    // Turn 5 is due a wave in eval: the zombie already on the lawn walks 5 -> 4, then the wave of turn 5
    // enters at the last column, where it stands when turn 6 begins (it has not walked yet).
    const w = game.step(state("eval", { turn: 5, zombies: [[0, 5, "N"]] }), "pass");
    expect(w.state.inner.zombies.map((z) => z.col)).toEqual([4, 5]);
    expect(w.feedback).toContain("1 new zombie entered at column 5");
    expect(w.state.inner.turn).toBe(6);
    // The turn before (4) is due nothing: nothing enters at its end.
    expect(game.step(state("eval", { turn: 4 }), "pass").state.inner.zombies).toEqual([]);
  });

  it("a wave's zombie is shot in the turn after it enters, not in the turn it enters", () => {
    // A peashooter stands in every row, so the newcomer is in a shooter's row whatever row it draws.
    const plants: P[] = [0, 1, 2, 3, 4].map((r) => [r, 0, "W"]);
    const s1 = game.step(state("eval", { turn: 5, plants }), "pass").state;
    expect(s1.inner.zombies).toHaveLength(1);
    // Shooters fire before the spawn phase: the zombie of wave 5 enters untouched (4 HP)...
    expect(s1.inner.zombies[0]).toMatchObject({ col: 5, hp: 4 });
    // ...and in turn 6 it takes one pea (4 -> 3) and then walks (5 -> 4).
    const s2 = game.step(s1, "pass").state;
    expect(s2.inner.zombies[0]).toMatchObject({ col: 4, hp: 3 });
  });
});

describe("shooters", () => {
  it("a peashooter hits the nearest zombie at or ahead of its own column (its own cell included), never one behind", () => {
    const s = state("explore", {
      plants: [[0, 2, "W"]],
      zombies: [
        [0, 1, "N"],
        [0, 2, "N"],
        [0, 5, "R"],
        [0, 4, "N"],
        [1, 3, "N"],
      ],
    });
    const r = game.step(s, "pass");
    const z = r.state.inner.zombies;
    // Behind (column 1): untouched; the one in the shooter's own cell (column 2) is the nearest and is
    // hit (KORGym), so column 4 is not; row 1 is not its row.
    expect(z[0]).toEqual({ row: 0, col: 0, type: "N", hp: 4 });
    expect(z[1]).toEqual({ row: 0, col: 2, type: "N", hp: 3 });
    expect(z[2]).toEqual({ row: 0, col: 4, type: "R", hp: 8 });
    expect(z[3]).toEqual({ row: 0, col: 3, type: "N", hp: 4 });
    expect(z[4]).toEqual({ row: 1, col: 2, type: "N", hp: 4 });
    // The zombie in its cell bit it: 2 - 1.
    expect(plantAt(r.state, 0, 2)).toEqual({ type: "W", hp: 1 });
  });

  it("among zombies in the nearest cell, the first to arrive is hit", () => {
    const r = game.step(
      state("explore", {
        plants: [[0, 0, "W"]],
        zombies: [
          [0, 3, "R"],
          [0, 3, "N"],
        ],
      }),
      "pass",
    );
    expect(r.state.inner.zombies.map((z) => z.hp)).toEqual([7, 4]);
  });

  it("a three-line shooter at the lawn edge fires into two rows, once each", () => {
    // eval has 5 rows; S at row 0 covers rows 0 and 1 (the KORGym clamp fired twice into row 0).
    const s = state("eval", {
      plants: [[0, 0, "S"]],
      zombies: [
        [0, 4, "N"],
        [1, 4, "N"],
        [2, 4, "N"],
      ],
    });
    const hp = game.step(s, "pass").state.inner.zombies.map((z) => [z.row, z.hp]);
    expect(hp).toEqual([
      [0, 3],
      [1, 3],
      [2, 4],
    ]);
    const bottom = state("eval", {
      plants: [[4, 1, "S"]],
      zombies: [
        [4, 4, "N"],
        [3, 4, "N"],
        [2, 4, "N"],
      ],
    });
    expect(game.step(bottom, "pass").state.inner.zombies.map((z) => [z.row, z.hp])).toEqual([
      [4, 3],
      [3, 3],
      [2, 4],
    ]);
    // In the middle it covers three rows, each once.
    const mid = state("eval", {
      plants: [[2, 1, "S"]],
      zombies: [
        [1, 4, "N"],
        [2, 4, "N"],
        [3, 4, "N"],
        [0, 4, "N"],
      ],
    });
    expect(game.step(mid, "pass").state.inner.zombies.map((z) => [z.row, z.hp])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
      [0, 4],
    ]);
  });

  it("a three-line shooter only hits zombies ahead of its own column in the side rows", () => {
    const s = state("eval", {
      plants: [[1, 3, "S"]],
      zombies: [
        [0, 2, "N"],
        [2, 5, "N"],
      ],
    });
    expect(game.step(s, "pass").state.inner.zombies.map((z) => z.hp)).toEqual([4, 3]);
  });

  it("torchwood adds +1 only to peas that pass it on their way from the left", () => {
    const hpAfter = (plants: P[], zombieCol: number) => game.step(state("explore", { plants, zombies: [[0, zombieCol, "B"]] }), "pass").state.inner.zombies[0]?.hp;
    // Shooter at 0, torchwood at 2, zombie at 5: lit, 12 - 2.
    expect(
      hpAfter(
        [
          [0, 0, "W"],
          [0, 2, "H"],
        ],
        5,
      ),
    ).toBe(10);
    // Torchwood left of the shooter: not passed, 12 - 1.
    expect(
      hpAfter(
        [
          [0, 0, "H"],
          [0, 1, "W"],
        ],
        5,
      ),
    ).toBe(11);
    // Torchwood beyond the target: not reached, 12 - 1.
    expect(
      hpAfter(
        [
          [0, 0, "W"],
          [0, 5, "H"],
        ],
        3,
      ),
    ).toBe(11);
    // Zombie standing on the torchwood: the pea reaches the torchwood's cell, 12 - 2.
    expect(
      hpAfter(
        [
          [0, 0, "W"],
          [0, 3, "H"],
        ],
        3,
      ),
    ).toBe(10);
    // Two torchwoods on the way: still +1 once, 12 - 2.
    expect(
      hpAfter(
        [
          [0, 0, "W"],
          [0, 1, "H"],
          [0, 2, "H"],
        ],
        5,
      ),
    ).toBe(10);
    // A torchwood in another row does nothing for this one.
    expect(
      hpAfter(
        [
          [0, 0, "W"],
          [1, 2, "H"],
        ],
        5,
      ),
    ).toBe(11);
  });

  it("torchwood lights a three-line shooter's pea in a side row only if it is in that row", () => {
    const s = state("eval", {
      plants: [
        [1, 0, "S"],
        [0, 2, "H"],
      ],
      zombies: [
        [0, 5, "B"],
        [1, 5, "B"],
        [2, 5, "B"],
      ],
    });
    expect(game.step(s, "pass").state.inner.zombies.map((z) => z.hp)).toEqual([10, 11, 11]);
  });
});

describe("zombies", () => {
  it("a wall-nut holds a normal zombie for 10 turns, then the zombie walks on", () => {
    // No waves in this lawn (spawnEvery 1000), so no other zombie joins the bite.
    let s = state("explore", { turn: 1, plants: [[0, 3, "J"]], zombies: [[0, 3, "N"]], config: { spawnEvery: 1000 } });
    for (let k = 1; k <= 9; k++) {
      s = game.step(s, "pass").state;
      expect(plantAt(s, 0, 3)).toEqual({ type: "J", hp: 10 - k });
      expect(s.inner.zombies).toEqual([{ row: 0, col: 3, type: "N", hp: 4 }]);
    }
    s = game.step(s, "pass").state;
    expect(plantAt(s, 0, 3)).toBeNull();
    expect(s.inner.zombies[0]?.col).toBe(3);
    s = game.step(s, "pass").state;
    expect(s.inner.zombies[0]?.col).toBe(2);
  });

  it("a high-attack zombie eats a wall-nut in 4 bites (10 -> 7 -> 4 -> 1 -> gone)", () => {
    let s = state("eval", { plants: [[2, 4, "J"]], zombies: [[2, 4, "I"]], config: { spawnEvery: 1000 } });
    const hps: Array<number | null> = [];
    for (let k = 0; k < 4; k++) {
      s = game.step(s, "pass").state;
      hps.push(plantAt(s, 2, 4)?.hp ?? null);
    }
    expect(hps).toEqual([7, 4, 1, null]);
  });

  it("zombies walk into a plant's cell and bite from the next turn", () => {
    const s1 = game.step(state("eval", { plants: [[0, 2, "X"]], zombies: [[0, 3, "N"]] }), "pass").state;
    expect(s1.inner.zombies[0]?.col).toBe(2);
    expect(plantAt(s1, 0, 2)?.hp).toBe(2);
    const s2 = game.step(s1, "pass").state;
    expect(plantAt(s2, 0, 2)?.hp).toBe(1);
    expect(s2.inner.zombies[0]?.col).toBe(2);
  });

  it("a zombie whose plant an earlier zombie in its cell just finished walks on in the same turn (KORGym's timing)", () => {
    const s = game.step(
      state("eval", {
        plants: [[1, 3, "W", 1]],
        zombies: [
          [1, 3, "N"],
          [1, 3, "R"],
        ],
      }),
      "pass",
    ).state;
    expect(plantAt(s, 1, 3)).toBeNull();
    // The N (first to arrive) bites the last HP away; the R then finds the cell empty and walks.
    expect(s.inner.zombies.map((z) => z.col)).toEqual([3, 2]);
    // In the other arrival order the R bites and the N walks.
    const t = game.step(
      state("eval", {
        plants: [[1, 3, "W", 1]],
        zombies: [
          [1, 3, "R"],
          [1, 3, "N"],
        ],
      }),
      "pass",
    ).state;
    expect(t.inner.zombies.map((z) => `${z.type}${z.col}`)).toEqual(["R3", "N2"]);
  });

  it("plants may be placed in a cell where zombies stand (and get bitten)", () => {
    const r = game.step(state("eval", { sun: 50, zombies: [[3, 2, "N"]] }), "J 3 2");
    expect(r.valid).toBe(true);
    expect(plantAt(r.state, 3, 2)).toEqual({ type: "J", hp: 9 });
    expect(r.state.inner.zombies[0]?.col).toBe(2);
  });

  it("a zombie walking past column 0 ends the game with reward 0; a plant at column 0 stops it", () => {
    const s = state("explore", { turn: 7, survived: 7, zombies: [[2, 0, "N"]] });
    const r = game.step(s, "pass");
    expect(r.done).toBe(true);
    expect(r.reward).toBe(0);
    expect(r.valid).toBe(true);
    expect(game.score(r.state)).toBe(7);
    expect(r.feedback).toContain("past column 0 in row 2");
    expect(game.observe(r.state)).toContain("the lawn is lost");
    expect(() => game.step(r.state, "pass")).toThrow(/finished/);
    // The same zombie on a sunflower bites it instead.
    const held = game.step(state("explore", { turn: 7, survived: 7, zombies: [[2, 0, "N"]], plants: [[2, 0, "X"]] }), "pass");
    expect(held.done).toBe(false);
    expect(held.reward).toBe(1);
    expect(game.score(held.state)).toBe(8);
  });

  it("the break-through turn pays 0 even when the answer planted something", () => {
    const r = game.step(state("eval", { sun: 50, survived: 3, zombies: [[4, 0, "R"]] }), "X 0 0");
    expect(r.valid).toBe(true);
    expect(r.reward).toBe(0);
    expect(r.done).toBe(true);
    expect(game.score(r.state)).toBe(3);
  });
});

describe("waves", () => {
  /** Zombies that entered at the end of turn t, played from a bare lawn (KORGym timing: the wave of turn t). */
  function waveAfter(cfg: Cfg, t: number, key = "w") {
    return game.step(state(cfg, { turn: t, key }), "pass").state.inner.zombies;
  }

  it("explore: one zombie due every 6 turns, one more per wave every 12 turns, no HP bonus", () => {
    // Waves due on turns 0, 6, 12, 18, ... enter in the spawn phase of those same turns.
    const expected: Record<number, number> = { 0: 1, 6: 1, 12: 2, 18: 2, 24: 3, 30: 3, 36: 4, 42: 4, 48: 5, 54: 5, 60: 6 };
    for (let due = 0; due <= 63; due++) {
      const z = waveAfter("explore", due);
      expect(z.length).toBe(expected[due] ?? 0);
      for (const x of z) {
        expect(x.col).toBe(6);
        expect(x.hp).toBe(configs.explore.zombies[x.type].hp);
      }
    }
  });

  it("eval: one zombie due every 5 turns, one more per wave and +4 HP every 10 turns", () => {
    const expected: Record<number, [count: number, bonus: number]> = {
      0: [1, 0],
      5: [1, 0],
      10: [2, 4],
      15: [2, 4],
      20: [3, 8],
      25: [3, 8],
      30: [4, 12],
      35: [4, 12],
      40: [5, 16],
      45: [5, 16],
      50: [6, 20],
      55: [6, 20],
      60: [7, 24],
    };
    for (let due = 0; due <= 63; due++) {
      const z = waveAfter("eval", due);
      const [n, bonus] = expected[due] ?? [0, 0];
      expect(z.length).toBe(n);
      for (const x of z) {
        expect(x.col).toBe(5);
        expect(x.hp).toBe(configs.eval.zombies[x.type].hp + bonus);
      }
    }
  });

  it("the lawn starts empty; the wave of turn 0 enters at the end of turn 0: one normal zombie at the last column", () => {
    for (const cfg of ["explore", "eval"] as const) {
      const rows = new Set<number>();
      const first = game.observe(game.reset(0, cfg));
      for (let seed = 0; seed < 30; seed++) {
        const s0 = game.reset(seed, cfg);
        expect(s0.inner.zombies).toEqual([]);
        expect(s0.inner.sun).toBe(50);
        // Nothing seed-dependent is visible before the first turn (as in KORGym).
        expect(game.observe(s0)).toBe(first);
        const z = game.step(s0, "pass").state.inner.zombies;
        expect(z).toHaveLength(1);
        expect(z[0]).toMatchObject({ type: "N", col: configs[cfg].cols - 1, hp: 4 });
        rows.add(z[0]!.row);
      }
      // The row is drawn by the episode's generator: every row shows up over 30 seeds.
      expect(rows.size).toBe(configs[cfg].rows);
    }
  });

  it("passing every turn, the wave of turn 0 breaks through on turn `cols` (score = cols)", () => {
    // Eval (6 columns): the zombie enters at column 5 at the end of turn 0, stands on 4, 3, 2, 1, 0 after
    // turns 1..5 and walks past column 0 on turn 6; turns 0..5 held: score 6. Explore (7 columns): 7.
    for (const [cfg, cols] of [
      ["eval", 6],
      ["explore", 7],
    ] as const) {
      for (let seed = 0; seed < 5; seed++) {
        let s = game.reset(seed, cfg);
        const rewards: number[] = [];
        while (!s.done) {
          const r = game.step(s, "pass");
          rewards.push(r.reward);
          s = r.state;
        }
        expect(rewards).toEqual([...Array(cols).fill(1), 0]);
        expect(game.score(s)).toBe(cols);
        expect(s.inner.turn).toBe(cols);
      }
    }
  });

  it("zombie types become available on their turns (roadblock from 10, bucket and high-attack from 20)", () => {
    expect(availableZombies(9, configs.eval)).toEqual(["N"]);
    expect(availableZombies(10, configs.eval)).toEqual(["N", "R"]);
    expect(availableZombies(19, configs.eval)).toEqual(["N", "R"]);
    expect(availableZombies(20, configs.eval)).toEqual(["N", "R", "B", "I"]);
    const seen = (cfg: Cfg, due: number) => {
      const types = new Set<string>();
      for (let k = 0; k < 60; k++) for (const z of waveAfter(cfg, due, `avail${k}`)) types.add(z.type);
      return [...types].sort();
    };
    expect(seen("eval", 5)).toEqual(["N"]);
    expect(seen("eval", 10)).toEqual(["N", "R"]);
    expect(seen("eval", 15)).toEqual(["N", "R"]);
    expect(seen("eval", 20)).toEqual(["B", "I", "N", "R"]);
    expect(seen("explore", 6)).toEqual(["N"]);
    expect(seen("explore", 12)).toEqual(["N", "R"]);
    expect(seen("explore", 18)).toEqual(["N", "R"]);
    expect(seen("explore", 24)).toEqual(["B", "I", "N", "R"]);
  });

  it("the high-attack zombie bites for 3 and the others for 1", () => {
    const bite = (type: "N" | "R" | "B" | "I") => 10 - (plantAt(game.step(state("eval", { plants: [[0, 1, "J"]], zombies: [[0, 1, type]] }), "pass").state, 0, 1)?.hp ?? 0);
    expect([bite("N"), bite("R"), bite("B"), bite("I")]).toEqual([1, 1, 1, 3]);
  });
});

describe("actions", () => {
  it("parses placements and pass, tolerant of case and spacing, strict about content", () => {
    expect(parseAction("X 1 0; W 0 1")).toEqual([
      { plant: "X", row: 1, col: 0 },
      { plant: "W", row: 0, col: 1 },
    ]);
    expect(parseAction("**w 2 3.**")).toEqual([{ plant: "W", row: 2, col: 3 }]);
    expect(parseAction("J (1, 2);")).toEqual([{ plant: "J", row: 1, col: 2 }]);
    expect(parseAction(" Pass ")).toEqual([]);
    for (const bad of ["", "plant X 1 0", "Z 1 1", "X 1", "X +1 0", "X 1 0 2", "X (1, 2", "nonsense; Z 1 1", ";;"]) {
      expect(parseAction(bad)).toBeNull();
    }
  });

  it("a partly malformed answer keeps its well-formed placements and names each malformed part (as KORGym plays it)", () => {
    // Deliberate change (issue 19): these were unparsable as a whole before.
    expect(parseAction("X 1 0; nonsense")).toEqual([{ plant: "X", row: 1, col: 0 }]);
    expect(parseAction("pass; X 1 0")).toEqual([{ plant: "X", row: 1, col: 0 }]);
    // A real gemini-2.5-pro answer: `F 3` has no column.
    expect(parseAnswer("F 3; W 1 0; J 0 0")).toEqual({
      placements: [
        { plant: "W", row: 1, col: 0 },
        { plant: "J", row: 0, col: 0 },
      ],
      malformed: ["f 3"],
    });
    expect(parseAnswer("pass")).toEqual({ placements: [], malformed: [] });
    expect(parseAnswer("F 3; Z 1 1")).toBeNull();

    const s = state("eval", { sun: 160, plants: [[2, 2, "J"]] });
    const r = game.step(s, "F 3; X 1 0; W 2 2; Q 0 0");
    expect(r.valid).toBe(true);
    expect(r.reward).toBe(1);
    expect(plantAt(r.state, 1, 0)?.type).toBe("X");
    expect(r.state.inner.sun).toBe(160 - 50 + 10 + 25);
    expect(r.feedback).toContain("Planted: X 1 0.");
    expect(r.feedback).toContain(`Skipped: 'f 3' (not a placement: ${game.actionGrammar}); 'q 0 0' (not a placement: ${game.actionGrammar}); W 2 2 (cell occupied).`);
  });

  it("the feedback quotes at most three malformed parts, each shortened (model text goes back into the prompt)", () => {
    const s = state("eval", { sun: 160 });
    const r = game.step(s, `X 1 0; ${"y".repeat(100)}; a; b; c; d`);
    expect(r.feedback).toContain(`'${"y".repeat(30)}...' (not a placement`);
    expect(r.feedback).toContain("'a' (not a placement");
    expect(r.feedback).toContain("'b' (not a placement");
    expect(r.feedback).not.toContain("'c'");
    expect(r.feedback).toContain("; 2 more malformed parts.");
  });

  it("a multi-placement with bad placements plants the rest and is valid", () => {
    const s = state("eval", { sun: 160, plants: [[2, 2, "J"]] });
    const r = game.step(s, "X 1 0; W 2 2; J 9 0; W 0 1");
    expect(r.valid).toBe(true);
    expect(r.reward).toBe(1);
    // 160 - 50 (X) = 110, enough for the peashooter: 10 left, + 10 (new sunflower) + 25.
    expect(plantAt(r.state, 1, 0)?.type).toBe("X");
    expect(plantAt(r.state, 0, 1)?.type).toBe("W");
    expect(plantAt(r.state, 2, 2)?.type).toBe("J");
    expect(r.state.inner.sun).toBe(45);
    expect(r.feedback).toContain("Planted: X 1 0; W 0 1.");
    expect(r.feedback).toContain("W 2 2 (cell occupied)");
    expect(r.feedback).toContain("J 9 0 (out of range: rows 0-4, columns 0-5)");
    expect(r.feedback).not.toContain(game.actionGrammar);
  });

  it("sun is spent placement by placement", () => {
    const r = game.step(state("eval", { sun: 160, plants: [[2, 2, "J"]] }), "X 1 0; W 0 1; J 3 3");
    // 160 - 50 - 100 = 10: the wall-nut no longer fits.
    expect(plantAt(r.state, 1, 0)?.type).toBe("X");
    expect(plantAt(r.state, 0, 1)?.type).toBe("W");
    expect(plantAt(r.state, 3, 3)).toBeNull();
    expect(r.feedback).toContain("J 3 3 (not enough sun: need 50, have 10)");
    expect(r.state.inner.sun).toBe(10 + 10 + 25);
  });

  it("an answer whose placements all fail is invalid, yet its turn is played and scores 1 while the lawn holds (rules v3)", () => {
    const s = state("explore", { sun: 40, turn: 3, survived: 3, zombies: [[1, 6, "N"]] });
    const r = game.step(s, "W 1 1; X 7 7");
    expect(r.valid).toBe(false);
    expect(r.reward).toBe(1);
    expect(r.feedback).toContain(game.actionGrammar);
    expect(r.state.inner.turn).toBe(4);
    expect(r.state.inner.zombies[0]?.col).toBe(5);
    expect(r.state.inner.sun).toBe(65);
    expect(game.score(r.state)).toBe(4);
  });

  it("five all-failed turns (F 0 0 without the sun) score 5 on eval seed 3, as five passes do (issue 28)", () => {
    let a = game.reset(3, "eval");
    let b = game.reset(3, "eval");
    for (let i = 0; i < 5; i++) {
      const ra = game.step(a, "F 0 0");
      expect([ra.valid, ra.reward]).toEqual([false, 1]);
      expect(ra.feedback).toContain("not enough sun");
      a = ra.state;
      b = game.step(b, "pass").state;
    }
    expect(a.inner.turn).toBe(5);
    expect(game.score(a)).toBe(5);
    expect(game.score(a)).toBe(game.score(b));
  });

  it("an unparsable or missing answer plants nothing, and its turn is played and scores 1", () => {
    for (const a of [null, "plant a sunflower please"]) {
      const s = state("explore", { sun: 100, turn: 3, survived: 3, zombies: [[1, 6, "N"]] });
      const r = game.step(s, a);
      expect(r.valid).toBe(false);
      expect(r.reward).toBe(1);
      expect(r.done).toBe(false);
      expect(r.feedback).toContain(game.actionGrammar);
      expect(r.state.inner.lawn.flat().every((p) => p === null)).toBe(true);
      expect(r.state.inner.zombies[0]?.col).toBe(5);
      expect(r.state.inner.sun).toBe(125);
      expect(r.state.inner.turn).toBe(4);
      expect(game.score(r.state)).toBe(4);
    }
  });

  it("pass is valid and earns 1 while the lawn holds", () => {
    const r = game.step(state("eval", { survived: 2, zombies: [[0, 5, "N"]] }), "pass");
    expect([r.valid, r.reward, game.score(r.state)]).toEqual([true, 1, 3]);
  });

  it("legal actions list pass and every affordable placement on a free cell", () => {
    const s = state("explore", { sun: 100, plants: [[0, 0, "X"]] });
    const acts = game.legalActions(s);
    // 20 free cells x {X, W, J} + pass.
    expect(acts).toHaveLength(1 + 20 * 3);
    expect(acts[0]).toBe("pass");
    expect(acts).toContain("W 2 6");
    expect(acts).not.toContain("X 0 0");
    expect(acts.some((a) => a.startsWith("H") || a.startsWith("S") || a.startsWith("F"))).toBe(false);
  });
});

describe("reward and score", () => {
  it("reward is the change of the score, step by step", async () => {
    for (const cfg of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 4; seed++) {
        let s = game.reset(seed, cfg);
        const acts = ["X 0 0", "nonsense", null, "W 1 1; J 2 2", "pass", "F 0 0", "J 9 9"];
        for (let k = 0; !s.done && k < 40; k++) {
          const before = game.score(s);
          const r = game.step(s, acts[k % acts.length] ?? null);
          expect(r.reward).toBe(game.score(r.state) - before);
          // Every turn the lawn holds scores 1, valid answer or not (rules version 3).
          expect(r.reward).toBe(r.state.inner.lost ? 0 : 1);
          s = r.state;
        }
      }
    }
  });
});

describe("observation", () => {
  it("explore shows zombie HP, eval shows types only; never a score", () => {
    const ex = game.observe(
      state("explore", {
        sun: 75,
        turn: 12,
        plants: [[1, 3, "J"]],
        zombies: [
          [1, 3, "R", 5],
          [1, 3, "N"],
          [2, 6, "B", 12],
        ],
      }),
    );
    expect(ex).toContain("Turn 12\nSun: 75\n");
    expect(ex).toMatch(/row1 +\. +\. +\. +J\+R5\+N4 +\. +\. +\.\n/);
    expect(ex).toMatch(/row2 +(\. +){6}B12\n/);
    const ev = game.observe(
      state("eval", {
        turn: 12,
        plants: [[1, 3, "J"]],
        zombies: [
          [1, 3, "R", 5],
          [1, 3, "N"],
        ],
      }),
    );
    expect(ev).toMatch(/row1 +\. +\. +\. +J\+R\+N +\. +\.\n/);
    expect(ev).not.toMatch(/[NRBI]\d/);
    expect(ev).toContain("Plant costs: X sunflower 50, W peashooter 100, S three-line shooter 325, J wall-nut 50, H torchwood 125, F chili 300");
    expect(ev).toMatch(/ +col0 +col1 +col2 +col3 +col4 +col5\n/);
    expect(ex + ev).not.toMatch(/score|reward/i);
  });

  it("parseObservation(render(inner)) equals facts(inner) over many seeds and mid-episode states", async () => {
    for (const cfg of ["explore", "eval"] as const) {
      const config = configs[cfg];
      for (let seed = 0; seed < 12; seed++) {
        const policy = seed % 2 === 0 ? "random" : "heuristic";
        const run = await playEpisode(game, seed, cfg, (ctx, st) => {
          const inner = st.inner as PvzInner;
          expect(parseObservation(render(inner, config))).toEqual(facts(inner, config));
          expect(parseObservation(splitObservation(ctx.observation).body)).toEqual(facts(inner, config));
          const d = textPolicyDecision(game, policy, ctx);
          return { action: d.action, selfScore: d.selfScore };
        });
        const last = run.state.inner as PvzInner;
        expect(parseObservation(render(last, config))).toEqual(facts(last, config));
      }
    }
  });

  it("parseObservation rejects text that is not a pvz observation", () => {
    expect(() => parseObservation("Turn 3\nSun: 10\nBoard:\n")).toThrow(/not a pvz observation/);
    expect(() => parseObservation("hello")).toThrow(/not a pvz observation/);
    // After the first turn the wave of turn 0 stands on the lawn: one `N` to corrupt.
    const good = render(game.step(game.reset(0, "eval"), "pass").state.inner, configs.eval);
    expect(good).toMatch(/ N\n| N /);
    expect(() => parseObservation(good.replace("row2", "row7"))).toThrow(/not a pvz observation/);
    expect(() => parseObservation(good.replace(/N/, "Q"))).toThrow(/not a pvz observation/);
  });
});

describe("rules text", () => {
  it("names the config's real parameters", () => {
    const ex = game.rules("explore");
    expect(ex).toContain("3 rows x 7 columns");
    expect(ex).toContain("multiple of 6");
    expect(ex).toContain("1 + floor(t / 12) zombies");
    expect(ex).toContain("Zombies enter with exactly their type's HP.");
    expect(ex).toContain("followed by its current HP");
    expect(ex).toContain("after 64 steps");
    const ev = game.rules("eval");
    expect(ev).toContain("5 rows x 6 columns");
    expect(ev).toContain("multiple of 5");
    expect(ev).toContain("1 + floor(t / 10) zombies");
    expect(ev).toContain("HP + 4 x floor(t / 10)");
    expect(ev).toContain("their HP is not shown");
    for (const t of [ex, ev]) {
      expect(t).toContain("X sunflower: 50 sun, 2 HP; gives +10 sun every turn.");
      expect(t).toContain("S three-line shooter: 325 sun, 2 HP");
      expect(t).toContain("J wall-nut: 50 sun, 10 HP");
      expect(t).toContain("H torchwood: 125 sun, 2 HP");
      expect(t).toContain("F chili: 300 sun");
      expect(t).toContain("R roadblock zombie: 8 HP, bites for 1 per turn; can appear from turn 10.");
      expect(t).toContain("I high-attack zombie: 6 HP, bites for 3 per turn; can appear from turn 20.");
      expect(t).toContain("You start with 50 sun.");
      expect(t).toContain("7. Sun: +25.");
      expect(t).toContain(game.actionGrammar);
    }
    const custom = game.rules({ ...configs.eval, rows: 4, cols: 9, maxSteps: 30 }, "custom");
    expect(custom).toContain("4 rows x 9 columns");
    expect(custom).toContain("after 30 steps");
  });
});

describe("policies", () => {
  const ctxOf = (s: EpisodeState<PvzInner, PvzConfig>) => ({ rules: game.rules(s.configName), observation: game.observe(s), history: [] });

  it("the heuristic answers a zombie about to break through with a chili when nothing cheaper holds", () => {
    const s = state("eval", { sun: 300, turn: 30, zombies: [[3, 1, "B", 24]] });
    const d = textPolicyDecision(game, "heuristic", ctxOf(s));
    expect(d.action).toMatch(/^F 3 \d$/);
    expect(d.selfScore).toBe(1);
    expect(game.step(s, d.action).reward).toBe(1);
  });

  it("the heuristic puts a peashooter in a threatened row when it can afford one", () => {
    const s = state("eval", { sun: 100, turn: 1, plants: [[0, 0, "X"]], zombies: [[2, 5, "N"]] });
    const d = textPolicyDecision(game, "heuristic", ctxOf(s));
    expect(d.action).toMatch(/^W 2 \d$/);
  });

  it("the heuristic plants sunflowers when nothing threatens", () => {
    const s = state("eval", { sun: 100, turn: 1 });
    const d = textPolicyDecision(game, "heuristic", ctxOf(s));
    expect(d.action.split("; ").every((a) => a.startsWith("X "))).toBe(true);
    expect(d.action.split("; ")).toHaveLength(2);
  });

  it("the heuristic self-scores 0 when a zombie gets through unanswered", () => {
    const s = state("eval", { sun: 0, zombies: [[1, 0, "N"]] });
    const d = textPolicyDecision(game, "heuristic", ctxOf(s));
    expect(d.selfScore).toBe(0);
    expect(game.step(s, d.action).reward).toBe(0);
  });

  it("random picks among pass and affordable placements on free cells", () => {
    const s = state("explore", { sun: 60, plants: [[0, 0, "X"]] });
    const legal = new Set(game.legalActions(s));
    for (let k = 0; k < 30; k++) {
      const d = textPolicyDecision(game, "random", { ...ctxOf(s), history: Array.from({ length: k }, () => ({ observation: "", action: "pass", feedback: "" })) });
      expect(legal.has(d.action)).toBe(true);
      expect(d.selfScore).toBe(0);
    }
  });

  it("the heuristic reads the game's numbers back from the rules text", () => {
    for (const config of [configs.explore, configs.eval, { ...configs.eval, rows: 4, cols: 8, spawnEvery: 3, waveGrowthEvery: 7, hpBonus: 2, hpBonusEvery: 6 }]) {
      const s = game.reset(0, config, "custom");
      const p = paramsFromRules(game.rules(config, "custom"), facts(s.inner, config));
      expect({ ...p, showZombieHp: config.showZombieHp, maxSteps: config.maxSteps }).toEqual(config);
    }
  });

  it("the heuristic's replay of the history recovers the HP that eval hides", async () => {
    for (let seed = 0; seed < 3; seed++) {
      for (const policy of ["heuristic", "random"] as const) {
        await playEpisode(game, seed, "eval", (ctx, st) => {
          const inner = st.inner as PvzInner;
          const p = paramsFromRules(ctx.rules, parseObservation(splitObservation(ctx.observation).body));
          const seen = reconstruct(ctx, p);
          // The replay keeps each row's zombies in arrival order (under KORGym's bite timing a cell's
          // bites depend on it); the order across rows is not visible and does not matter.
          for (let row = 0; row < inner.lawn.length; row++) {
            expect(seen.zombies.filter((z) => z.row === row)).toEqual(inner.zombies.filter((z) => z.row === row));
          }
          expect(seen.zombies).toHaveLength(inner.zombies.length);
          expect(seen.lawn).toEqual(inner.lawn);
          const d = textPolicyDecision(game, policy, ctx);
          return { action: d.action, selfScore: d.selfScore };
        });
      }
    }
  });

  it("the heuristic clearly beats random on eval seeds 0..19", async () => {
    const mean = async (policy: "random" | "heuristic") => {
      let total = 0;
      for (let seed = 0; seed < 20; seed++) {
        const run = await playEpisode(game, seed, "eval", (ctx) => {
          const d = textPolicyDecision(game, policy, ctx);
          return { action: d.action, selfScore: d.selfScore };
        });
        total += run.score;
      }
      return total / 20;
    };
    const h = await mean("heuristic");
    const r = await mean("random");
    expect(h).toBeGreaterThan(2 * r);
  });
});

describe("pvz parser edges (issue 28)", () => {
  it("a negative coordinate is a placement skipped as out of range, like X 9 9; the rest of the answer still plays", () => {
    expect(parseAction("X -1 0")).toEqual([{ plant: "X", row: -1, col: 0 }]);
    const s = game.reset(0, "eval");
    for (const bad of ["X -1 0", "X 9 9"]) {
      const r = game.step(s, `${bad}; X 0 0`);
      expect(r.valid, bad).toBe(true);
      expect(r.feedback, bad).toContain(`${bad} (out of range: rows 0-4, columns 0-5)`);
      expect(r.state.inner.lawn[0]![0]?.type, bad).toBe("X");
    }
    const alone = game.step(s, "X 0 -2");
    expect([alone.valid, alone.reward]).toEqual([false, 1]);
    expect(alone.feedback).toContain("X 0 -2 (out of range");
  });
});
