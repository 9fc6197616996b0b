import { describe, expect, it } from "vitest";
import { costUsd } from "../../src/models/cost.js";

describe("costUsd", () => {
  const usage = { tokensIn: 1_000_000, tokensOut: 200_000, tokensCached: 400_000 };
  it("bills cached prompt tokens at the cached price when given", () => {
    expect(costUsd(usage, { input: 2, output: 10, cached_input: 0.5 })).toBeCloseTo(0.6 * 2 + 0.4 * 0.5 + 0.2 * 10, 10);
  });
  it("bills them at the input price otherwise, and handles unknown cache counts", () => {
    expect(costUsd(usage, { input: 2, output: 10 })).toBeCloseTo(2 + 2, 10);
    expect(costUsd({ ...usage, tokensCached: null }, { input: 2, output: 10, cached_input: 0.5 })).toBeCloseTo(4, 10);
  });
  it("is null without a price", () => {
    expect(costUsd(usage, null)).toBeNull();
    expect(costUsd(usage, undefined)).toBeNull();
  });
});
