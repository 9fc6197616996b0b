/** Chess (rule induction): hand-made scenarios for every rule in games.md's chess section. */
import { describe, expect, it } from "vitest";
import { splitObservation } from "../../src/games/envelope.js";
import { game } from "../../src/games/chess/index.js";
import { heuristic, random, rulesKnowing } from "../../src/games/chess/policies.js";
import { facts, parseObservation, render } from "../../src/games/chess/render.js";
import { PIECE_RULES, configs, type ChessConfig, type ChessInner } from "../../src/games/chess/rules.js";
import { Rng } from "../../src/util/rng.js";
import type { EpisodeState, PolicyContext } from "../../src/games/types.js";

type Cfg = "explore" | "eval";

/** Hand-rolled square parser, independent of the code under test. */
function xy(sq: string): { x: number; y: number } {
  return { x: sq.charCodeAt(0) - 97, y: Number(sq.slice(1)) - 1 };
}

function mk(config: Cfg, pieces: Array<[string, string]>, targets: string[], captured = 0): EpisodeState<ChessInner, ChessConfig> {
  const base = game.reset(0, config);
  return game.fromState({
    ...base,
    inner: { pieces: pieces.map(([type, sq]) => ({ type, ...xy(sq) })), targets: targets.map(xy), captured },
  });
}

/** Every square `piece` on `from` can legally reach, by trying each square of the board through step(). */
function reachableByStep(state: EpisodeState<ChessInner, ChessConfig>, from: string): string[] {
  const n = state.config.size;
  const ok: string[] = [];
  for (let x = 0; x < n; x++) {
    for (let y = 0; y < n; y++) {
      const to = `${String.fromCharCode(97 + x)}${y + 1}`;
      if (to === from) continue;
      if (game.step(state, `${from} ${to}`).valid) ok.push(to);
    }
  }
  return ok.sort();
}

describe("chess configs", () => {
  it("explore and eval are exactly games.md's table", () => {
    expect(configs.explore).toEqual({ size: 8, pieces: { R: 0, A: 1, B: 1 }, targets: 3, reach: 3, maxSteps: 64 });
    expect(configs.eval).toEqual({ size: 15, pieces: { R: 0, A: 2, B: 2 }, targets: 5, reach: 64, maxSteps: 64 });
  });

  it("hidden rules are data: A a (1,3)-leaper, B a two-square king jump, R a rook slider", () => {
    const sorted = (vs: readonly (readonly [number, number])[]) => vs.map(([a, b]) => `${a},${b}`).sort();
    expect(PIECE_RULES.A.kind).toBe("leaper");
    expect(sorted(PIECE_RULES.A.vectors)).toEqual(["-1,-3", "-1,3", "-3,-1", "-3,1", "1,-3", "1,3", "3,-1", "3,1"]);
    expect(PIECE_RULES.B.kind).toBe("leaper");
    expect(sorted(PIECE_RULES.B.vectors)).toEqual(["-2,-2", "-2,0", "-2,2", "0,-2", "0,2", "2,-2", "2,0", "2,2"]);
    expect(PIECE_RULES.R.kind).toBe("slider");
    expect(sorted(PIECE_RULES.R.vectors)).toEqual(["-1,0", "0,-1", "0,1", "1,0"]);
    expect(PIECE_RULES.R.hidden).toBe(false);
    expect(PIECE_RULES.A.hidden && PIECE_RULES.B.hidden).toBe(true);
  });

  it("rejects configs whose pieces and targets do not fit", () => {
    expect(() => game.resolveConfig({ size: 2, pieces: { R: 1, A: 2, B: 0 }, targets: 3, reach: 3, maxSteps: 64 })).toThrow();
    expect(() => game.resolveConfig({ size: 16, pieces: { R: 1, A: 0, B: 0 }, targets: 3, reach: 3, maxSteps: 64 })).toThrow();
    expect(() => game.resolveConfig({ size: 8, pieces: { R: 0, A: 1, B: 1 }, targets: 3, reach: 0, maxSteps: 64 })).toThrow(/reach/);
  });
});

describe("chess generation", () => {
  /**
   * Independent reachability: moves piece `pi` needs to land on `goal` moving alone, by hand-written
   * movement, the other pieces standing still and targets ignored (games.md); Infinity if never.
   */
  function movesTo(inner: ChessInner, n: number, pi: number, goal: { x: number; y: number }): number {
    const p = inner.pieces[pi]!;
    const blocked = (x: number, y: number) => inner.pieces.some((q, i) => i !== pi && q.x === x && q.y === y);
    const jumps: Record<string, number[][]> = {
      A: [
        [1, 3],
        [1, -3],
        [-1, 3],
        [-1, -3],
        [3, 1],
        [3, -1],
        [-3, 1],
        [-3, -1],
      ],
      B: [
        [2, 0],
        [-2, 0],
        [0, 2],
        [0, -2],
        [2, 2],
        [2, -2],
        [-2, 2],
        [-2, -2],
      ],
    };
    const dist = new Map([[`${p.x},${p.y}`, 0]]);
    const queue = [{ x: p.x, y: p.y }];
    while (queue.length) {
      const c = queue.shift()!;
      const d = dist.get(`${c.x},${c.y}`)!;
      for (const [dx, dy] of jumps[p.type]!) {
        const q = { x: c.x + dx!, y: c.y + dy! };
        if (q.x < 0 || q.y < 0 || q.x >= n || q.y >= n || blocked(q.x, q.y)) continue;
        if (q.x === goal.x && q.y === goal.y) return d + 1;
        if (!dist.has(`${q.x},${q.y}`)) {
          dist.set(`${q.x},${q.y}`, d + 1);
          queue.push(q);
        }
      }
    }
    return Infinity;
  }

  it.each(["explore", "eval"] as const)("%s seeds 0..199: right counts, no told piece, distinct squares, every target within reach of a hidden piece", (config) => {
    const c = configs[config];
    const farthest: number[] = [];
    for (let seed = 0; seed < 200; seed++) {
      const s = game.reset(seed, config);
      const { pieces, targets, captured } = s.inner;
      expect(captured).toBe(0);
      expect(pieces.filter((p) => p.type === "R")).toHaveLength(0);
      expect(pieces.filter((p) => p.type === "A")).toHaveLength(c.pieces.A);
      expect(pieces.filter((p) => p.type === "B")).toHaveLength(c.pieces.B);
      expect(targets).toHaveLength(c.targets);
      const all = [...pieces, ...targets];
      expect(new Set(all.map((q) => `${q.x},${q.y}`)).size).toBe(all.length);
      for (const q of all) expect(q.x >= 0 && q.y >= 0 && q.x < c.size && q.y < c.size).toBe(true);
      for (const t of targets) {
        const d = Math.min(...pieces.map((_, i) => movesTo(s.inner, c.size, i, t)));
        expect(d).toBeLessThanOrEqual(c.reach);
        expect(d).toBeLessThanOrEqual(c.maxSteps);
        farthest.push(d);
      }
    }
    // The bound is used, not trivially met: explore reaches its 3; eval's targets spread further.
    if (config === "explore") expect(Math.max(...farthest)).toBe(3);
    else expect(Math.max(...farthest)).toBeGreaterThanOrEqual(4);
  });

  it("a piece's colour and parity bind it: targets a piece cannot ever reach are not counted as its", () => {
    // On an open board an A on a1 (x+y even) reaches only x+y even squares; a B only even/even ones.
    const s = mk(
      "eval",
      [
        ["A", "a1"],
        ["B", "o15"],
      ],
      ["b1"],
    );
    expect(movesTo(s.inner, 15, 0, xy("b1"))).toBe(Infinity);
    expect(movesTo(s.inner, 15, 0, xy("b4"))).toBe(1);
    expect(movesTo(s.inner, 15, 1, xy("o14"))).toBe(Infinity);
    expect(movesTo(s.inner, 15, 1, xy("m13"))).toBe(1);
  });
});

describe("chess rook", () => {
  it("moves any distance along a rank or file, not diagonally or like a knight", () => {
    const s = mk("explore", [["R", "d4"]], ["h8"]);
    const expected = ["a4", "b4", "c4", "e4", "f4", "g4", "h4", "d1", "d2", "d3", "d5", "d6", "d7", "d8"].sort();
    expect(reachableByStep(s, "d4")).toEqual(expected);
    for (const bad of ["e5", "f6", "e6", "c2"]) {
      const r = game.step(s, `d4 ${bad}`);
      expect(r.valid).toBe(false);
      expect(r.feedback.startsWith("illegal move")).toBe(true);
      expect(r.state.inner).toEqual(s.inner);
    }
  });

  it("is blocked by its own pieces in between, and cannot land on them", () => {
    const s = mk(
      "explore",
      [
        ["R", "a1"],
        ["A", "a4"],
      ],
      ["h8"],
    );
    const past = game.step(s, "a1 a6");
    expect(past.valid).toBe(false);
    expect(past.feedback).toBe("illegal move: the path is blocked at a4");
    expect(past.state.inner).toEqual(s.inner);
    expect(game.step(s, "a1 a4").valid).toBe(false);
    expect(game.step(s, "a1 a4").feedback).toContain("own piece");
    expect(game.step(s, "a1 a3").valid).toBe(true);
  });

  it("is blocked by a target in between, but captures the first target on its line", () => {
    const s = mk("explore", [["R", "a1"]], ["d1", "g1", "h8"]);
    const past = game.step(s, "a1 g1");
    expect(past.valid).toBe(false);
    expect(past.reward).toBe(0);
    expect(past.feedback).toBe("illegal move: the path is blocked at d1");
    const beyond = game.step(s, "a1 h1");
    expect(beyond.valid).toBe(false);
    const hit = game.step(s, "a1 d1");
    expect(hit.valid).toBe(true);
    expect(hit.reward).toBeCloseTo(1 / 3, 12);
    expect(hit.state.inner.pieces).toEqual([{ type: "R", x: 3, y: 0 }]);
    expect(hit.state.inner.targets).toEqual([xy("g1"), xy("h8")]);
  });
});

describe("chess hidden movers", () => {
  it("A is a (1,3)-leaper: exactly 8 jumps from an open square", () => {
    const s = mk("eval", [["A", "h8"]], ["a15"]);
    expect(reachableByStep(s, "h8")).toEqual(["e7", "e9", "g11", "g5", "i11", "i5", "k7", "k9"].sort());
  });

  it("A's moves near the edge are only those that stay on the board", () => {
    const s = mk("explore", [["A", "b2"]], ["h8"]);
    // (+1,+3) c5, (+3,+1) e3, (-1,+3) a5, (+3,-1) e1; the rest leave the board.
    expect(reachableByStep(s, "b2")).toEqual(["a5", "c5", "e1", "e3"]);
    const off = game.step(s, "b2 a0");
    expect(off.valid).toBe(false);
  });

  it("A jumps over pieces and targets in between and captures by landing", () => {
    const s = mk(
      "explore",
      [
        ["A", "d4"],
        ["R", "d5"],
        ["A", "d6"],
        ["R", "e5"],
      ],
      ["e7", "d3", "h8"],
    );
    const r = game.step(s, "d4 e7");
    expect(r.valid).toBe(true);
    expect(r.reward).toBeCloseTo(1 / 3, 12);
    expect(r.state.inner.targets).toEqual([xy("d3"), xy("h8")]);
    // Non-A moves rejected with the bare words: the reason is what the player must discover.
    for (const bad of ["d3", "e5", "e6", "f5", "d7", "g6"]) {
      const rr = game.step(s, `d4 ${bad}`);
      expect(rr.valid).toBe(false);
      expect(rr.state.inner).toEqual(s.inner);
    }
    expect(game.step(s, "d4 d3").feedback).toBe("illegal move");
    expect(game.step(s, "d4 e6").feedback).toBe("illegal move");
    expect(game.step(s, "d4 f5").feedback).toBe("illegal move");
  });

  it("B jumps exactly two squares orthogonally or diagonally: 8 moves", () => {
    const s = mk("eval", [["B", "h8"]], ["a15"]);
    expect(reachableByStep(s, "h8")).toEqual(["f10", "f6", "f8", "h10", "h6", "j10", "j6", "j8"].sort());
  });

  it("B jumps over a piece or target on the square between, and one-step or knight moves are illegal", () => {
    const s = mk(
      "eval",
      [
        ["B", "e5"],
        ["A", "f5"],
        ["R", "f6"],
      ],
      ["e6", "g7", "o15"],
    );
    expect(game.step(s, "e5 g5").valid).toBe(true);
    const cap = game.step(s, "e5 g7");
    expect(cap.valid).toBe(true);
    expect(cap.reward).toBeCloseTo(1 / 5, 12);
    expect(game.step(s, "e5 e7").valid).toBe(true);
    for (const bad of ["e6", "d4", "g6", "f7", "h5", "e8", "h8", "d5"]) {
      const r = game.step(s, `e5 ${bad}`);
      expect(r.valid).toBe(false);
      expect(r.reward).toBe(0);
      expect(r.state.inner).toEqual(s.inner);
    }
    expect(game.step(s, "e5 e6").feedback).toBe("illegal move");
  });

  it("the same hidden rules hold in both configs", () => {
    const ex = mk("explore", [["A", "d4"]], ["h8"]);
    const ev = mk("eval", [["A", "d4"]], ["o15"]);
    expect(reachableByStep(ex, "d4")).toEqual(["a3", "a5", "c1", "c7", "e1", "e7", "g3", "g5"]);
    expect(reachableByStep(ev, "d4")).toEqual(["a3", "a5", "c1", "c7", "e1", "e7", "g3", "g5"]);
  });
});

describe("chess actions", () => {
  it("capturing the last target ends the game; rewards add up to the score", () => {
    let s = mk(
      "explore",
      [
        ["R", "a1"],
        ["A", "h1"],
      ],
      ["a8", "g4", "b1"],
    );
    const r1 = game.step(s, "a1 b1");
    expect(r1.reward).toBeCloseTo(1 / 3, 12);
    expect(r1.done).toBe(false);
    expect(r1.feedback).toBe("moved R a1 to b1 and captured the target there; 2 target(s) left");
    s = r1.state;
    const r2 = game.step(s, "h1 g4");
    expect(r2.reward).toBeCloseTo(1 / 3, 12);
    expect(r2.done).toBe(false);
    const r3 = game.step(r2.state, "b1 b8");
    expect(r3.reward).toBe(0);
    expect(r3.feedback).toBe("moved R b1 to b8");
    const r4 = game.step(r3.state, "b8 a8");
    expect(r4.done).toBe(true);
    expect(r4.feedback).toContain("all targets captured");
    expect(game.score(r4.state)).toBeCloseTo(1, 12);
    expect(r1.reward + r2.reward + r3.reward + r4.reward).toBeCloseTo(game.score(r4.state), 12);
    expect(game.legalActions(r4.state)).toEqual([]);
  });

  it("the score is captured / targets, and each reward is the change of score", () => {
    const s = mk("eval", [["R", "a1"]], ["a2", "o15", "o14", "o13"], 1);
    expect(game.score(s)).toBeCloseTo(1 / 5, 12);
    const r = game.step(s, "a1 a2");
    expect(game.score(r.state)).toBeCloseTo(2 / 5, 12);
    expect(r.reward).toBeCloseTo(game.score(r.state) - game.score(s), 12);
  });

  it("END stops the game with no reward", () => {
    const s = mk("explore", [["R", "a1"]], ["a8", "h8", "h1"]);
    for (const a of ["END", "end", "End.", "**END**"]) {
      const r = game.step(s, a);
      expect(r.valid).toBe(true);
      expect(r.done).toBe(true);
      expect(r.reward).toBe(0);
      expect(game.score(r.state)).toBe(0);
    }
  });

  it("squares outside 8x8 are illegal on the explore board but fine on 15x15", () => {
    const ex = mk("explore", [["R", "a1"]], ["h8"]);
    for (const to of ["i1", "a9", "o15"]) {
      const r = game.step(ex, `a1 ${to}`);
      expect(r.valid).toBe(false);
      expect(r.feedback).toBe(`illegal move: ${to} is off the 8x8 board`);
      expect(r.state.inner).toEqual(ex.inner);
    }
    const ev = mk("eval", [["R", "a1"]], ["o15"]);
    expect(game.step(ev, "a1 i1").valid).toBe(true);
    expect(game.step(ev, "a1 a9").valid).toBe(true);
    expect(game.step(ev, "a1 a15").valid).toBe(true);
    expect(game.step(ev, "a1 a16").feedback).toBe("illegal move: a16 is off the 15x15 board");
    expect(game.step(ev, "a1 p1").feedback).toBe("illegal move: p1 is off the 15x15 board");
    expect(game.step(ev, "a0 a1").valid).toBe(false);
  });

  it("moves that do not name one of your pieces, or stay put, change nothing", () => {
    const s = mk(
      "explore",
      [
        ["R", "a1"],
        ["A", "c3"],
      ],
      ["h8", "b2", "g7"],
    );
    const cases: Array<[string, string]> = [
      ["b1 b5", "illegal move: no piece of yours on b1"],
      ["b2 b5", "illegal move: no piece of yours on b2"],
      ["a1 a1", "illegal move: the piece must leave its square"],
      ["c3 a1", "illegal move: your own piece stands on a1"],
    ];
    for (const [a, fb] of cases) {
      const r = game.step(s, a);
      expect(r.valid).toBe(false);
      expect(r.reward).toBe(0);
      expect(r.done).toBe(false);
      expect(r.feedback).toBe(fb);
      expect(r.state.inner).toEqual(s.inner);
      expect(r.state.step).toBe(1);
    }
  });

  it("parsing is tolerant of case, spacing, a trailing period, emphasis and a dash; strict otherwise", () => {
    const s = mk("explore", [["R", "a1"]], ["h8", "h7", "h6"]);
    for (const a of ["a1 a5", "A1 A5", "  a1   a5 ", "a1 a5.", "**a1 a5**", "`a1 a5`", "a1-a5", "A1-A5", "a1 - a5"]) {
      const r = game.step(s, a);
      expect(r.valid, a).toBe(true);
      expect(r.state.inner.pieces[0]).toEqual({ type: "R", x: 0, y: 4 });
    }
    for (const a of ["a1a5", "Ra1 a5", "a1 to a5", "a1 a5 a6", "a1", "1a 5a", "a1 a100", "a1 x a5", "stop", ""]) {
      const r = game.step(s, a);
      expect(r.valid, a).toBe(false);
      expect(r.feedback, a).toContain(game.actionGrammar);
      expect(r.feedback.startsWith("illegal move"), a).toBe(true);
      expect(r.state.inner).toEqual(s.inner);
    }
    const none = game.step(s, null);
    expect(none.valid).toBe(false);
    expect(none.feedback).toContain(game.actionGrammar);
  });

  it("legalActions lists exactly the real legal moves plus END", () => {
    const s = mk(
      "explore",
      [
        ["R", "a1"],
        ["A", "b2"],
      ],
      ["a3", "h8", "g1"],
    );
    const expected = ["a1 a2", "a1 a3", "a1 b1", "a1 c1", "a1 d1", "a1 e1", "a1 f1", "a1 g1", "b2 a5", "b2 c5", "b2 e1", "b2 e3", "END"];
    expect(game.legalActions(s).slice().sort()).toEqual(expected.sort());
  });

  it("the step cap ends the game", () => {
    let s = game.reset(4, "explore");
    for (let i = 0; i < 64; i++) {
      expect(s.done).toBe(false);
      s = game.step(s, "zz").state;
    }
    expect(s.done).toBe(true);
  });
});

describe("chess observation", () => {
  it("renders the board with labels, the targets left and a reminder, and no score", () => {
    const s = mk(
      "explore",
      [
        ["A", "c3"],
        ["B", "h8"],
      ],
      ["b7", "e2", "g5"],
      0,
    );
    const expected = [
      "Step 1 of 64",
      "Board (8x8):",
      "  a b c d e f g h",
      "8 . . . . . . . B",
      "7 . t . . . . . .",
      "6 . . . . . . . .",
      "5 . . . . . . t .",
      "4 . . . . . . . .",
      "3 . . A . . . . .",
      "2 . . . . t . . .",
      "1 . . . . . . . .",
      "  a b c d e f g h",
      "Legend: A your piece (hidden rules), B your piece (hidden rules), t target, . empty",
      "Your pieces: A c3; B h8",
      "Targets left: 3 of 3: b7, e2, g5",
      "Reminder: A and B move by fixed rules you must discover.",
    ].join("\n");
    expect(game.observe(s)).toBe(expected);
  });

  it("eval boards have two-digit rank labels, all 15 files and mention B", () => {
    const s = mk(
      "eval",
      [
        ["R", "a1"],
        ["B", "o15"],
      ],
      ["a10"],
      4,
    );
    const obs = game.observe(s);
    expect(obs).toContain("\n   a b c d e f g h i j k l m n o\n");
    expect(obs).toContain("\n15 . . . . . . . . . . . . . . B\n");
    expect(obs).toContain("\n10 t . . . . . . . . . . . . . .\n");
    expect(obs).toContain("\n 1 R . . . . . . . . . . . . . .\n");
    expect(obs).toContain("Targets left: 1 of 5: a10");
    expect(obs).toContain("Reminder: A and B move by fixed rules you must discover.");
  });

  it("parseObservation(render(x)) equals facts(x) over many seeds and mid-episode states", () => {
    for (const config of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 25; seed++) {
        let s = game.reset(seed, config);
        const rng = Rng.fromKey(`chess-walk-${config}-${seed}`);
        for (let i = 0; i < 30 && !s.done; i++) {
          const body = render(s.inner, s.config);
          expect(parseObservation(body)).toEqual(facts(s.inner, s.config));
          expect(parseObservation(splitObservation(game.observe(s)).body)).toEqual(facts(s.inner, s.config));
          const legal = game.legalActions(s);
          s = game.step(s, rng.pick(legal.filter((a) => a !== "END"))).state;
        }
      }
    }
  });

  it("facts report what the board shows", () => {
    const s = mk(
      "eval",
      [
        ["B", "c3"],
        ["R", "o1"],
        ["A", "a2"],
      ],
      ["e5", "b9"],
      3,
    );
    expect(facts(s.inner, s.config)).toEqual({
      size: 15,
      pieces: [
        { type: "R", square: "o1" },
        { type: "A", square: "a2" },
        { type: "B", square: "c3" },
      ],
      targets: ["b9", "e5"],
      targetsLeft: 2,
      targetsTotal: 5,
      hidden: ["A", "B"],
    });
  });

  it("parseObservation rejects text that is not a chess observation", () => {
    expect(() => parseObservation("Board (8x8):\nnonsense")).toThrow(/chess/);
    expect(() => parseObservation("hello")).toThrow(/chess/);
    const good = render(game.reset(1, "explore").inner, configs.explore);
    expect(() => parseObservation(good.replace("Targets left: 3", "Targets left: 2"))).toThrow(/chess/);
    expect(() => parseObservation(good.replace(/\n1 /, "\n1 x"))).toThrow(/chess/);
  });
});

describe("chess rules text", () => {
  it("names the real parameters of each config and hides the movement of A and B", () => {
    const ex = game.rules("explore");
    expect(ex).toContain("8x8 board");
    expect(ex).toContain("3 static targets");
    expect(ex).toContain("You have 1 piece of type A and 1 piece of type B.");
    expect(ex).toContain("a..h");
    expect(ex).toContain("ranks 1..8");
    expect(ex).toContain("1/3 = 0.333333");
    expect(ex).toContain("after 64 steps");
    expect(ex).toContain("A and B move by fixed rules you must discover");
    const ev = game.rules("eval");
    expect(ev).toContain("15x15 board");
    expect(ev).toContain("5 static targets");
    expect(ev).toContain("You have 2 pieces of type A and 2 pieces of type B.");
    expect(ev).toContain("a..o");
    expect(ev).toContain("ranks 1..15");
    expect(ev).toContain("1/5 = 0.2");
    expect(ev).toContain("A and B move by fixed rules you must discover");
    for (const text of [ex, ev]) {
      expect(text).toContain("`a1 a5`");
      expect(text).toContain("END");
      // No piece with told rules: the rook appears only as the example of what a rule is.
      expect(text).not.toMatch(/\(R\)|R is a rook/);
      expect(text).toContain("For example (a piece that is not in this game), a rook would slide any distance along a rank or a file.");
      expect(text).not.toMatch(/leaper|\(1,\s*3\)|two squares|knight|jump/i);
    }
    const custom = game.rules({ ...configs.eval, maxSteps: 40 }, "short");
    expect(custom).toContain("after 40 steps");
  });
});

describe("chess policies", () => {
  function ctxFor(state: EpisodeState<any, any>, history: PolicyContext["history"] = []): PolicyContext {
    return { rules: game.rules(state.configName), observation: game.observe(state), history };
  }

  it("random picks legal-looking moves: rook moves by its rules, hidden pieces anywhere free", () => {
    const s = mk(
      "explore",
      [
        ["R", "a1"],
        ["A", "h8"],
      ],
      ["a3", "b1", "c5"],
    );
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const d = random(ctxFor(s), Rng.fromKey(`chess-random-${i}`));
      expect(d.selfScore).toBe(0);
      seen.add(d.action);
    }
    const rookMoves = [...seen].filter((a) => a.startsWith("a1 "));
    expect(rookMoves.sort()).toEqual(["a1 a2", "a1 a3", "a1 b1"]);
    for (const a of seen) {
      if (a.startsWith("h8 ")) expect(["h8 a1", "h8 h8"]).not.toContain(a);
    }
    expect([...seen].some((a) => a.startsWith("h8 "))).toBe(true);
  });

  it("heuristic captures with the rook when the path is clear, estimating 1/targets", () => {
    const s = mk(
      "eval",
      [
        ["R", "a1"],
        ["A", "h8"],
        ["B", "o1"],
      ],
      ["a9", "m13", "o15", "c3", "d4"],
    );
    const d = heuristic(ctxFor(s), new Rng([1, 2, 3, 4]));
    expect(d.action).toBe("a1 a9");
    expect(d.selfScore).toBeCloseTo(0.2, 12);
  });

  it("heuristic learns a hidden vector from an accepted move and captures with it", () => {
    // Earlier step: A moved e1 -> f4, i.e. (+1,+3). Now A on f4 has a target on g7 = f4 + (1,3).
    const before = mk(
      "explore",
      [
        ["R", "h1"],
        ["A", "e1"],
      ],
      ["g7", "a8", "b8"],
    );
    const r = game.step(before, "e1 f4");
    expect(r.valid).toBe(true);
    const now = r.state;
    const hist = [{ observation: game.observe(before), action: "e1 f4", feedback: r.feedback }];
    const d = heuristic(ctxFor(now, hist), new Rng([5, 6, 7, 8]));
    expect(d.action).toBe("f4 g7");
    expect(d.selfScore).toBeCloseTo(1 / 3, 12);
    // Without that history the same board has no believed capture: the rook cannot reach in one.
    const blind = heuristic(ctxFor(now, []), new Rng([5, 6, 7, 8]));
    expect(blind.selfScore).toBe(0);
  });

  it("heuristic does not repeat a probe that was rejected with nothing in between", () => {
    const s0 = mk("explore", [["A", "d4"]], ["d5", "a8", "h1"]);
    // d4 -> d5 is a one-step probe onto a target; after it fails the heuristic must not try it again.
    const r = game.step(s0, "d4 d5");
    expect(r.feedback).toBe("illegal move");
    const hist = [{ observation: game.observe(s0), action: "d4 d5", feedback: r.feedback }];
    for (let i = 0; i < 20; i++) {
      const d = heuristic(ctxFor(r.state, hist), Rng.fromKey(`chess-probe-${i}`));
      expect(d.action).not.toBe("d4 d5");
      expect(d.selfScore).toBe(0);
    }
  });

  it("heuristic beats random on eval seeds 0..19 (mean score)", async () => {
    const { playEpisode } = await import("../../src/games/episode.js");
    const { textPolicyDecision } = await import("../../src/games/policies.js");
    const mean = async (policy: "random" | "heuristic") => {
      let total = 0;
      for (let seed = 0; seed < 20; seed++) total += (await playEpisode(game, seed, "eval", (ctx) => textPolicyDecision(game, policy, ctx))).score;
      return total / 20;
    };
    const h = await mean("heuristic");
    const r = await mean("random");
    expect(h).toBeGreaterThan(r);
    // In-episode probing is worth something but far from knowing the rules (games.md: the score
    // must depend on knowing them).
    expect(h).toBeGreaterThan(0.2);
    expect(h).toBeLessThan(0.85);
  });

  it("a player who knows the hidden rules clears most eval boards; random scores near 0 (seeds 0..199)", async () => {
    const { playEpisode } = await import("../../src/games/episode.js");
    let cleared = 0;
    let knowingSteps = 0;
    let randomTotal = 0;
    for (let seed = 0; seed < 200; seed++) {
      const k = await playEpisode(game, seed, "eval", (ctx) => rulesKnowing(ctx, Rng.fromKey(`knowing-${seed}-${ctx.history.length}`)));
      if (k.score === 1) cleared += 1;
      knowingSteps += k.steps.length;
      const r = await playEpisode(game, seed, "eval", (ctx) => random(ctx, Rng.fromKey(`random-${seed}-${ctx.history.length}`)));
      randomTotal += r.score;
    }
    expect(cleared).toBeGreaterThanOrEqual(190);
    // "Well within 64 steps": a clear takes about a quarter of the cap on average.
    expect(knowingSteps / 200).toBeLessThan(32);
    expect(randomTotal / 200).toBeLessThan(0.05);
  });
});
