import { describe, expect, it } from "vitest";
import { fnv1a32 } from "../../src/util/rng.js";

// Expected values: the published FNV-1a 32-bit vectors ("", "a", "foobar") and, for keys outside
// ASCII, FNV-1a computed by hand (a Python loop) over the UTF-8 bytes given in each comment.
describe("fnv1a32", () => {
  it("matches the published FNV-1a vectors for ASCII keys", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
  });

  it("hashes a key with other characters over its UTF-8 bytes", () => {
    // "é" is C3 A9; "a€b" is 61 E2 82 AC 62 (the ASCII prefix is hashed again from the bytes).
    expect(fnv1a32("é")).toBe(0x1e9de8c1);
    expect(fnv1a32("a€b")).toBe(0x311580da);
  });

  it("hashes a lone surrogate as the encoder writes it (EF BF BD, U+FFFD)", () => {
    expect(fnv1a32("\ud800")).toBe(0x03479c4a);
    expect(fnv1a32("\ud800")).toBe(fnv1a32("\ufffd"));
  });
});
