/**
 * TokenCounter (src/models/tokenCounter.ts) counts from memoised parts: a text line by line where the
 * lines join cleanly, a first user message from a remembered experience text's pieces. Every figure
 * must still be countTokens of the whole text, exactly: checked here against the plain library count
 * on random multi-line texts drawn from the characters that decide where the tokenizers split (line
 * breaks before spaces, `/`, marks, CJK, digits), short, over the line-split threshold and over the
 * 16,384-character scan window, for both tokenizers, with lines shared across texts so that memoised
 * lines are reused in other neighbourhoods.
 */
import { describe, expect, it } from "vitest";
import { rememberJoinedText, TokenCounter } from "../../src/models/tokenCounter.js";
import { countMessageTokens, countTokens, TOKENIZERS } from "../../src/models/tokens.js";
import type { ChatMessage } from "../../src/models/types.js";
import { Rng } from "../../src/util/rng.js";

/** Line starts that join cleanly and ones that do not (whitespace, `/`, a mark, NBSP, a line separator). */
const STARTS = ["a", "A", "7", "|", "<", ".", "'s", "\u4e2d", "\ud83d\ude00", " ", "  ", "\t", "/", "\u0301", "\u00a0", "\u2028", "\r", "\n", ""];
const BODIES = ["abc def", "|..##..|", "123456", "x".repeat(40), "  indented", "'ll go", "\u00e9t\u00e9", "a/b/c", "</observation>", "         ", "y".repeat(300), ""];

function randomLine(rng: Rng): string {
  return rng.pick(STARTS) + rng.pick(BODIES) + (rng.intBetween(0, 3) === 0 ? rng.pick(BODIES) : "");
}

function randomText(rng: Rng, lines: number, pool: readonly string[]): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(rng.intBetween(0, 1) === 0 ? rng.pick(pool) : randomLine(rng));
  return out.join(rng.intBetween(0, 5) === 0 ? "\r\n" : "\n") + (rng.intBetween(0, 3) === 0 ? "\n" : "");
}

describe("TokenCounter counts exactly what countTokens counts", () => {
  for (const tokenizer of TOKENIZERS) {
    it(`${tokenizer}: random multi-line texts, lines shared between texts, short and long`, () => {
      const rng = Rng.fromKey(`tokenCounter|${tokenizer}`);
      const pool = Array.from({ length: 30 }, () => randomLine(rng));
      const counter = new TokenCounter(tokenizer);
      for (let trial = 0; trial < 600; trial++) {
        const lines = trial % 150 === 0 ? 1500 : rng.intBetween(1, 40);
        const text = randomText(rng, lines, pool);
        expect(counter.count(text), JSON.stringify(text.slice(0, 120))).toBe(countTokens(text, tokenizer));
        // Asked again (now from the memo), and by a fresh counter that has memoised nothing.
        expect(counter.count(text)).toBe(countTokens(text, tokenizer));
        if (trial % 50 === 0) expect(new TokenCounter(tokenizer).count(text)).toBe(countTokens(text, tokenizer));
      }
    });
  }

  it("a line whose pre-token would merge with the next line's start is never cut there", () => {
    const counter = new TokenCounter("o200k");
    // Whitespace after a line break belongs to the line break's pre-token, `/` to a punctuation run's tail.
    for (const next of [" x", "\tx", "/x", "\u00a0x", "\nx", "\u0301x", "   \n  y"]) {
      const text = `${"row |..##..|\n".repeat(20)}end.\n${next}\n${"z".repeat(150)}`;
      expect(counter.count(text)).toBe(countTokens(text));
    }
  });

  it("messages(): the chat formula over exact counts, for new and reused message objects", () => {
    const rng = Rng.fromKey("tokenCounter|messages");
    const pool = Array.from({ length: 20 }, () => randomLine(rng));
    const counter = new TokenCounter("o200k");
    const earlier: ChatMessage[] = [];
    for (let step = 0; step < 40; step++) {
      earlier.push({ role: step % 2 === 0 ? "user" : "assistant", content: randomText(rng, rng.intBetween(1, 30), pool) });
      const messages: ChatMessage[] = [{ role: "system", content: "rules\n".repeat(30) }, ...earlier];
      expect(counter.messages(messages)).toBe(countMessageTokens(messages));
    }
  });

  it("messages(): a prompt that extends the last one counted by a reply and a turn is counted as a fresh one", () => {
    const counter = new TokenCounter("o200k");
    const frozen = (role: ChatMessage["role"], content: string): ChatMessage => Object.freeze({ role, content });
    const system: ChatMessage = { role: "system", content: "rules" };
    const [u1, a1, u2, a2, u3, a3, u4] = [
      frozen("user", "first observation"),
      frozen("assistant", "Answer: UP"),
      frozen("user", "second observation, longer than the first"),
      frozen("assistant", "Answer: DOWN\nScore: 1"),
      frozen("user", "third"),
      frozen("assistant", "Answer: LEFT"),
      frozen("user", "fourth observation"),
    ];
    const check = (ms: ChatMessage[]) => expect(counter.messages(ms)).toBe(countMessageTokens(ms));
    check([system, u1]);
    check([system, u1, a1, u2]);
    // The system message (not frozen) changed in place: the extension counts its new text.
    system.content = "rules, now with many more words than before in the same message object";
    check([system, u1, a1, u2, a2, u3]);
    // Another system object with other text, then a frozen turn replaced by another object.
    check([{ role: "system", content: "x" }, u1, a1, u2, a2, u3, a3, u4]);
    check([system, frozen("user", "another first observation, of other length"), a1, u2, a2, u3, a3, u4]);
    // The same prompt again, and one that extends a prompt counted two prompts ago.
    check([system, u1, a1, u2, a2, u3, a3, u4]);
    check([system, u1, a1, u2, a2, u3, a3, u4, a1, u2]);
  });

  it("a first user message counted from a remembered experience text's pieces equals the whole count", () => {
    const rng = Rng.fromKey("tokenCounter|joined");
    const pool = Array.from({ length: 20 }, () => randomLine(rng));
    for (const tokenizer of TOKENIZERS) {
      const counter = new TokenCounter(tokenizer);
      for (let trial = 0; trial < 60; trial++) {
        const pieces = Array.from({ length: rng.intBetween(1, 5) }, () => `Episode ${rng.intBetween(1, 30)}\n${randomText(rng, rng.intBetween(1, 60), pool)}`);
        const text = pieces.join("\n\n");
        rememberJoinedText("<experience>\n", text, pieces);
        // Several messages open with the same remembered text (its pieces' sum is kept per text).
        for (let m = 0; m < 3; m++) {
          const message = `<experience>\n${text}\n</experience>\n\n<observation>\n${randomText(rng, rng.intBetween(1, 20), pool)}\n</observation>`;
          expect(counter.count(message)).toBe(countTokens(message, tokenizer));
        }
      }
    }
  });
});
