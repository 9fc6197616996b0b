/** The policies' bounded memo (src/games/memo.ts): least recently used out first, never over capacity. */
import { describe, expect, it } from "vitest";
import { BoundedCache } from "../../src/util/boundedCache.js";

describe("BoundedCache", () => {
  it("keeps at most `capacity` entries and drops the least recently used", () => {
    const c = new BoundedCache<string, number>(2);
    c.set("a", 1);
    c.set("b", 2);
    expect(c.get("a")).toBe(1); // a is now the most recent
    c.set("c", 3); // b goes
    expect(c.size).toBe(2);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe(1);
    expect(c.get("c")).toBe(3);
  });

  it("finding the most recent key again keeps the order, and an eviction never drops the most recent", () => {
    const c = new BoundedCache<string, number>(2);
    c.set("a", 1);
    c.set("b", 2);
    expect(c.get("a")).toBe(1); // a moves after b
    expect(c.get("a")).toBe(1); // already the most recent
    c.set("c", 3); // b goes, not a
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe(1); // c is older now
    c.set("d", 4); // c goes
    expect(c.get("c")).toBeUndefined();
    expect([c.get("a"), c.get("d")]).toEqual([1, 4]);
    const one = new BoundedCache<string, number>(1);
    one.set("x", 1);
    one.set("y", 2); // x goes; y is the most recent and kept
    expect(one.get("x")).toBeUndefined();
    expect(one.get("y")).toBe(2);
    one.set("x", 3);
    expect(one.get("y")).toBeUndefined();
    expect(one.get("x")).toBe(3);
  });

  it("getOrSet computes once per key while the key is kept", () => {
    const c = new BoundedCache<string, number>(1);
    let calls = 0;
    const make = () => ++calls;
    expect(c.getOrSet("x", make)).toBe(1);
    expect(c.getOrSet("x", make)).toBe(1);
    expect(calls).toBe(1);
    c.getOrSet("y", make); // x goes
    expect(c.getOrSet("x", make)).toBe(3);
  });

  it("a make() that throws caches nothing", () => {
    const c = new BoundedCache<string, number>(4);
    expect(() =>
      c.getOrSet("bad", () => {
        throw new Error("no");
      }),
    ).toThrow("no");
    expect(c.size).toBe(0);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new BoundedCache(0)).toThrow(/positive integer/);
    expect(() => new BoundedCache(1.5)).toThrow(/positive integer/);
  });
});
