/**
 * The tetris heuristic's bitmask search decides exactly like the string search it replaced
 * (tests/games/reference/tetrisHeuristicReference.ts): same actions, same self-scores, at every step of
 * whole episodes on every config, including tall stacks, blocked spawns and game over.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/util/rng.js";
import { boardMasks, dropTop, fullRow, lockAndClearInto, maskFeatures, shapeMasks } from "../../src/games/tetris/bitboard.js";
import { game } from "../../src/games/tetris/index.js";
import { heuristic } from "../../src/games/tetris/policies.js";
import { dropShape, lockAndClear, SHAPES, PIECES, type TetrisInner } from "../../src/games/tetris/rules.js";
import { stepHeader } from "../../src/games/envelope.js";
import { allConfigs, differentialPlay, mixedDriver } from "./reference/differential.js";
import { boardFeatures, heuristicReference } from "./reference/tetrisHeuristicReference.js";

function randomBoard(rng: Rng, rows: number, width: number, fill: number): string[] {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: width }, () => (r >= rows / 3 && rng.float() < fill ? "*" : ".")).join(""));
}

function randomShape(rng: Rng): string[] {
  // Any rectangle of cells, empty rows and columns included: observation text may hold such shapes.
  // At least one cell is filled (a shape without one falls forever: the heuristic refuses it, below).
  const h = rng.intBetween(1, 5);
  const w = rng.intBetween(1, 4);
  const rows = Array.from({ length: h }, () => Array.from({ length: w }, () => (rng.float() < 0.5 ? "*" : ".")).join(""));
  const r = rng.int(h);
  const c = rng.int(w);
  rows[r] = `${rows[r]!.slice(0, c)}*${rows[r]!.slice(c + 1)}`;
  return rows;
}

const toStrings = (b: Int32Array, width: number): string[] => Array.from(b, (m) => Array.from({ length: width }, (_, c) => ((m >> c) & 1 ? "*" : ".")).join(""));

describe("bitboard operations equal the string ones", () => {
  it("drop, lock-and-clear and features agree on random boards and shapes", () => {
    const rng = Rng.fromKey("tetris-bitboard");
    let blocked = 0;
    let clears = 0;
    for (let n = 0; n < 3000; n++) {
      const width = rng.intBetween(4, 20);
      const rows = rng.intBetween(4, 12);
      const board = randomBoard(rng, rows, width, rng.float());
      const shape = rng.float() < 0.5 ? rng.pick(SHAPES[rng.pick(PIECES)]) : randomShape(rng);
      const masks = boardMasks(board);
      expect(toStrings(masks, width)).toEqual(board);
      const f = maskFeatures(masks, width, new Int32Array(width));
      expect(f).toEqual(boardFeatures(board));
      for (let left = 0; left + shape[0]!.length <= width; left++) {
        const d = dropShape(board, shape, left)!;
        const top = dropTop(masks, shapeMasks(shape), left);
        expect(top).toBe(d.blocked ? -1 : d.top);
        if (d.blocked) {
          blocked++;
          continue;
        }
        const want = lockAndClear(board, shape, left, d.top);
        const out = new Int32Array(rows);
        const cleared = lockAndClearInto(masks, shapeMasks(shape), left, top, fullRow(width), out);
        expect(cleared).toBe(want.cleared);
        expect(toStrings(out, width)).toEqual(want.board);
        if (cleared > 0) clears++;
      }
    }
    // The random cases did reach both rare branches.
    expect(blocked).toBeGreaterThan(100);
    expect(clears).toBeGreaterThan(100);
  });

  it("features of hand-drawn boards", () => {
    const board = ["*...", "*..*", "**.*"];
    // Column 0: top row 0, height 3, no hole. Column 1: height 1. Column 3: top row 1, height 2.
    const hand = { height: 6, holes: 0, bumpiness: 5 };
    expect(maskFeatures(boardMasks(board), 4, new Int32Array(4))).toEqual(hand);
    const holed = ["**..", "...*", "*.**"];
    // Heights 3,3,1,2 -> 9; holes at (1,0), (1,1), (2,1) -> 3; bumpiness 0+2+1 = 3.
    expect(maskFeatures(boardMasks(holed), 4, new Int32Array(4))).toEqual({ height: 9, holes: 3, bumpiness: 3 });
  });
});

describe("the tetris heuristic decides like the reference string search", () => {
  const configs = allConfigs(game);

  it("covers explore, eval and both named variants", () => {
    expect(configs.map((c) => c.name).sort()).toEqual(["eval", "explore", "low", "narrow"]);
  });

  it("on its own episodes, twice (the second time from the decision cache), all 64 steps", () => {
    for (let pass = 0; pass < 2; pass++) {
      const r = differentialPlay(game, configs, [0, 1, 2], heuristic, heuristicReference, (_c, _s, d) => d.action);
      expect(r.mismatches).toEqual([]);
      expect(r.steps).toBe(4 * 3 * 64);
    }
  });

  it("on episodes driven into tall stacks and game over", () => {
    const driver = mixedDriver(game, 0.4, { p: 0.3, action: () => "1 0" });
    const r = differentialPlay(game, configs, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12], heuristic, heuristicReference, driver);
    expect(r.mismatches).toEqual([]);
    const over = r.finals.filter((s) => (s.inner as TetrisInner).over).length;
    expect(over).toBeGreaterThan(r.episodes / 2);
    expect(r.steps).toBeGreaterThan(400);
  });

  it("a board too wide for a bitmask row gets an error naming the width, not a wrong answer", () => {
    const base = game.observe(game.reset(0, "eval")).split("\n").slice(1).join("\n");
    const wide = base
      .replace("Board: 8 columns", "Board: 31 columns")
      .replace(/^ {3}(\s+\d+)+$/m, `   ${Array.from({ length: 31 }, (_, i) => String(i + 1).padStart(3)).join("")}`)
      .replace(/^(\s+\d)((?:\s+\.){8})$/gm, (_m, n: string) => `${n}${"  .".repeat(31)}`);
    const ctx = { rules: "", observation: `${stepHeader(0, 64)}\n${wide}`, history: [] };
    expect(() => game.parseObservation(ctx.observation)).not.toThrow();
    expect(() => heuristic(ctx, Rng.fromKey("x"))).toThrow(/31 columns wide.*up to 30/);
  });

  it("a rotation drawn without a filled cell gets an error, not an endless drop", () => {
    const obs = game.observe(game.reset(0, "eval"));
    const lines = obs.split("\n");
    const at = lines.findIndex((l) => l.startsWith("rotation 90 "));
    const w = Number(/\((\d+) wide/.exec(lines[at]!)![1]);
    for (let k = at + 1; /^[*.]+$/.test(lines[k]!); k++) lines[k] = ".".repeat(w);
    const ctx = { rules: "", observation: lines.join("\n"), history: [] };
    expect(() => game.parseObservation(ctx.observation)).not.toThrow();
    expect(() => heuristic(ctx, Rng.fromKey("x"))).toThrow(/rotation 90 shape has no filled cell/);
  });
});
