/** NABA's instability rule on hand-made checkpoint-0 scores and on the reproduction's tetris row. */
import { describe, expect, it } from "vitest";
import { y0Unstable } from "../../src/analysis/metrics/nabaStability.js";

describe("y0Unstable: |y0| <= 2 sd_0 / sqrt(n)", () => {
  it("marks a y0 whose seeds straddle 0 and a y0 of exactly 0", () => {
    // mean 0.5, sd sqrt(((0.5^2)*2 + ...)) : scores 0, 1, 0, 1 -> mean 0.5, sd = sqrt(4*0.25/3) = 0.577, se 0.289, 2se 0.577 >= 0.5.
    expect(y0Unstable([0, 1, 0, 1])).toBe(true);
    expect(y0Unstable([0, 0, 0])).toBe(true);
  });
  it("leaves a y0 far from 0 against its spread unmarked", () => {
    // mean 10, sd 1 (9, 10, 11), se 0.577: 10 > 1.15.
    expect(y0Unstable([9, 10, 11])).toBe(false);
    // One seed: no spread to judge by (the range rule decides).
    expect(y0Unstable([0.1])).toBe(false);
    expect(y0Unstable([])).toBe(false);
  });
  it("marks a tetris-like row: 10 seeds, most scoring 0 at checkpoint 0, y0 2.9 (NABA 259 [28.5, 8436] in the reproduction)", () => {
    // mean 2.9; sd of (0 x7, 8, 9, 12) = 4.75, se 1.50, 2se 3.0 >= 2.9.
    expect(y0Unstable([0, 0, 0, 0, 0, 0, 0, 8, 9, 12])).toBe(true);
  });
});
