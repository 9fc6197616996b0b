import { describe, expect, it } from "vitest";
import { callPriority, LimitedModel, Limiter, LimiterRegistry, type CallPriority } from "../../src/models/limiter.js";
import type { CompletionRequest, CompletionResult, Model } from "../../src/models/types.js";
import { identity, request } from "./helpers.js";

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
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        lim.run(async () => {
          order.push(i);
          await tick(1);
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });
  it("frees the slot when a call fails", async () => {
    const lim = new Limiter(1);
    await expect(
      lim.run(async () => {
        throw new Error("x");
      }),
    ).rejects.toThrow("x");
    await expect(lim.run(async () => 7)).resolves.toBe(7);
    expect(lim.active).toBe(0);
  });
  it("lowering the limit takes effect for later calls", async () => {
    const lim = new Limiter(4);
    lim.lowerTo(2);
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        lim.run(async () => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await tick(1);
          inFlight--;
        }),
      ),
    );
    expect(peak).toBe(2);
  });
  it("rejects a limit below 1", () => {
    expect(() => new Limiter(0)).toThrow(/concurrency/);
  });
});

/** Holds the limiter's only slot until `open()`, queues `calls` behind it, and returns the order they ran in. */
async function servedOrder(lim: Limiter, calls: [string, CallPriority][]): Promise<string[]> {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const order: string[] = [];
  const blocker = lim.run(() => gate);
  const all = calls.map(([name, p]) =>
    lim.run(async () => {
      order.push(name);
      await tick(1);
    }, p),
  );
  expect(lim.waiting).toBe(calls.length);
  open();
  await Promise.all([blocker, ...all]);
  return order;
}

describe("Limiter priority", () => {
  it("serves critical waiters before normal ones, first come first served within each", async () => {
    const order = await servedOrder(new Limiter(1), [
      ["e0", "normal"],
      ["x0", "critical"],
      ["e1", "normal"],
      ["x1", "critical"],
      ["e2", "normal"],
      ["x2", "critical"],
    ]);
    expect(order).toEqual(["x0", "x1", "x2", "e0", "e1", "e2"]);
  });
  it("never starves normal calls: one is served after maxBypass critical ones", async () => {
    const calls: [string, CallPriority][] = [["e0", "normal"], ["e1", "normal"], ...Array.from({ length: 6 }, (_, i): [string, CallPriority] => [`x${i}`, "critical"])];
    expect(await servedOrder(new Limiter(1, { maxBypass: 2 }), calls)).toEqual(["x0", "x1", "e0", "x2", "x3", "e1", "x4", "x5"]);
    expect(await servedOrder(new Limiter(1, { maxBypass: 1 }), calls)).toEqual(["x0", "e0", "x1", "e1", "x2", "x3", "x4", "x5"]);
  });
  it("a steady stream of critical calls still lets every normal call through", async () => {
    const lim = new Limiter(2, { maxBypass: 4 });
    let normalsDone = 0;
    let stop = false;
    // Two chains that always have a critical call waiting, like exploration at a tight limit.
    const chain = async () => {
      while (!stop) await lim.run(() => tick(1), "critical");
    };
    const chains = [chain(), chain(), chain()];
    await Promise.all(
      Array.from({ length: 10 }, () =>
        lim.run(async () => {
          normalsDone++;
          await tick(1);
        }, "normal"),
      ),
    );
    stop = true;
    await Promise.all(chains);
    expect(normalsDone).toBe(10);
    expect(lim.active).toBe(0);
    expect(lim.waiting).toBe(0);
  });
  it("keeps the limit with mixed priorities", async () => {
    const lim = new Limiter(3, { maxBypass: 1 });
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        lim.run(
          async () => {
            inFlight++;
            peak = Math.max(peak, inFlight);
            await tick(i % 3);
            inFlight--;
          },
          i % 3 === 0 ? "critical" : "normal",
        ),
      ),
    );
    expect(peak).toBe(3);
    expect(lim.active).toBe(0);
  });
  it("rejects a maxBypass below 1", () => {
    expect(() => new Limiter(1, { maxBypass: 0 })).toThrow(/maxBypass/);
  });
  it("ranks exploration steps and summary calls critical, evaluation and the rest normal", () => {
    expect(callPriority(identity({ phase: "explore" }))).toBe("critical");
    expect(callPriority(identity({ purpose: "summary", phase: "explore", step: null }))).toBe("critical");
    expect(callPriority(identity({ purpose: "summary", phase: null, step: null }))).toBe("critical");
    expect(callPriority(identity({ phase: "eval", checkpoint: 3 }))).toBe("normal");
    expect(callPriority(identity({ purpose: "correction", phase: null }))).toBe("normal");
  });
  it("LimitedModel takes the priority from the request's identity", async () => {
    const order: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const inner: Model = {
      spec: "fake",
      endpointHost: "fake",
      async complete(req: CompletionRequest): Promise<CompletionResult> {
        if (req.identity.runId === "block") await gate;
        else order.push(`${req.identity.phase}${req.identity.episode}`);
        return { text: "", reasoning: null, finishReason: "stop", usage: { tokensIn: 0, tokensOut: 0, tokensCached: null }, latencyMs: 0, cached: false, retries: 0 };
      },
    };
    const model = new LimitedModel(inner, new Limiter(1));
    const blocker = model.complete(request({ identity: identity({ runId: "block" }) }));
    const calls = [
      model.complete(request({ identity: identity({ phase: "eval", checkpoint: 0, episode: 0 }) })),
      model.complete(request({ identity: identity({ phase: "eval", checkpoint: 0, episode: 1 }) })),
      model.complete(request({ identity: identity({ phase: "explore", episode: 4 }) })),
    ];
    open();
    await Promise.all([blocker, ...calls]);
    expect(order).toEqual(["explore4", "eval0", "eval1"]);
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
