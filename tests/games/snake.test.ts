/** Snake rule scenarios (games.md, "snake"), built by hand. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/util/rng.js";
import { game } from "../../src/games/snake/index.js";
import { heuristic } from "../../src/games/snake/policies.js";
import { facts, parseObservation, render } from "../../src/games/snake/render.js";
import { configs, type Cell, type Direction, type SnakeConfig, type SnakeInner } from "../../src/games/snake/rules.js";
import type { EpisodeState } from "../../src/games/types.js";

type State = EpisodeState<SnakeInner, SnakeConfig>;
const RNG: [number, number, number, number] = [11, 22, 33, 44];

function state(snake: Cell[], apples: Cell[], direction: Direction, base: "explore" | "eval", config: Partial<SnakeConfig> = {}): State {
  const inner: SnakeInner = { snake, apples, direction, eaten: 0, status: "playing" };
  return game.fromState({ game: "snake", configName: "custom", config: { ...configs[base], ...config }, seed: 0, step: 0, done: false, rng: [...RNG], inner });
}

// Apples out of the way, inside the 6x6 interior of the explore board (rows/cols 1..6).
const FAR: Cell[] = [
  [6, 6],
  [6, 5],
  [6, 4],
];

describe("snake moves and the tail rule", () => {
  it.each(["explore", "eval"] as const)("%s: the head may enter the cell the tail is leaving", (cfg) => {
    const s = state(
      [
        [2, 2],
        [2, 3],
        [3, 3],
        [3, 2],
      ],
      FAR,
      "LEFT",
      cfg,
    );
    const r = game.step(s, "DOWN");
    expect(r.valid).toBe(true);
    expect(r.done).toBe(false);
    expect(r.reward).toBe(0);
    expect(r.state.inner.snake).toEqual([
      [3, 2],
      [2, 2],
      [2, 3],
      [3, 3],
    ]);
    expect(r.state.inner.direction).toBe("DOWN");
  });

  it("length 1 may reverse (there is no neck)", () => {
    const s = state([[3, 3]], FAR, "UP", "eval");
    const r = game.step(s, "DOWN");
    expect(r.done).toBe(false);
    expect(r.state.inner.snake).toEqual([[4, 3]]);
  });

  it("accepts case, emphasis and a trailing period", () => {
    const s = state([[3, 3]], FAR, "UP", "eval");
    expect(game.step(s, "up").state.inner.snake).toEqual([[2, 3]]);
    expect(game.step(s, "**Left**").state.inner.snake).toEqual([[3, 2]]);
    expect(game.step(s, " Right. ").state.inner.snake).toEqual([[3, 4]]);
  });
});

describe("snake collisions: explore blocks, eval ends", () => {
  // `E` is the last interior column of the board in use (6 in explore, 8 in eval).
  const cases: Array<{ name: string; snake: (E: number) => Cell[]; dir: Direction; action: string }> = [
    { name: "wall above", snake: () => [[1, 3]], dir: "UP", action: "UP" },
    { name: "wall right", snake: (E) => [[3, E]], dir: "RIGHT", action: "RIGHT" },
    // (3,2) is the fourth of five cells: the tail (4,2) moves away, (3,2) does not.
    {
      name: "body",
      snake: () => [
        [2, 2],
        [2, 3],
        [3, 3],
        [3, 2],
        [4, 2],
      ],
      dir: "LEFT",
      action: "DOWN",
    },
    // Length 2: the neck is also the tail, and reversing into it is still a collision.
    {
      name: "neck (length 2)",
      snake: () => [
        [3, 3],
        [3, 4],
      ],
      dir: "LEFT",
      action: "RIGHT",
    },
    {
      name: "neck (length 3)",
      snake: () => [
        [3, 3],
        [3, 4],
        [3, 5],
      ],
      dir: "LEFT",
      action: "RIGHT",
    },
  ];

  it.each(cases)("explore: $name is a no-op with feedback 'blocked'", ({ snake, dir, action }) => {
    const s = state(snake(6), FAR, dir, "explore");
    const r = game.step(s, action);
    expect(r.feedback.startsWith("blocked")).toBe(true);
    expect(r.done).toBe(false);
    expect(r.reward).toBe(0);
    expect(r.state.inner).toEqual(s.inner);
    expect(r.state.step).toBe(1);
  });

  it.each(cases)("eval: $name ends the episode", ({ snake, dir, action }) => {
    const s = state(snake(8), FAR, dir, "eval");
    const r = game.step(s, action);
    expect(r.done).toBe(true);
    expect(r.reward).toBe(0);
    expect(r.state.inner.status).toBe("dead");
    expect(r.feedback).toContain("game over");
    expect(game.score(r.state)).toBe(0);
  });

  it.each([null, "jump", "up left", "north", "U"])("garbage %j: explore no-op, eval ends", (action) => {
    const ex = state(
      [
        [3, 3],
        [4, 3],
      ],
      FAR,
      "UP",
      "explore",
    );
    const r1 = game.step(ex, action);
    expect(r1.valid).toBe(false);
    expect(r1.done).toBe(false);
    expect(r1.feedback).toContain(game.actionGrammar);
    expect(r1.state.inner).toEqual(ex.inner);
    const ev = state(
      [
        [3, 3],
        [4, 3],
      ],
      FAR,
      "UP",
      "eval",
    );
    const r2 = game.step(ev, action);
    expect(r2.valid).toBe(false);
    expect(r2.done).toBe(true);
    expect(r2.reward).toBe(0);
    expect(r2.feedback).toContain(game.actionGrammar);
  });
});

describe("snake apples", () => {
  it("eating grows by one (the tail stays), pays 1 and keeps 3 apples on free cells", () => {
    const s = state(
      [
        [3, 3],
        [3, 4],
      ],
      [
        [3, 2],
        [6, 6],
        [1, 1],
      ],
      "LEFT",
      "explore",
    );
    const r = game.step(s, "LEFT");
    expect(r.reward).toBe(1);
    expect(game.score(r.state)).toBe(1);
    expect(r.feedback).toContain("ate an apple");
    const { snake, apples } = r.state.inner;
    expect(snake).toEqual([
      [3, 2],
      [3, 3],
      [3, 4],
    ]);
    expect(apples.length).toBe(3);
    expect(apples.slice(0, 2)).toEqual([
      [6, 6],
      [1, 1],
    ]);
    const [ar, ac] = apples[2]!;
    expect(ar >= 1 && ar <= 6 && ac >= 1 && ac <= 6).toBe(true);
    expect([...snake, [6, 6], [1, 1]].some(([r0, c0]) => r0 === ar && c0 === ac)).toBe(false);
    // The next move does not eat: the snake keeps its new length.
    const r2 = game.step(r.state, "UP");
    expect(r2.reward).toBe(0);
    expect(r2.state.inner.snake).toEqual([
      [2, 2],
      [3, 2],
      [3, 3],
    ]);
  });

  it("respawns from the episode generator on a free cell, in row-major order of the free cells", () => {
    // 5x5 board: a 3x3 interior, rows/cols 1..3.
    const s = state(
      [
        [2, 2],
        [2, 3],
      ],
      [
        [2, 1],
        [1, 1],
      ],
      "LEFT",
      "eval",
      { rows: 5, cols: 5, apples: 2 },
    );
    const a = game.step(s, "LEFT");
    const b = game.step(game.clone(s), "LEFT");
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    // Free after eating (2,1): the snake is (2,1),(2,2),(2,3) and an apple stays at (1,1).
    const free: Cell[] = [
      [1, 2],
      [1, 3],
      [3, 1],
      [3, 2],
      [3, 3],
    ];
    const expected = new Rng([...RNG]).pick(free);
    expect(a.state.inner.apples).toEqual([[1, 1], expected]);
    expect(a.state.rng).not.toEqual(RNG);
  });

  it("ends as a win when no free cell is left for the new apple", () => {
    // 4x4 board: a 2x2 interior.
    const s = state(
      [
        [1, 1],
        [2, 1],
      ],
      [
        [1, 2],
        [2, 2],
      ],
      "UP",
      "eval",
      { rows: 4, cols: 4, apples: 2 },
    );
    const r = game.step(s, "RIGHT");
    expect(r.done).toBe(true);
    expect(r.reward).toBe(1);
    expect(r.state.inner.status).toBe("won");
    expect(r.feedback).toContain("win");
    expect(r.state.inner.apples).toEqual([[2, 2]]);
  });
});

describe("snake start, observation and rules text", () => {
  it("starts with length 1 in the interior's middle moving UP, with 3 apples on free interior cells", () => {
    for (const [cfg, mid, size] of [
      ["explore", 4, 8],
      ["eval", 5, 10],
    ] as const) {
      for (let seed = 0; seed < 20; seed++) {
        const s = game.reset(seed, cfg);
        expect(s.inner.snake).toEqual([[mid, mid]]);
        expect(s.inner.direction).toBe("UP");
        const keys = new Set(s.inner.apples.map(([r, c]) => `${r},${c}`));
        expect(keys.size).toBe(3);
        expect(keys.has(`${mid},${mid}`)).toBe(false);
        for (const [r, c] of s.inner.apples) expect(r >= 1 && c >= 1 && r <= size - 2 && c <= size - 2).toBe(true);
      }
    }
  });

  it("renders the board with labels, the snake and the apples", () => {
    const s = state(
      [
        [1, 2],
        [2, 2],
        [2, 1],
      ],
      [
        [4, 4],
        [1, 1],
      ],
      "UP",
      "explore",
      { rows: 6, cols: 6, apples: 2 },
    );
    expect(render(s.inner, s.config)).toBe(
      [
        "Snake board: 6 rows x 6 columns (the border is wall)",
        "Direction: UP",
        "Snake (head to tail): (1, 2) (2, 2) (2, 1)",
        "Apples: (4, 4) (1, 1)",
        "  0 1 2 3 4 5",
        "0 # # # # # #",
        "1 # A H . . #",
        "2 # o o . . #",
        "3 # . . . . #",
        "4 # . . . A #",
        "5 # # # # # #",
      ].join("\n"),
    );
  });

  it("parseObservation(render(inner)) == facts(inner) over seeds and mid-episode states", () => {
    for (const cfg of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 10; seed++) {
        let s = game.reset(seed, cfg);
        for (let i = 0; i < 40 && !s.done; i++) {
          expect(parseObservation(render(s.inner, s.config))).toEqual(facts(s.inner, s.config));
          const ctx = { rules: "", observation: game.observe(s), history: [] };
          // Mostly the heuristic (long snakes), sometimes a random direction.
          const action = i % 7 === 3 ? Rng.fromKey(`t|${seed}|${i}`).pick(["UP", "DOWN", "LEFT", "RIGHT"]) : heuristic(ctx, new Rng([1, 2, 3, 4])).action;
          s = game.step(s, action).state;
        }
        expect(parseObservation(render(s.inner, s.config))).toEqual(facts(s.inner, s.config));
      }
    }
  });

  it("parseObservation rejects other text and inconsistent boards", () => {
    expect(() => parseObservation("Minesweeper board: 3 rows x 3 columns, 2 mines")).toThrow(/not a snake observation/);
    const s = state([[1, 2]], [[4, 4]], "UP", "explore", { rows: 6, cols: 6, apples: 1 });
    const text = render(s.inner, s.config).replace("Apples: (4, 4)", "Apples: (3, 3)");
    expect(() => parseObservation(text)).toThrow(/does not match/);
  });

  it("the rules text names the config's real sizes and collision handling", () => {
    const ex = game.rules("explore");
    expect(ex).toContain("8x8");
    expect(ex).toContain("6x6");
    expect(ex).toContain("3 apples");
    expect(ex).toContain("`blocked`");
    expect(ex).toContain("64 steps");
    const ev = game.rules("eval");
    expect(ev).toContain("10x10");
    expect(ev).toContain("8x8 playing area");
    expect(ev).toContain("ends the game");
    expect(ev).not.toContain("`blocked`");
  });
});

describe("snake heuristic", () => {
  const ctxOf = (s: State) => ({ rules: game.rules(s.config, "custom"), observation: game.observe(s), history: [] });

  it("eats an adjacent apple and self-scores 1", () => {
    const s = state(
      [[3, 3]],
      [
        [3, 4],
        [6, 6],
        [1, 1],
      ],
      "UP",
      "eval",
    );
    expect(heuristic(ctxOf(s), new Rng([1, 2, 3, 4]))).toEqual({ action: "RIGHT", selfScore: 1 });
  });

  it("walks the shortest path and self-scores 0 when not eating", () => {
    const s = state(
      [[3, 3]],
      [
        [1, 3],
        [6, 6],
        [6, 1],
      ],
      "UP",
      "eval",
    );
    expect(heuristic(ctxOf(s), new Rng([1, 2, 3, 4]))).toEqual({ action: "UP", selfScore: 0 });
  });

  it("declines an apple inside a pocket too small for its body", () => {
    // The body wraps a 3-cell pocket (2..4, 3) whose only entrance is (4,3), just above the head;
    // the tail (6,6) is far away. The apple at (4,3) would trap the snake.
    const snake: Cell[] = [
      [5, 3],
      [5, 2],
      [4, 2],
      [3, 2],
      [2, 2],
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
      [4, 5],
      [4, 6],
      [5, 6],
      [6, 6],
    ];
    const s = state(
      snake,
      [
        [4, 3],
        [6, 1],
        [6, 5],
      ],
      "RIGHT",
      "eval",
    );
    const d = heuristic(ctxOf(s), new Rng([1, 2, 3, 4]));
    expect(["RIGHT", "DOWN"]).toContain(d.action);
    expect(d.selfScore).toBe(0);
  });
});
