import { describe, expect, it } from "vitest";
import { lineDiff, MAX_CELLS } from "../../../src/report/viewer/diff.js";

describe("lineDiff", () => {
  it("keeps common lines and marks the rest (hand-computed)", () => {
    // a b c d -> a c e d: LCS a c d; b removed, e added.
    expect(lineDiff("a\nb\nc\nd", "a\nc\ne\nd")).toEqual([
      { op: "=", text: "a" },
      { op: "-", text: "b" },
      { op: "=", text: "c" },
      { op: "+", text: "e" },
      { op: "=", text: "d" },
    ]);
  });

  it("from the empty memory every line is added; to it every line is removed", () => {
    expect(lineDiff("", "x\ny")).toEqual([
      { op: "+", text: "x" },
      { op: "+", text: "y" },
    ]);
    expect(lineDiff("x", "")).toEqual([{ op: "-", text: "x" }]);
    expect(lineDiff("", "")).toEqual([]);
  });

  it("reassembles both sides for arbitrary texts", () => {
    const texts = ["", "a", "a\nb", "b\na\nb", "x\ny\nz\ny", "a\na\na"];
    for (const a of texts) {
      for (const b of texts) {
        const d = lineDiff(a, b);
        expect(
          d
            .filter((l) => l.op !== "+")
            .map((l) => l.text)
            .join("\n"),
        ).toBe(a);
        expect(
          d
            .filter((l) => l.op !== "-")
            .map((l) => l.text)
            .join("\n"),
        ).toBe(b);
      }
    }
    // LCS length of "b a b" vs "a b" is 2.
    expect(lineDiff("b\na\nb", "a\nb").filter((l) => l.op === "=").length).toBe(2);
  });

  it("degrades to a replacement above the size bound instead of going quadratic", () => {
    const n = Math.ceil(Math.sqrt(MAX_CELLS)) + 1;
    const a = Array.from({ length: n }, (_, i) => `l${i}`).join("\n");
    const d = lineDiff(a, a);
    expect(d.filter((l) => l.op === "-").length).toBe(n);
    expect(d.filter((l) => l.op === "+").length).toBe(n);
  });
});
