/** The key hash behind every seeded generator: FNV-1a 32 over the key's UTF-8 bytes, whatever the key's characters. */
import { describe, expect, it } from "vitest";
import { fnv1a32 } from "../../src/util/rng.js";

/** The definition, byte by byte over the UTF-8 encoding (what the ASCII fast path must agree with). */
function reference(key: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(key)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

describe("fnv1a32", () => {
  it("matches the published FNV-1a 32 test vectors", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
  });

  it("hashes non-ASCII keys over their UTF-8 bytes, not their UTF-16 code units", () => {
    // 'é' is U+00E9: two UTF-8 bytes (C3 A9), one code unit; a lone surrogate encodes as U+FFFD.
    for (const key of ["é", "learner|act|seed|é", "chess|eval|\u{1F600}|3", "a\uD800b", "\u007f\u0080"]) expect(fnv1a32(key)).toBe(reference(key));
  });

  it("agrees with the definition on the kit's own ASCII keys", () => {
    for (const key of ["learner|choose|seed|0", "learner|act|seed|4294967295", "policy-noise|heuristic|seed|17", "minesweeper|eval|17"]) expect(fnv1a32(key)).toBe(reference(key));
  });
});
