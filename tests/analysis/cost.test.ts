/** Cost per checkpoint (views.md "Cost") on hand-written calls. */
import { describe, expect, it } from "vitest";
import { accumulateCall, costPerCheckpoint, emptyRunCost, gainPerMillionTokens, type CostCall } from "../../src/analysis/metrics/cost.js";

const call = (o: Partial<CostCall>): CostCall => ({ phase: null, checkpoint: null, episode: null, tokens_in: 0, tokens_out: 0, tokens_cached: null, cost_usd: null, ...o });

describe("cost per checkpoint", () => {
  const acc = emptyRunCost();
  for (const c of [
    call({ phase: "explore", episode: 1, tokens_in: 100, tokens_out: 10, tokens_cached: 20, cost_usd: 0.01, tokens_in_local: 90 }), // episode 1's step
    call({ phase: "explore", episode: 1, tokens_in: 50, tokens_out: 5 }), // its summary (no price)
    call({ phase: "eval", checkpoint: 0, tokens_in: 30, tokens_out: 3, cost_usd: 0.002 }),
    call({ phase: "explore", episode: 2, tokens_in: 200, tokens_out: 20, tokens_cached: 0, cost_usd: 0.02, tokens_reasoning: 12, tokens_in_local: 180 }),
    call({ phase: "eval", checkpoint: 2, view: "id", tokens_in: 40, tokens_out: 4 }),
    call({ tokens_in: 7, tokens_out: 1 }), // a correction: no episode of the protocol
  ])
    accumulateCall(acc, c);

  it("exploration + consolidation is cumulative up to x; evaluation is per checkpoint and apart", () => {
    const [c0, c2] = costPerCheckpoint(acc, [0, 2]);
    expect(c0).toEqual({
      x: 0,
      explore: { calls: 0, tokens_in: 0, tokens_cached: 0, tokens_out: 0, tokens_reasoning: 0, usd: null, tokens_in_local: 0 },
      eval: { calls: 1, tokens_in: 30, tokens_cached: 0, tokens_out: 3, tokens_reasoning: 0, usd: 0.002, tokens_in_local: 0 },
    });
    // Reasoning tokens (issue 26) are counted apart, as part of tokens_out: 12 of episode 2's 20.
    expect(c2!.explore).toMatchObject({ calls: 3, tokens_in: 350, tokens_cached: 20, tokens_out: 35, tokens_reasoning: 12 });
    // The kit's own prompt count (built-in models): summed like tokens_in, 90 + 180 up to checkpoint 2.
    expect(c2!.explore.tokens_in_local).toBe(270);
    expect(c2!.explore.usd).toBeCloseTo(0.03, 12);
    expect(c2!.eval).toEqual({ calls: 1, tokens_in: 40, tokens_cached: 0, tokens_out: 4, tokens_reasoning: 0, usd: null, tokens_in_local: 0 });
    // checkpoint 1 (not evaluated here): episode 1 only
    expect(costPerCheckpoint(acc, [1])[0]!.explore).toMatchObject({ calls: 2, tokens_in: 150, tokens_in_local: 90 });
    expect(acc.other).toMatchObject({ calls: 1, tokens_in: 7 });
    expect(acc.evalByView.get("eval")?.calls).toBe(1);
    expect(acc.evalByView.get("id")?.calls).toBe(1);
  });
  it("gain per million tokens: 0.5 over 385 tokens; missing without tokens or gain", () => {
    const c2 = costPerCheckpoint(acc, [2])[0]!;
    expect(gainPerMillionTokens(0.5, c2.explore)).toBeCloseTo(0.5 / 385e-6, 6);
    expect(gainPerMillionTokens(0.5, costPerCheckpoint(acc, [0])[0]!.explore)).toBeNull();
    expect(gainPerMillionTokens(null, c2.explore)).toBeNull();
  });
});
