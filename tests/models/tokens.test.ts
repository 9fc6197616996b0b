/**
 * countTokens is bounded on any text (issue 12, item 1) and exact on ordinary text: the library's own
 * count is the reference wherever no pre-token exceeds MAX_PIECE.
 */
import fc from "fast-check";
import { countTokens as libO200k } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens as libCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { countTokens, MAX_PIECE } from "../../src/models/tokens.js";

const FRAGMENTS = [
  "the",
  " quick",
  " brown",
  "Fox",
  ",",
  " don't",
  " it's",
  "\n",
  "\n\n",
  "  ",
  " 12345",
  "3.14",
  "é",
  "汉字",
  "😀",
  " ```",
  "**",
  "__init__",
  "\t",
  " -> ",
  "Answer:",
  " Score: 0.5",
  "'ll",
  "/",
  "\r\n",
  "<|endoftext|>",
];

describe("countTokens", () => {
  it("equals the library's count on ordinary text of any length (windows and slices never change it)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 9000 }), (parts) => {
        const text = parts.join("");
        const ordinary = { disallowedSpecial: new Set<string>() };
        expect(countTokens(text)).toBe(libO200k(text, ordinary));
        expect(countTokens(text, "cl100k")).toBe(libCl100k(text, ordinary));
      }),
      { numRuns: 40 },
    );
  });

  it("stays the library's count when its pre-tokens were counted before (the memo is keyed by exact piece)", () => {
    const ordinary = { disallowedSpecial: new Set<string>() };
    // Board-like rows repeat the same pieces at every step; a piece seen before must not carry its
    // count into a neighbour it would merge with (" ." vs " .\n", "# ." vs "#.").
    const rows = ["0 # # # # #\n", "1 # . . A . #\n", "2 # . H . . #\n", "  0 1 2 3 4\n", "#.#.#\n", " .\n", "Score: 0\n"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...rows, ...FRAGMENTS), { minLength: 40, maxLength: 400 }), (parts) => {
        const text = parts.join("");
        for (let pass = 0; pass < 2; pass++) {
          expect(countTokens(text)).toBe(libO200k(text, ordinary));
          expect(countTokens(text, "cl100k")).toBe(libCl100k(text, ordinary));
          expect(countTokens(text.slice(1))).toBe(libO200k(text.slice(1), ordinary));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("counts special-token text as ordinary characters instead of throwing", () => {
    expect(countTokens("before <|endoftext|> after")).toBeGreaterThan(5);
  });

  it("a run far longer than one pre-token is counted in slices, close to the exact count", () => {
    // Exact counts by the library where it is still affordable (it is quadratic in the run length).
    for (const [shape, exact] of [
      ["x".repeat(20_000), libO200k("x".repeat(20_000))],
      ["_".repeat(20_000), libO200k("_".repeat(20_000))],
      [" ".repeat(20_000) + "x", libO200k(" ".repeat(20_000) + "x")],
    ] as const) {
      const n = countTokens(shape);
      expect(Math.abs(n - exact)).toBeLessThanOrEqual(Math.ceil(shape.length / MAX_PIECE) + 1);
    }
  });

  it("finishes on the adversarial shapes at 5 MB (a long letter run used to overflow the stack)", () => {
    const MB5 = 5_000_000;
    for (const s of ["x".repeat(MB5), "汉".repeat(MB5), "😀".repeat(MB5 / 2), "_".repeat(MB5), " ".repeat(MB5) + "x", "!" + "\n/".repeat(MB5 / 2)]) {
      const n = countTokens(s);
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(s.length);
    }
  });

  it("never splits a surrogate pair when slicing (each emoji counts as in the library)", () => {
    const text = "😀".repeat(3000);
    expect(countTokens(text)).toBe(libO200k(text));
  });
});
