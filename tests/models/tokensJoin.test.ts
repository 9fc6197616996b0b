/**
 * joinsCleanly / countTokensJoinable (src/models/tokens.ts): when both say so, the count of a joined
 * text is the sum of its parts' counts. Checked against countTokens of the joined text itself, on
 * random texts drawn from the characters that decide where the tokenizers split (line breaks,
 * spaces, `/`, apostrophes, digits, upper and lower case, CJK, marks, emoji), short and over the
 * 16,384-character scan window, for both tokenizers.
 */
import { describe, expect, it } from "vitest";
import { countTokens, countTokensJoinable, joinsCleanly, TOKENIZERS } from "../../src/models/tokens.js";
import { Rng } from "../../src/util/rng.js";

const ALPHABET = [
  "\n",
  "\n",
  "\r\n",
  " ",
  " ",
  "  ",
  "\t",
  "/",
  "'",
  "'s",
  "7",
  "123",
  "A",
  "a",
  "Ab",
  "ab",
  "abc",
  "the",
  ".",
  ")",
  "=",
  "<",
  ">",
  "-",
  "\u00e9",
  "\u4e2d",
  "\u0301",
  "\ud83d\ude00",
  "         ",
];

function randomText(rng: Rng, pieces: number): string {
  let s = "";
  for (let i = 0; i < pieces; i++) s += rng.pick(ALPHABET);
  return s;
}

describe("joinable token counts add up", () => {
  for (const tokenizer of TOKENIZERS) {
    it(`${tokenizer}: count(left + right) = count(left) + count(right) whenever the parts say they join cleanly`, () => {
      const rng = Rng.fromKey(`tokensJoin|${tokenizer}`);
      let checked = 0;
      for (let trial = 0; trial < 3000; trial++) {
        const long = trial % 100 === 0;
        const left = randomText(rng, long ? 6000 : rng.intBetween(1, 60)) + "\n".repeat(rng.intBetween(0, 2));
        const right = randomText(rng, long ? 6000 : rng.intBetween(1, 60));
        const l = countTokensJoinable(left, tokenizer);
        const r = countTokensJoinable(right, tokenizer);
        expect(l.tokens).toBe(countTokens(left, tokenizer));
        if (!(l.joinable && r.joinable && joinsCleanly(left, right))) continue;
        checked++;
        expect(countTokens(left + right, tokenizer), JSON.stringify([left.slice(-40), right.slice(0, 40)])).toBe(l.tokens + r.tokens);
      }
      expect(checked).toBeGreaterThan(300);
    });
  }

  it("refuses the joins that would change the split", () => {
    // A punctuation run takes the line breaks and a `/` after it; whitespace runs merge.
    expect(joinsCleanly("a.\n", "/b")).toBe(false);
    expect(joinsCleanly("a\n", " b")).toBe(false);
    expect(joinsCleanly("a\n", "\nb")).toBe(false);
    expect(joinsCleanly("a", "b")).toBe(false);
    expect(joinsCleanly("a\n", "")).toBe(false);
    expect(joinsCleanly("a.\n", "<b>")).toBe(true);
    // And the counts would indeed differ there (so the refusals are needed).
    expect(countTokens("}\n//")).not.toBe(countTokens("}\n") + countTokens("//"));
    expect(countTokens("x\n\ny")).not.toBe(countTokens("x\n") + countTokens("\ny"));
    expect(countTokens("x\n\ny", "cl100k")).not.toBe(countTokens("x\n", "cl100k") + countTokens("\ny", "cl100k"));
  });

  it("a text with a long pre-token or a window hazard is not joinable", () => {
    expect(countTokensJoinable("x".repeat(300)).joinable).toBe(false);
    expect(countTokensJoinable("a\n        b").joinable).toBe(false);
    expect(countTokensJoinable("a\n       b").joinable).toBe(true);
  });
});
