/** Tetris rule scenarios (games.md, "tetris"); generic properties live in contract.test.ts. */
import { describe, expect, it } from "vitest";
import { episodeKey, splitObservation } from "../../src/games/envelope.js";
import { Rng, rngStateFromKey } from "../../src/util/rng.js";
import { game } from "../../src/games/tetris/index.js";
import { heuristic, random } from "../../src/games/tetris/policies.js";
import { facts, parseObservation, render } from "../../src/games/tetris/render.js";
import { parseAction } from "../../src/games/tetris/rules.js";
import { configs, PIECES, SHAPES, type Piece, type TetrisInner } from "../../src/games/tetris/rules.js";
import type { EpisodeState } from "../../src/games/types.js";

type State = EpisodeState<TetrisInner, (typeof configs)["eval"]>;

const EMPTY8 = "........";

/** A state with a hand-made board: `bottomRows` (top to bottom) are the board's last rows, the rest empty. */
function stateWith(bottomRows: string[], current: Piece, next: Piece, config: "eval" | "explore" = "eval"): State {
  const base = game.reset(0, config) as State;
  const { width, height } = configs[config];
  const board = Array.from({ length: height }, () => ".".repeat(width));
  bottomRows.forEach((row, i) => (board[height - bottomRows.length + i] = row));
  return game.fromState({ ...base, inner: { board, current, next, placed: 0, lines: 0, over: false } }) as State;
}

describe("configs", () => {
  it("explore is 10 wide x 10 high, eval 8 wide x 8 high, both capped at 64 steps", () => {
    expect(game.configs.explore).toEqual({ width: 10, height: 10, maxSteps: 64 });
    expect(game.configs.eval).toEqual({ width: 8, height: 8, maxSteps: 64 });
    const e = game.reset(4, "explore") as State;
    expect(e.inner.board).toEqual(Array(10).fill("..........")); // 10 rows of 10
    const v = game.reset(4, "eval") as State;
    expect(v.inner.board).toEqual(Array(8).fill(EMPTY8));
  });

  it("the rules text names the real board size and the step cap", () => {
    const ev = game.rules("eval");
    expect(ev).toContain("8 columns wide and 8 rows high");
    expect(ev).toContain("column (1..8)");
    expect(ev).toContain("after 64 steps");
    expect(ev).toContain("<column> <rotation>");
    expect(ev).toContain("Answer: 3 90");
    const ex = game.rules("explore");
    expect(ex).toContain("10 columns wide and 10 rows high");
    expect(ex).toContain("column (1..10)");
    const custom = game.rules({ width: 6, height: 12, maxSteps: 30 }, "custom");
    expect(custom).toContain("6 columns wide and 12 rows high");
    expect(custom).toContain("after 30 steps");
  });
});

describe("pieces", () => {
  it("every rotation of every piece has the expected clockwise shape", () => {
    const expected: Record<Piece, string[][]> = {
      I: [["****"], ["*", "*", "*", "*"], ["****"], ["*", "*", "*", "*"]],
      O: [
        ["**", "**"],
        ["**", "**"],
        ["**", "**"],
        ["**", "**"],
      ],
      S: [
        [".**", "**."],
        ["*.", "**", ".*"],
        [".**", "**."],
        ["*.", "**", ".*"],
      ],
      Z: [
        ["**.", ".**"],
        [".*", "**", "*."],
        ["**.", ".**"],
        [".*", "**", "*."],
      ],
      L: [
        ["..*", "***"],
        ["*.", "*.", "**"],
        ["***", "*.."],
        ["**", ".*", ".*"],
      ],
      J: [
        ["*..", "***"],
        ["**", "*.", "*."],
        ["***", "..*"],
        [".*", ".*", "**"],
      ],
      T: [
        [".*.", "***"],
        ["*.", "**", "*."],
        ["***", ".*."],
        [".*", "**", ".*"],
      ],
    };
    expect(SHAPES).toEqual(expected);
  });

  it("each rotation drops with the shape shown, leftmost cell in the given column", () => {
    // L at each rotation, dropped at column 3 on an empty 8x8 board; bottom rows hand-drawn.
    const cases: Array<[string, string[]]> = [
      ["3 0", ["....*...", "..***..."]],
      ["3 90", ["..*.....", "..*.....", "..**...."]],
      ["3 180", ["..***...", "..*....."]],
      ["3 270", ["..**....", "...*....", "...*...."]],
    ];
    for (const [action, bottom] of cases) {
      const r = game.step(stateWith([], "L", "O"), action);
      expect(r.valid).toBe(true);
      const board = (r.state as State).inner.board;
      expect(board.slice(8 - bottom.length)).toEqual(bottom);
      expect(board.slice(0, 8 - bottom.length).every((row) => row === EMPTY8)).toBe(true);
    }
  });

  it("the piece sequence comes from the episode generator: same seed, same pieces", () => {
    for (const config of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 5; seed++) {
        const rng = new Rng(rngStateFromKey(episodeKey("tetris", config, seed)));
        const want = Array.from({ length: 6 }, () => rng.pick(PIECES));
        let s = game.reset(seed, config) as State;
        const seen = [s.inner.current, s.inner.next];
        // An invalid answer draws nothing; each placement draws the piece after next.
        s = game.step(s, "nonsense").state as State;
        expect([s.inner.current, s.inner.next]).toEqual(seen);
        for (let k = 0; k < 4; k++) {
          // Vertical rotations are at most 2 wide: one 2-column lane per piece, so nothing tops out.
          s = game.step(s, `${1 + 2 * k} 90`).state as State;
          seen.push(s.inner.next);
        }
        expect(seen).toEqual(want);
      }
    }
    const seqs = new Set<string>();
    for (let seed = 0; seed < 8; seed++) {
      let s = game.reset(seed, "explore") as State;
      const seq = [s.inner.current];
      for (let k = 0; k < 5; k++) {
        s = game.step(s, `${1 + 2 * k} 90`).state as State;
        seq.push(s.inner.current);
      }
      seqs.add(seq.join(""));
    }
    expect(seqs.size).toBeGreaterThan(6);
  });

  it("the seven pieces are drawn about equally often", () => {
    const counts: Record<string, number> = {};
    for (let seed = 0; seed < 3500; seed++) {
      const s = game.reset(seed, "eval") as State;
      for (const p of [s.inner.current, s.inner.next]) counts[p] = (counts[p] ?? 0) + 1;
    }
    expect(Object.keys(counts).sort()).toEqual([...PIECES].sort());
    for (const p of PIECES) expect(Math.abs(counts[p]! - 1000)).toBeLessThan(150);
  });
});

describe("placement and line clears", () => {
  it("hard drop stops at the first filled cell below, leaving covered holes", () => {
    // Column 1 has a filled cell in row 7 over an empty row 8: a vertical I rests on top of it.
    const s = stateWith(["*.......", "........"], "I", "O");
    const r = game.step(s, "1 90");
    expect(r.reward).toBe(0);
    expect((r.state as State).inner.board).toEqual([EMPTY8, EMPTY8, "*.......", "*.......", "*.......", "*.......", "*.......", EMPTY8]);
    expect(r.feedback).toBe("placed I at column 1, rotation 90");
  });

  it("a single full row clears, the rows above move down, r = 1", () => {
    const s = stateWith(["*.......", "******.."], "O", "T");
    const r = game.step(s, "7 0");
    expect(r.valid).toBe(true);
    expect(r.reward).toBe(1);
    expect(r.done).toBe(false);
    const inner = (r.state as State).inner;
    // The O fills rows 7-8 at columns 7-8: row 8 is full and clears; row 7 moves down to row 8.
    expect(inner.board).toEqual([EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8, "*.....**"]);
    expect(inner.lines).toBe(1);
    expect(game.score(r.state)).toBe(1);
    expect(r.feedback).toContain("cleared 1 line");
    expect(inner.current).toBe("T");
  });

  it("four lines clear at once with a vertical I in a well, r = 4", () => {
    const s = stateWith(["*.......", "*******.", "*******.", "*******.", "*******."], "I", "S");
    const r = game.step(s, "8 90");
    expect(r.reward).toBe(4);
    expect((r.state as State).inner.board).toEqual([EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8, "*......."]);
    expect(r.feedback).toContain("cleared 4 lines");
  });

  it("two non-adjacent rows clear together and the row between them survives", () => {
    // A vertical I in column 1 rests in rows 4-7 and completes rows 5 and 7 but not row 6.
    const s = stateWith([".*******", ".***.***", ".*******", "****.***"], "I", "O");
    const r = game.step(s, "1 90");
    expect(r.reward).toBe(2);
    expect((r.state as State).inner.board).toEqual([EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8, "*.......", "****.***", "****.***"]);
  });
});

describe("illegal and unparsable actions", () => {
  const s = stateWith(["*......."], "I", "O");
  const before = JSON.stringify(s.inner);

  function expectNoop(action: string | null): void {
    const r = game.step(s, action);
    expect(r.valid).toBe(false);
    expect(r.reward).toBe(0);
    expect(r.done).toBe(false);
    expect(r.feedback).toContain("<column> <rotation>");
    expect(JSON.stringify(r.state.inner)).toBe(before);
    expect(r.state.step).toBe(1);
  }

  it("a placement past the right edge is illegal (no clamping)", () => {
    // Horizontal I is 4 wide on an 8-wide board: columns 1..5 only.
    expectNoop("6 0");
    expectNoop("6 180");
    expectNoop("9 90");
    expect(game.step(s, "5 0").valid).toBe(true);
    expect(game.step(s, "8 90").valid).toBe(true);
    expect(game.step(s, "6 0").feedback).toContain("column must be 1..5");
  });

  it("a placement past the left edge is illegal", () => {
    expectNoop("0 0");
    expectNoop("0 90");
    expectNoop("-1 0");
  });

  it("bad rotations and unparsable text are no-ops", () => {
    expectNoop("3 45");
    expectNoop("3");
    expectNoop("left 90");
    expectNoop("3 90 1");
    expectNoop(null);
  });

  it("action parsing tolerates case, spacing, a trailing period and emphasis", () => {
    for (const a of ["  3 90 ", "**3 90**", "3 90.", "3   90", "3, 90"]) expect(game.step(s, a).valid).toBe(true);
  });

  it("a degree sign after the rotation is accepted (real models write `90°`; KORGym's grammar took it)", () => {
    expect(parseAction("3 90°")).toEqual({ column: 3, rotation: 90 });
    expect(parseAction("3, 270 °")).toEqual({ column: 3, rotation: 270 });
    expect(parseAction("**1 0°**")).toEqual({ column: 1, rotation: 0 });
    expect(game.step(s, "3 90°").feedback).toBe(game.step(s, "3 90").feedback);
    for (const bad of ["3° 90", "3 90°°", "3 °", "3 45°"]) expect(parseAction(bad), bad).toBeNull();
  });
});

describe("game over", () => {
  it("a piece that overlaps filled cells where it spawns (top row on row 0) ends the game and is not placed", () => {
    // Rows 2..8 are filled except column 8 (no full row); an O spawning at columns 1-2 in rows 1-2 overlaps row 2.
    const rows = Array(7).fill("*******.");
    const s = stateWith(rows, "O", "T");
    const r = game.step(s, "1 0");
    expect(r.valid).toBe(true);
    expect(r.done).toBe(true);
    expect(r.reward).toBe(0);
    const inner = (r.state as State).inner;
    expect(inner.over).toBe(true);
    expect(inner.board).toEqual([EMPTY8, ...rows]);
    expect(inner.placed).toBe(0);
    expect(r.feedback).toContain("game over");
    expect(game.legalActions(r.state)).toEqual([]);
    expect(parseObservation(splitObservation(game.observe(r.state)).body).over).toBe(true);
  });

  it("a piece spawns with its top at row 0 and falls, so it can slide under an overhang near the top (KORGym)", () => {
    // Row 2 has one filled cell at column 1, with nothing under it. J at 270 is `.*/.*/**`; at column 1
    // it spawns in rows 1-3, where only column 2 of rows 1-2 and columns 1-2 of row 3 are its cells:
    // none overlaps, and it falls to the floor, its foot passing under the overhang.
    const board = [EMPTY8, "*.......", EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8, EMPTY8];
    const base = game.reset(0, "eval") as State;
    const s = game.fromState({ ...base, inner: { board, current: "J", next: "O", placed: 0, lines: 0, over: false } }) as State;
    const r = game.step(s, "1 270");
    expect(r.valid).toBe(true);
    expect(r.done).toBe(false);
    expect(r.reward).toBe(0);
    expect((r.state as State).inner.board).toEqual([EMPTY8, "*.......", EMPTY8, EMPTY8, EMPTY8, ".*......", ".*......", "**......"]);
    // A J at rotation 0 (`*../***`) in column 1 spawns in rows 1-2 with a cell on the filled one:
    // game over, nothing placed; one column to the right it spawns clear and falls.
    const over = game.step(s, "1 0");
    expect(over.done).toBe(true);
    expect(over.reward).toBe(0);
    expect((over.state as State).inner.board).toEqual(board);
    expect((over.state as State).inner.placed).toBe(0);
    expect(game.step(s, "2 0").done).toBe(false);
  });

  it("a piece resting with its top cell in row 1 is inside the board", () => {
    // Column 8 is free in rows 1-4 only: the vertical I rests in rows 1-4 and completes rows 2-4.
    const s = stateWith(["*******.", "*******.", "*******.", "****.***", "****.***", "****.***", "****.***"], "I", "T");
    const r = game.step(s, "8 90");
    expect(r.valid).toBe(true);
    expect(r.reward).toBe(3);
    expect(r.done).toBe(false);
    const x = "****.***";
    expect((r.state as State).inner.board).toEqual([EMPTY8, EMPTY8, EMPTY8, ".......*", x, x, x, x]);
  });

  it("there is no look-ahead end rule: after a placement the game goes on whatever the next piece is", () => {
    // Row 2 becomes "*******." (not full) with row 1 empty: no 2-high O could rest inside the board,
    // but the game only ends when a piece is placed where it overlaps at its spawn rows.
    const s = stateWith(["***.....", "*******.", "*******.", "*******.", "*******.", "*******.", "*******."], "I", "O");
    const r = game.step(s, "4 0");
    expect(r.valid).toBe(true);
    expect(r.done).toBe(false);
    expect(r.reward).toBe(0);
    const inner = (r.state as State).inner;
    expect(inner.board[1]).toBe("*******.");
    expect(inner.placed).toBe(1);
    expect(inner.current).toBe("O");
    // The O then spawns in rows 1-2 and overlaps row 2 at any column: game over, not placed.
    const end = game.step(r.state, "1 0");
    expect(end.done).toBe(true);
    expect((end.state as State).inner.placed).toBe(1);
    expect(end.feedback).toContain("game over");
  });

  it("the same board is not over when the next piece can still enter", () => {
    // A vertical I fits in column 8 (rows 1..4 free there after the placement).
    const s = stateWith(["***.....", "*******.", "*******.", "*******.", "*******.", "*******.", "*******."], "I", "I");
    const r = game.step(s, "4 0");
    expect(r.done).toBe(false);
  });
});

describe("observation", () => {
  it("renders the board with column numbers, the four rotations and the next piece", () => {
    const s = stateWith(["**......"], "T", "S");
    const body = splitObservation(game.observe(s)).body;
    expect(body).toBe(
      [
        "Board: 8 columns x 8 rows (* filled, . empty; rows numbered from the top)",
        "     1  2  3  4  5  6  7  8",
        "  1  .  .  .  .  .  .  .  .",
        "  2  .  .  .  .  .  .  .  .",
        "  3  .  .  .  .  .  .  .  .",
        "  4  .  .  .  .  .  .  .  .",
        "  5  .  .  .  .  .  .  .  .",
        "  6  .  .  .  .  .  .  .  .",
        "  7  .  .  .  .  .  .  .  .",
        "  8  *  *  .  .  .  .  .  .",
        "",
        "Pieces placed: 0",
        "Current piece: T (its four clockwise rotations below; the column you give is where its leftmost cell goes)",
        "rotation 0 (3 wide: columns 1-6)",
        ".*.",
        "***",
        "rotation 90 (2 wide: columns 1-7)",
        "*.",
        "**",
        "*.",
        "rotation 180 (3 wide: columns 1-6)",
        "***",
        ".*.",
        "rotation 270 (2 wide: columns 1-7)",
        ".*",
        "**",
        ".*",
        "Next piece: S",
      ].join("\n"),
    );
  });

  it("the 10-wide board keeps its two-digit column number aligned", () => {
    const s = stateWith([], "O", "I", "explore");
    const body = splitObservation(game.observe(s)).body;
    expect(body.split("\n")[1]).toBe("     1  2  3  4  5  6  7  8  9 10");
    expect(body).toContain("rotation 0 (2 wide: columns 1-9)");
  });

  it("parseObservation(render(inner)) equals facts(inner) over many seeds and mid-episode states", () => {
    for (const config of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 25; seed++) {
        let s = game.reset(seed, config) as State;
        const rng = new Rng(rngStateFromKey(`test|${seed}`));
        for (let k = 0; k < 30 && !s.done; k++) {
          expect(parseObservation(render(s.inner, s.config))).toEqual(facts(s.inner, s.config));
          const legal = game.legalActions(s);
          s = game.step(s, rng.float() < 0.1 ? "junk" : rng.pick(legal)).state as State;
        }
        expect(parseObservation(render(s.inner, s.config))).toEqual(facts(s.inner, s.config));
      }
    }
  });

  it("parseObservation rejects text that is not a tetris observation", () => {
    expect(() => parseObservation("Opponent: #123\nRound 1 of 5")).toThrow(/not a tetris observation/);
    const body = render(stateWith([], "T", "S").inner, configs.eval);
    expect(() => parseObservation(body.replace("Next piece: S", "Next piece: Q"))).toThrow(/not a tetris observation/);
  });
});

describe("policies", () => {
  function ctxFor(s: State) {
    return { rules: game.rules(s.configName), observation: game.observe(s), history: [] };
  }

  it("random only proposes placements that fit horizontally", () => {
    const s = stateWith([], "I", "O");
    for (let k = 0; k < 50; k++) {
      const d = random(ctxFor(s), Rng.fromKey(`r${k}`));
      expect(game.legalActions(s)).toContain(d.action);
      expect(d.selfScore).toBe(0);
    }
  });

  it("heuristic takes the four-line clear and predicts its reward", () => {
    const s = stateWith(["*.......", "*******.", "*******.", "*******.", "*******."], "I", "S");
    const d = heuristic(ctxFor(s), Rng.fromKey("h"));
    expect(d.action).toBe("8 90");
    expect(d.selfScore).toBe(4);
  });

  it("heuristic fills a 2-wide gap and predicts the line it completes", () => {
    // An O fits exactly into the 2-wide gap at columns 4-5.
    const s = stateWith(["***..***", "***..**."], "O", "T");
    const d = heuristic(ctxFor(s), Rng.fromKey("h"));
    expect(d.action).toBe("4 0");
    expect(d.selfScore).toBe(1);
  });
});

describe("tetris parser edges (issue 28)", () => {
  it("the forms the parser accepts beyond '<column> <rotation>' (a comma, a degree sign) are stated in the rules text", () => {
    expect(parseAction("3,90")).toEqual({ column: 3, rotation: 90 });
    expect(parseAction("3 90°")).toEqual({ column: 3, rotation: 90 });
    const rules = game.rules("eval");
    expect(rules).toContain("A comma between the two numbers (`3, 90`) and a degree sign after the rotation (`3 90°`) are read the same as `3 90`.");
  });
});
