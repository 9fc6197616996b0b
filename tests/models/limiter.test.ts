import { describe, expect, it } from "vitest";
import { Limiter, LimiterRegistry } from "../../src/models/limiter.js";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Limiter", () => {
  it("never exceeds its limit, and uses all of it", async () => {
    const lim = new Limiter(3);
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        lim.run(async () => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          expect(lim.active).toBeLessThanOrEqual(3);
          await tick(i % 3);
          inFlight--;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(lim.active).toBe(0);
    expect(lim.waiting).toBe(0);
  });
  it("serves waiters first come, first served", async () => {
    const lim = new Limiter(1);
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3, 4].map((i) => lim.run(async () => { order.push(i); await tick(1); })));
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });
  it("frees the slot when a call fails", async () => {
    const lim = new Limiter(1);
    await expect(lim.run(async () => { throw new Error("x"); })).rejects.toThrow("x");
    await expect(lim.run(async () => 7)).resolves.toBe(7);
    expect(lim.active).toBe(0);
  });
  it("lowering the limit takes effect for later calls", async () => {
    const lim = new Limiter(4);
    lim.lowerTo(2);
    let inFlight = 0;
    let peak = 0;
    await Promise.all(Array.from({ length: 10 }, () => lim.run(async () => { inFlight++; peak = Math.max(peak, inFlight); await tick(1); inFlight--; })));
    expect(peak).toBe(2);
  });
  it("rejects a limit below 1", () => {
    expect(() => new Limiter(0)).toThrow(/concurrency/);
  });
});

describe("LimiterRegistry", () => {
  it("has one limiter per endpoint host and key variable, per registry", () => {
    const reg = new LimiterRegistry();
    const a = reg.get("api.openai.com", "OPENAI_API_KEY", 8);
    expect(reg.get("api.openai.com", "OPENAI_API_KEY", 8)).toBe(a);
    expect(reg.get("api.openai.com", "OTHER_KEY", 8)).not.toBe(a);
    expect(reg.get("127.0.0.1:8000", "OPENAI_API_KEY", 8)).not.toBe(a);
    expect(new LimiterRegistry().get("api.openai.com", "OPENAI_API_KEY", 8)).not.toBe(a);
    reg.get("api.openai.com", "OPENAI_API_KEY", 2);
    expect(a.limit).toBe(2); // the stricter of two requested limits wins
  });
});
