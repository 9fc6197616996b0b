import { describe, expect, it } from "vitest";
import { formatLabelledGrid, parseLabelledGrid } from "../../src/games/grid.js";

const fail = (why: string): never => {
  throw new Error(`not a test observation: ${why}`);
};

describe("the labelled grid snake and minesweeper share", () => {
  it("right-aligns two-digit labels and reads its own text back", () => {
    const grid = Array.from({ length: 11 }, (_, r) =>
      "ab"
        .repeat(6)
        .slice(0, 11)
        .replace("a", String(r % 2)),
    );
    const lines = formatLabelledGrid(grid, 11);
    expect(lines[0]).toBe("    0  1  2  3  4  5  6  7  8  9 10");
    expect(lines[1]).toBe(" 0  0  b  a  b  a  b  a  b  a  b  a");
    expect(lines[11]!.startsWith("10  0")).toBe(true);
    expect(parseLabelledGrid(lines, 11, 11, /^[01ab]$/, fail)).toEqual(grid);
  });

  it("refuses wrong labels, a missing row and unknown symbols, naming the problem", () => {
    const lines = formatLabelledGrid(["ab", "ba"], 2);
    expect(() => parseLabelledGrid(["  0 2", ...lines.slice(1)], 2, 2, /^[ab]$/, fail)).toThrow("not a test observation: bad column labels");
    expect(() => parseLabelledGrid(lines.slice(0, 2), 2, 2, /^[ab]$/, fail)).toThrow("expected 2 grid rows, found 1");
    expect(() => parseLabelledGrid(lines, 2, 2, /^[a]$/, fail)).toThrow("unknown cell symbol in row 0");
  });
});
