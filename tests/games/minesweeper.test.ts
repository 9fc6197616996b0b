/** Minesweeper rule scenarios (games.md, "minesweeper"), built by hand. */
import { describe, expect, it } from "vitest";
import { game } from "../../src/games/minesweeper/index.js";
import { analyse, heuristic } from "../../src/games/minesweeper/policies.js";
import { facts, parseObservation, render } from "../../src/games/minesweeper/render.js";
import { configs, type MinesweeperConfig, type MinesweeperInner } from "../../src/games/minesweeper/rules.js";
import { Rng } from "../../src/util/rng.js";
import type { EpisodeState } from "../../src/games/types.js";

type State = EpisodeState<MinesweeperInner, MinesweeperConfig>;

/** A board from a picture: `x` mine, `.` hidden safe, `o` uncovered safe, `F` flagged safe, `M` flagged mine, `*` exploded mine. */
function inner(picture: string[], opts: { lives?: number; firstUncoverPending?: boolean } = {}): MinesweeperInner {
  const cells = picture.map((row) => [...row.replace(/ /g, "")]);
  const g = (pred: (ch: string) => boolean): boolean[][] => cells.map((row) => row.map(pred));
  return {
    mine: g((ch) => "xM*".includes(ch)),
    revealed: g((ch) => ch === "o"),
    flagged: g((ch) => "FM".includes(ch)),
    exploded: g((ch) => ch === "*"),
    livesLeft: opts.lives ?? 1,
    firstUncoverPending: opts.firstUncoverPending ?? false,
    status: "playing",
  };
}

function state(i: MinesweeperInner, config: Partial<MinesweeperConfig> = {}, base: "explore" | "eval" = "eval"): State {
  const rows = i.mine.length;
  const cols = i.mine[0]!.length;
  const mines = i.mine.flat().filter(Boolean).length;
  // `start` only matters to init; first-click keeps the mine-count check loose for tiny boards.
  const cfg = { ...configs[base], rows, cols, mines, start: "first-click" as const, ...config };
  return game.fromState({ game: "minesweeper", configName: "custom", config: cfg, seed: 0, step: 0, done: false, rng: [1, 2, 3, 4], inner: i });
}

function run(s: State, actions: string[]) {
  const out = [];
  let cur = s;
  for (const a of actions) {
    const r = game.step(cur, a);
    out.push(r);
    cur = r.state;
  }
  return { results: out, last: cur };
}

const gridOf = (s: State): string[] => facts(s.inner, s.config).grid;

// Four mines across row 2 (with (2,4) safe) split the board into two halves.
const WALL = [".....", ".....", "xxxx.", ".....", "....."];

describe("minesweeper uncovering", () => {
  it("flood-fills zeros and stops at numbers", () => {
    const { results, last } = run(state(inner(WALL)), ["uncover (0, 0)"]);
    expect(results[0]!.reward).toBe(0);
    expect(results[0]!.valid).toBe(true);
    // Row 1 numbers by hand: (1,0) sees (2,0),(2,1); (1,1) and (1,2) see three; (1,3) sees (2,2),(2,3); (1,4) sees (2,3).
    expect(gridOf(last)).toEqual([".....", "23321", "?????", "?????", "?????"]);
  });

  it("a flood never opens a flagged cell and does not spread through one", () => {
    // (0,3) is a safe zero under a wrong flag. From (0,0) the flood opens row 0 up to the flag and
    // row 1's numbers (0,2) touches; (0,4) and (1,4) are reachable only through (0,3), so they stay hidden.
    const s = state(inner(["...F.", ".....", "xxxx.", ".....", "....."]));
    const { last } = run(s, ["uncover (0, 0)"]);
    expect(gridOf(last)).toEqual(["...F?", "2332?", "?????", "?????", "?????"]);
    expect(last.inner.flagged[0]![3]).toBe(true);
    // Taking the flag off and uncovering the cell lets the flood finish the top.
    const { results } = run(last, ["unflag (0, 3)", "uncover (0, 3)"]);
    expect(results[1]!.feedback).toBe("uncovered (0, 3): 3 cells opened");
    expect(gridOf(results[1]!.state).slice(0, 2)).toEqual([".....", "23321"]);
  });

  it("reveals a number alone (KORGym's neighbouring-zero quirk is not kept)", () => {
    const { last } = run(state(inner(WALL)), ["uncover (1, 0)"]);
    expect(gridOf(last)).toEqual(["?????", "2????", "?????", "?????", "?????"]);
  });

  it("wins when every safe cell is uncovered", () => {
    const { results, last } = run(state(inner(WALL)), ["uncover (0, 0)", "uncover (4, 4)", "uncover (2, 4)"]);
    expect(gridOf(results[1]!.state)).toEqual([".....", "23321", "?????", "23321", "....."]);
    expect(results[1]!.done).toBe(false);
    expect(results[2]!.done).toBe(true);
    expect(results[2]!.reward).toBe(1);
    expect(game.score(last)).toBe(1);
    expect(gridOf(last)[2]).toBe("????1");
  });

  it("win by uncovering pays 1 minus the flags already credited", () => {
    const { results } = run(state(inner(["..x", "...", "x.."])), ["flag (0, 2)", "uncover (0, 0)", "uncover (2, 2)"]);
    expect(results[0]!.reward).toBeCloseTo(1 / 2, 12);
    // (0,0) is a zero and opens (0,1),(1,0),(1,1); (2,2) is a zero too and opens the rest.
    expect(results[1]!.done).toBe(false);
    expect(results[2]!.done).toBe(true);
    expect(results[2]!.reward).toBeCloseTo(1 / 2, 12);
  });

  it("uncovering an already uncovered cell is invalid and changes nothing", () => {
    const s = state(inner(["o.x", "...", "x.."]));
    const r = game.step(s, "uncover (0, 0)");
    expect(r.valid).toBe(false);
    expect(r.reward).toBe(0);
    expect(r.feedback).toContain(game.actionGrammar);
    expect(r.state.inner).toEqual(s.inner);
  });
});

describe("minesweeper lives", () => {
  it("explore: a mine with lives left shows * and the game goes on; the last life ends it", () => {
    const s = state(inner(["x.x", "...", "x.."], { lives: 3 }), { lives: 3 }, "explore");
    const { results, last } = run(s, ["uncover (0, 0)", "uncover (0, 2)", "uncover (2, 0)"]);
    expect(results[0]!.feedback).toBe("mine! lives left: 2");
    expect(results[0]!.done).toBe(false);
    expect(results[0]!.reward).toBe(0);
    expect(gridOf(results[0]!.state)[0]).toBe("*??");
    const obs = game.observe(results[0]!.state);
    expect(obs).toContain("Lives left: 2");
    expect(results[1]!.feedback).toBe("mine! lives left: 1");
    expect(results[2]!.done).toBe(true);
    expect(last.inner.status).toBe("lost");
    expect(game.score(last)).toBe(0);
  });

  it("uncovering a mine is never a win, even when it is the last mine not flagged", () => {
    // Mines (0,0), (0,2) and (2,0) (flagged). Flag (0,2): 2 of 3 mines flagged, no wrong flag.
    const s = state(inner(["x.x", "...", "M.."], { lives: 3 }), { lives: 3 }, "explore");
    const { results, last } = run(s, ["flag (0, 2)", "uncover (0, 0)"]);
    expect(results[0]!.reward).toBeCloseTo(1 / 3, 12);
    expect(results[1]!.feedback).toBe("mine! lives left: 2");
    expect(results[1]!.done).toBe(false);
    expect(results[1]!.reward).toBe(0);
    expect(last.inner.status).toBe("playing");
    expect(game.score(last)).toBeCloseTo(2 / 3, 12);
  });

  it("an exploded mine is not flagged: the flag win is gone, uncovering every safe cell still wins", () => {
    // Three mines: (0,0) exploded, (2,0) flagged, (0,2) open; a wrong flag sits on (1,0).
    const s = state(inner(["*.x", "F..", "M.."], { lives: 2 }), { lives: 3 }, "explore");
    const { results } = run(s, ["flag (0, 2)", "unflag (1, 0)", "uncover (2, 2)", "uncover (0, 1)", "uncover (1, 0)"]);
    // Flagging the last hidden mine pays 1/3; removing the wrong flag leaves (0,0) unflagged: no win.
    expect(results[0]!.reward).toBeCloseTo(1 / 3, 12);
    expect(results[1]!.done).toBe(false);
    expect(results[1]!.reward).toBe(0);
    // (2,2) is a zero and opens (1,1), (1,2), (2,1); (0,1) is a 2; (1,0), the last safe cell, wins: 2/3 -> 1.
    expect(gridOf(results[2]!.state)).toEqual(["*?F", "?31", "F1."]);
    expect(results[3]!.done).toBe(false);
    expect(results[4]!.done).toBe(true);
    expect(results[4]!.reward).toBeCloseTo(1 / 3, 12);
    expect(results[4]!.feedback).toContain("win");
  });

  it("eval: one life, a mine ends the game and keeps the flags earned", () => {
    const s = state(inner(["M.x", "...", "x.."]));
    const r = game.step(s, "uncover (2, 0)");
    expect(r.done).toBe(true);
    expect(r.reward).toBe(0);
    expect(r.feedback).toContain("mine!");
    expect(game.score(r.state)).toBeCloseTo(1 / 3, 12);
  });

  it("uncovering a flagged mine takes the flag's credit back and costs a life", () => {
    const s = state(inner(["M.x", "...", "x.."], { lives: 2 }), { lives: 3 }, "explore");
    const r = game.step(s, "uncover (0, 0)");
    expect(r.reward).toBeCloseTo(-1 / 3, 12);
    expect(r.feedback).toBe("mine! lives left: 1");
  });
});

describe("minesweeper first-click rule (eval)", () => {
  const FIRST = ["xx...", ".....", ".....", ".....", "....x"];

  /** Where the mine under (0,0) went: the one mine cell that was not a mine before. */
  const movedTo = (st: State): [number, number] => {
    const before = inner(FIRST).mine;
    for (let r = 0; r < 5; r++) for (let c = 0; c < 5; c++) if (st.inner.mine[r]![c] && !before[r]![c]) return [r, c];
    throw new Error("no mine moved");
  };

  it("moves a mine under the first uncover to a mine-free cell and recomputes the numbers", () => {
    const s = state(inner(FIRST, { firstUncoverPending: true }));
    const { results, last } = run(s, ["uncover (0, 0)"]);
    expect(results[0]!.done).toBe(false);
    expect(results[0]!.feedback).not.toContain("mine");
    expect(last.inner.mine[0]![0]).toBe(false);
    expect(last.inner.mine.flat().filter(Boolean)).toHaveLength(3);
    const [mr, mc] = movedTo(last);
    expect(FIRST[mr]![mc]).toBe(".");
    // (0,0)'s number counts (0,1) plus the moved mine if it landed next to (0,0).
    const adjacent = mr <= 1 && mc <= 1 ? 1 : 0;
    expect(gridOf(last)[0]![0]).toBe(String(1 + adjacent));
  });

  it("draws the new cell from the episode generator: deterministic per state, spread over the free cells", () => {
    const counts = new Map<string, number>();
    const N = 2200;
    for (let k = 0; k < N; k++) {
      const s = state(inner(FIRST, { firstUncoverPending: true }));
      const seeded = game.fromState({ ...s, rng: Rng.fromKey(`first-click-${k}`).state });
      const a = run(seeded, ["uncover (0, 0)"]).last;
      expect(movedTo(run(seeded, ["uncover (0, 0)"]).last)).toEqual(movedTo(a));
      const key = movedTo(a).join(",");
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    // 22 mine-free cells besides the clicked one: each about 100 times, reading order not favoured.
    expect(counts.size).toBe(22);
    for (const n of counts.values()) expect(Math.abs(n - N / 22)).toBeLessThan(45);
    expect(counts.get("0,2")!).toBeLessThan(150);
  });

  it("protects only the first uncover", () => {
    const s = state(inner(FIRST, { firstUncoverPending: true }));
    const { results } = run(s, ["uncover (1, 0)", "uncover (0, 0)"]);
    expect(results[0]!.done).toBe(false);
    expect(results[1]!.done).toBe(true);
    expect(results[1]!.state.inner.status).toBe("lost");
  });

  it("takes back a correct-flag reward paid for the cell on that step", () => {
    const s = state(inner(FIRST, { firstUncoverPending: true }));
    const { results, last } = run(s, ["flag (0, 0)", "uncover (0, 0)"]);
    expect(results[0]!.reward).toBeCloseTo(1 / 3, 12);
    expect(results[1]!.reward).toBeCloseTo(-1 / 3, 12);
    expect(last.inner.flagged[0]![0]).toBe(false);
    expect(game.score(last)).toBe(0);
  });

  it("credits a flag that the moved mine lands under", () => {
    const s = state(inner(FIRST, { firstUncoverPending: true }));
    // Flagging draws nothing, so with the same generator state the mine lands where it does alone.
    const [mr, mc] = movedTo(run(s, ["uncover (0, 0)"]).last);
    const { results, last } = run(s, [`flag (${mr}, ${mc})`, "uncover (0, 0)"]);
    expect(results[0]!.reward).toBe(0);
    expect(results[1]!.reward).toBeCloseTo(1 / 3, 12);
    expect(game.score(last)).toBeCloseTo(1 / 3, 12);
  });

  it("explore has no first-click rule: the pending flag is off and a mine costs a life", () => {
    const s0 = game.reset(0, "explore");
    expect(s0.inner.firstUncoverPending).toBe(false);
    const s = state(inner(FIRST, { lives: 3 }), { lives: 3 }, "explore");
    expect(game.step(s, "uncover (0, 0)").feedback).toBe("mine! lives left: 2");
  });
});

describe("minesweeper flags", () => {
  it("scores correct flags / mines; wrong flags cost nothing; unflagging a mine takes 1/m back", () => {
    const s = state(inner(["x..", "...", "..x"]));
    const { results, last } = run(s, ["flag (0, 0)", "flag (1, 1)", "unflag (0, 0)", "unflag (1, 1)"]);
    expect(results.map((r) => r.reward)).toEqual([0.5, 0, -0.5, 0]);
    expect(results.every((r) => r.valid)).toBe(true);
    expect(game.score(last)).toBe(0);
  });

  it("allows at most as many flags as mines", () => {
    const s = state(inner(["x..", "...", "..x"]));
    const { results, last } = run(s, ["flag (0, 1)", "flag (0, 2)", "flag (1, 1)"]);
    expect(results[2]!.valid).toBe(false);
    expect(results[2]!.feedback).toContain(game.actionGrammar);
    expect(last.inner.flagged.flat().filter(Boolean).length).toBe(2);
    expect(game.observe(last)).toContain("Flags placed: 2 of 2");
  });

  it("rejects flags on uncovered or flagged cells and unflags of unflagged cells", () => {
    const s = state(inner(["o.x", ".F.", "x.."]));
    for (const a of ["flag (0, 0)", "flag (1, 1)", "unflag (0, 1)", "unflag (0, 0)"]) {
      const r = game.step(s, a);
      expect(r.valid, a).toBe(false);
      expect(r.reward).toBe(0);
      expect(r.state.inner).toEqual(s.inner);
    }
  });

  it("wins when every mine is flagged and nothing else", () => {
    const s = state(inner(["x..", "...", "..x"]));
    const { results, last } = run(s, ["flag (0, 0)", "flag (2, 2)"]);
    expect(results[0]!.done).toBe(false);
    expect(results[1]!.done).toBe(true);
    expect(results[1]!.feedback).toContain("win");
    expect(results[1]!.reward).toBeCloseTo(0.5, 12);
    expect(game.score(last)).toBe(1);
  });
});

describe("minesweeper action parsing", () => {
  const s = state(inner(["x..", "...", "..x"]));
  it.each(["uncover (1, 2)", "Uncover (1,2).", "**uncover 1 2**", "UNCOVER(1, 2)", "uncover 1, 2"])("accepts %s", (a) => {
    expect(game.step(s, a).valid).toBe(true);
  });
  it.each(["uncover (1, 2", "uncover 1 2)", "dig (1, 2)", "uncover (3, 0)", "uncover (0, 3)", "uncover (-1, 0)", "uncover (1, 2) please", ""])("rejects %j", (a) => {
    const r = game.step(s, a);
    expect(r.valid).toBe(false);
    expect(r.feedback).toContain(game.actionGrammar);
    expect(r.state.inner).toEqual(s.inner);
  });
  it("a missing answer is a wasted step", () => {
    const r = game.step(s, null);
    expect(r.valid).toBe(false);
    expect(r.state.step).toBe(1);
    expect(r.done).toBe(false);
  });
});

describe("minesweeper starts", () => {
  it("explore starts with one safe zero cell and exactly its flood opening revealed", () => {
    for (let seed = 0; seed < 30; seed++) {
      const s = game.reset(seed, "explore");
      const { mine, revealed } = s.inner;
      expect(mine.flat().filter(Boolean).length).toBe(10);
      expect(mine.length).toBe(8);
      expect(mine[0]!.length).toBe(8);
      const grid = gridOf(s);
      const opened: Array<[number, number]> = [];
      grid.forEach((row, r) =>
        [...row].forEach((ch, c) => {
          if (ch !== "?") opened.push([r, c]);
        }),
      );
      expect(opened.every(([r, c]) => !mine[r]![c])).toBe(true);
      // A connected region: grows from one zero through zeros only, and every zero's neighbours are open.
      const zero = opened.find(([r, c]) => grid[r]![c] === ".");
      expect(zero).toBeDefined();
      const reach = new Set<string>([zero!.join()]);
      const queue = [zero!];
      while (queue.length) {
        const [r, c] = queue.pop()!;
        if (grid[r]![c] !== ".") continue;
        for (let dr = -1; dr <= 1; dr++) {
          for (let dc = -1; dc <= 1; dc++) {
            const nr = r + dr;
            const nc = c + dc;
            if (nr < 0 || nc < 0 || nr >= 8 || nc >= 8 || reach.has(`${nr},${nc}`)) continue;
            expect(revealed[nr]![nc]).toBe(true);
            reach.add(`${nr},${nc}`);
            queue.push([nr, nc]);
          }
        }
      }
      expect(reach.size).toBe(opened.length);
      expect(s.inner.livesLeft).toBe(3);
    }
  });

  it("eval starts with nothing revealed, 16 mines and one life", () => {
    for (let seed = 0; seed < 10; seed++) {
      const s = game.reset(seed, "eval");
      expect(s.inner.mine.flat().filter(Boolean).length).toBe(16);
      expect(gridOf(s).join("")).toBe("?".repeat(100));
      expect(s.inner.firstUncoverPending).toBe(true);
      expect(game.observe(s)).toContain("Lives left: 1");
    }
  });

  it("the first uncover of a fresh eval board never ends the game", () => {
    for (let seed = 0; seed < 20; seed++) {
      const s = game.reset(seed, "eval");
      const r = game.step(s, "uncover (4, 7)");
      expect(r.done).toBe(false);
      expect(r.state.inner.mine.flat().filter(Boolean).length).toBe(16);
    }
  });
});

describe("minesweeper observation and rules text", () => {
  it("parseObservation(render(inner)) == facts(inner) over seeds and mid-episode states", () => {
    for (const config of ["explore", "eval"] as const) {
      for (let seed = 0; seed < 15; seed++) {
        let s = game.reset(seed, config);
        const rng = Rng.fromKey(`test|${config}|${seed}`);
        for (let i = 0; i < 25 && !s.done; i++) {
          expect(parseObservation(render(s.inner, s.config))).toEqual(facts(s.inner, s.config));
          const acts = game.legalActions(s);
          s = game.step(s, rng.pick(acts)).state;
        }
        expect(parseObservation(render(s.inner, s.config))).toEqual(facts(s.inner, s.config));
      }
    }
  });

  it("shows the grid with labels, lives, mines and flags", () => {
    const s = state(inner(["o.x", ".F.", "x.."], { lives: 2 }), { lives: 3 }, "explore");
    expect(render(s.inner, s.config)).toBe(["Minesweeper board: 3 rows x 3 columns, 2 mines", "Lives left: 2", "Flags placed: 1 of 2", "  0 1 2", "0 . ? ?", "1 ? F ?", "2 ? ? ?"].join("\n"));
  });

  it("parseObservation rejects other text", () => {
    expect(() => parseObservation("Snake board: 8 rows x 8 columns")).toThrow(/not a minesweeper observation/);
    expect(() => parseObservation("")).toThrow(/not a minesweeper observation/);
  });

  it("the rules text names the config's real sizes", () => {
    const ex = game.rules("explore");
    expect(ex).toContain("8x8");
    expect(ex).toContain("10 mines");
    expect(ex).toContain("3 lives");
    expect(ex).toContain("already uncovered");
    expect(ex).toContain("64 steps");
    const ev = game.rules("eval");
    expect(ev).toContain("10x10");
    expect(ev).toContain("16 mines");
    expect(ev).toContain("1 life");
    expect(ev).toContain("first uncover never hits a mine");
    expect(ev).not.toContain("9x9");
  });

  it("rejects restored states whose grids disagree in shape", () => {
    const s = game.reset(0, "eval");
    const bad = JSON.parse(JSON.stringify(s));
    bad.inner.flagged.pop();
    expect(() => game.fromState(bad)).toThrow(/inner\.flagged/);
  });

  it("rejects configs whose mines do not fit", () => {
    expect(() => game.resolveConfig({ ...configs.explore, mines: 56 })).toThrow(/mines/);
    expect(() => game.resolveConfig({ ...configs.eval, mines: 100 })).toThrow(/mines/);
  });
});

describe("minesweeper heuristic", () => {
  const ctxOf = (s: State) => ({ rules: game.rules(s.config, "custom"), observation: game.observe(s), history: [] });

  it("deduces a mine from a 1 with one hidden neighbour and flags it, self-scoring 1/m", () => {
    // Everything open except the one mine at (0,2).
    const s = state(inner(["oox", "ooo", "ooo"]));
    const d = heuristic(ctxOf(s), new Rng([1, 2, 3, 4]));
    expect(d.action).toBe("flag (0, 2)");
    // The only mine: flagging it also wins (1/m = 1).
    expect(d.selfScore).toBe(1);
  });

  it("uncovers a deduced safe cell before guessing", () => {
    // One mine at (3,3); the open cells (0,0),(0,1),(1,0) are zeros.
    const s = state(inner(["oo..", "o...", "....", "...x"]));
    const a = analyse(parseObservation(render(s.inner, s.config)));
    // The zeros at (0,0),(0,1),(1,0) make their hidden neighbours (0,2),(1,1),(1,2),(2,0),(2,1) safe.
    for (const [r, c] of [
      [0, 2],
      [1, 1],
      [1, 2],
      [2, 0],
      [2, 1],
    ] as const)
      expect(a.known[r]![c]).toBe("safe");
    const d = heuristic(ctxOf(s), new Rng([1, 2, 3, 4]));
    expect(d.action).toBe("uncover (0, 2)");
    expect(d.selfScore).toBe(0);
  });

  it("weighs frontier assignments by the ways to place the remaining mines", () => {
    // (0,0) shows 1: one mine among (0,1),(1,0),(1,1). With 1 mine in all, the other five cells are
    // safe; with 2 mines, the second is spread over those five (1/5 each) and the frontier stays 1/3.
    const s1 = state(inner(["o..", ".x.", "..."]));
    const one = analyse(parseObservation(render(s1.inner, s1.config)));
    expect(one.known[2]![2]).toBe("safe");
    expect(one.risk[0]![1]).toBeCloseTo(1 / 3, 12);
    const s2 = state(inner(["o..", ".x.", "..x"]));
    const two = analyse(parseObservation(render(s2.inner, s2.config)));
    expect(two.risk[1]![0]).toBeCloseTo(1 / 3, 12);
    expect(two.risk[2]![2]).toBeCloseTo(1 / 5, 12);
    // The guess: a 1/5 cell, the first in reading order among those with the fewest hidden neighbours.
    expect(heuristic(ctxOf(s2), new Rng([1, 2, 3, 4])).action).toBe("uncover (0, 2)");
  });

  it("starts an empty eval board with a corner (safe under the first-click rule)", () => {
    const s = game.reset(0, "eval");
    const d = heuristic({ rules: game.rules("eval"), observation: game.observe(s), history: [] }, new Rng([1, 2, 3, 4]));
    expect(d.action).toBe("uncover (9, 9)");
  });
});

describe("minesweeper parser edges (issue 28)", () => {
  it("a negative coordinate is off the board, like one past the edge, with the same kind of message", () => {
    const s = game.reset(0, "eval");
    for (const [a, where] of [
      ["uncover (-1, 0)", "(-1, 0)"],
      ["uncover (10, 0)", "(10, 0)"],
      ["flag 0 -3", "(0, -3)"],
    ] as const) {
      const r = game.step(s, a);
      expect(r.valid, a).toBe(false);
      expect(r.feedback, a).toBe(`${where} is off the 10x10 board: expected '${game.actionGrammar}'`);
      expect(r.state.inner).toEqual(s.inner);
    }
    expect(game.step(s, "uncover (a, 0)").feedback).toMatch(/^invalid action: expected/);
  });
});
