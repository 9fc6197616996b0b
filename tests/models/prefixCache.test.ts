/**
 * The simulated prefix cache (endpoints.md, "Prefix caching"), on prompts small enough to follow by
 * hand: blocks of 4 tokens here (16 in use), one token per piece unless said otherwise.
 */
import { describe, expect, it } from "vitest";
import { PrefixCache, PrefixLimit, type PromptPiece } from "../../src/models/cache/prefixCache.js";

/** One single-token piece per letter: "abc" -> a, b, c. */
const toks = (letters: string): PromptPiece[] => [...letters].map((key) => ({ key, tokens: 1 }));

describe("PrefixCache", () => {
  it("serves the longest run of cached leading full blocks, never the last token", () => {
    const c = new PrefixCache({ capacityTokens: 100, blockTokens: 4 });
    // 10 tokens: nothing cached yet; blocks abcd and efgh are stored (ij is not a full block).
    expect(c.lookup(toks("abcdefghij"))).toEqual({ promptTokens: 10, cachedTokens: 0 });
    // Shares abcd efgh, then differs: 8 of 11.
    expect(c.lookup(toks("abcdefghxyz")).cachedTokens).toBe(8);
    // The same 10 again: 2 blocks; ij is never a full block.
    expect(c.lookup(toks("abcdefghij")).cachedTokens).toBe(8);
    // Exactly 8 cached tokens but 8 in the prompt: the last one is computed, so one block less (4).
    expect(c.lookup(toks("abcdefgh")).cachedTokens).toBe(4);
    // A shifted prompt shares text but no prefix: nothing.
    expect(c.lookup(toks("zabcdefgh")).cachedTokens).toBe(0);
    // A difference inside the first block: nothing, although everything after it is equal.
    expect(c.lookup(toks("abXdefghij")).cachedTokens).toBe(0);
    expect(c.totals).toEqual({ calls: 6, promptTokens: 10 + 11 + 10 + 8 + 9 + 10, cachedTokens: 8 + 8 + 4 });
  });

  it("a piece of n tokens counts as n tokens that match when its key does", () => {
    const c = new PrefixCache({ capacityTokens: 100, blockTokens: 4 });
    // system (6 tokens) + line A (3) + line B (5) = 14 tokens: blocks 0-3, 4-7, 8-11.
    const sys = { key: "You play chess.", tokens: 6 };
    c.lookup([sys, { key: "A", tokens: 3 }, { key: "B", tokens: 5 }]);
    // Same system and line A, another line B: tokens 0-8 equal, so blocks 0-3 and 4-7 hit (8).
    expect(c.lookup([sys, { key: "A", tokens: 3 }, { key: "B2", tokens: 5 }]).cachedTokens).toBe(8);
    // Another line A: block 4-7 holds sys tokens 4-5 and A's first 2: a miss, only block 0-3 hits.
    expect(c.lookup([sys, { key: "A2", tokens: 3 }, { key: "B", tokens: 5 }]).cachedTokens).toBe(4);
    // Pieces of 0 tokens change nothing.
    expect(c.lookup([{ key: "", tokens: 0 }, sys, { key: "A", tokens: 3 }, { key: "B", tokens: 5 }]).cachedTokens).toBe(12);
  });

  it("evicts least recently used blocks by tokens, a chain from its tail", () => {
    // 10 tokens of capacity = 2 blocks of 4.
    const c = new PrefixCache({ capacityTokens: 10, blockTokens: 4 });
    c.lookup(toks("pppPPPPx")); // 8 tokens: blocks P0 = pppP, P1 = pppP PPPx... both stored
    expect(c.heldTokens).toBe(8);
    c.lookup(toks("qqqqq")); // stores Q0: 3 blocks > 2, the least recent goes: P1 (P0 was touched last)
    expect(c.heldTokens).toBe(8);
    // P's first block survived: 4 cached (a first-to-last touch would have lost P0 and served 0).
    expect(c.lookup(toks("pppPPPPxy")).cachedTokens).toBe(4);
    // That lookup stored P1 again and made P0/P1 the most recent: Q0 was evicted.
    expect(c.lookup(toks("qqqqq")).cachedTokens).toBe(0);
  });

  it("refuses a capacity below one block", () => {
    expect(() => new PrefixCache({ capacityTokens: 15 })).toThrow(/holds no block of 16/);
    expect(new PrefixCache({ capacityTokens: 16 }).lookup(toks("x".repeat(40))).cachedTokens).toBe(0);
  });
});

describe("PrefixLimit", () => {
  it("counts the tokens of the longest piece-prefix an earlier prompt began with", () => {
    const limit = new PrefixLimit();
    const s = { key: "s", tokens: 5 };
    const a = { key: "a", tokens: 3 };
    expect(limit.observe([s, a, { key: "b", tokens: 2 }])).toBe(0);
    expect(limit.observe([s, a, { key: "c", tokens: 4 }])).toBe(8);
    expect(limit.observe([s, { key: "x", tokens: 1 }])).toBe(5);
    // `a` was seen, but never as a prompt's first piece.
    expect(limit.observe([a])).toBe(0);
    expect(limit.totals).toEqual({ calls: 4, promptTokens: 10 + 12 + 6 + 3, reusableTokens: 13 });
    expect(limit.share).toBeCloseTo(13 / 31, 12);
  });

  it("is never below what the block cache serves", () => {
    const cache = new PrefixCache({ capacityTokens: 1000, blockTokens: 4 });
    const limit = new PrefixLimit();
    for (const p of ["abcdefghij", "abcdefghijkl", "abcdefgXij", "abcdefghijklmnop"]) {
      expect(cache.lookup(toks(p)).cachedTokens).toBeLessThanOrEqual(limit.observe(toks(p)));
    }
    // By hand: limit 0, 10, 7, 12 = 29; cache 0, 8, 4, 12 = 24.
    expect(limit.totals.reusableTokens).toBe(29);
    expect(cache.totals.cachedTokens).toBe(24);
  });
});
