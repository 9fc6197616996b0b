import { describe, expect, it } from "vitest";
import { buildStepMessages } from "../../src/agent/stepPrompt.js";
import { renderTrajectory, type Trajectory } from "../../src/agent/trajectoryText.js";
import { countMessageTokens, countTokens } from "../../src/models/tokens.js";
import { fitHistory, historyContext, historyCost, makeHistoryBlock, renderHistory, TokenCounter } from "../../src/pathways/history.js";

function traj(episode: number, steps: number): Trajectory {
  return {
    episode,
    steps: Array.from({ length: steps }, (_, i) => ({
      observation: `Step ${i + 1} of 64\nboard of episode ${episode}, row ${"x".repeat(20 + ((i * 7) % 13))}`,
      action: i % 3 === 0 ? null : `move ${i}`,
      selfScore: i % 2 ? 1 : null,
      feedback: i % 4 ? "ok" : "",
    })),
    endObservation: `final board ${episode}`,
  };
}

const counter = new TokenCounter("o200k");
const blocks = [traj(1, 6), traj(2, 5), traj(3, 7)].map((t) => makeHistoryBlock(t, counter));
const full = blocks.map((b) => b.stepTokens.length);

describe("history cost", () => {
  it("is an upper bound of the exact token count, within 2%", () => {
    for (const keep of [full, [3, 5, 7], [0, 2, 7], [0, 0, 1]]) {
      const text = renderHistory(blocks, keep);
      const exact = countTokens(text);
      const additive = historyCost(blocks, keep, counter);
      expect(additive).toBeGreaterThanOrEqual(exact);
      expect(additive).toBeLessThanOrEqual(exact * 1.02 + 2);
    }
  });
});

describe("fitHistory: earlier episodes' tails go first", () => {
  it("keeps everything when it fits", () => {
    expect(fitHistory(blocks, historyCost(blocks, full, counter), counter)).toEqual(full);
  });
  it("cuts episode 1's tail step by step, then drops it, then cuts episode 2, and the newest block last", () => {
    const seen: number[][] = [];
    for (let budget = historyCost(blocks, full, counter); budget >= 0; budget--) {
      const keep = fitHistory(blocks, budget, counter);
      expect(historyCost(blocks, keep, counter)).toBeLessThanOrEqual(budget);
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(keep)) seen.push(keep);
    }
    // Every state is a point of the fixed cutting order: blocks before the cut are gone, after it whole.
    for (const keep of seen) {
      const cut = keep.map((k, i) => k < full[i]!).lastIndexOf(true);
      if (cut < 0) continue;
      for (let i = 0; i < cut; i++) expect(keep[i]).toBe(0);
      for (let i = cut + 1; i < keep.length; i++) expect(keep[i]).toBe(full[i]);
    }
    // And the order is monotone: the total kept never grows as the budget shrinks.
    const kept = seen.map((k) => k.reduce((a, b) => a + b, 0));
    for (let i = 1; i < kept.length; i++) expect(kept[i]!).toBeLessThan(kept[i - 1]!);
    expect(seen.at(-1)).toEqual([0, 0, 0]);
    expect(seen).toContainEqual([5, 5, 7]);
    expect(seen).toContainEqual([0, 4, 7]);
    expect(seen).toContainEqual([0, 0, 6]);
  });
  it("a cut block says what it omitted and loses its end state; a dropped block leaves no trace", () => {
    const text = renderHistory(blocks, [0, 2, 7]);
    expect(text).not.toContain("Exploration episode 1 ");
    expect(text).toContain("[... 3 later steps omitted]");
    expect(text).not.toContain("final board 2");
    expect(text).toContain("final board 3");
    expect(text.split("\n\n=== Exploration episode")).toHaveLength(2);
    expect(renderHistory(blocks, [6, 5, 7])).toBe(blocks.map((b) => renderTrajectory(b.trajectory)).join("\n\n"));
  });
});

describe("historyContext: budget per step", () => {
  const rules = "# S3Gym game: snake (config: explore)\nRULES ".repeat(5);
  const step = (n: number) => ({
    rules,
    turns: Array.from({ length: n }, (_, i) => ({ observation: `obs ${i} ${"y".repeat(50)}`, response: `thinking\nAnswer: up\nScore: ${i}`, feedback: "moved" })),
    observation: "current",
    rewardVisibility: "hidden" as const,
  });
  it("the whole prompt fits context-tokens minus the reply reserve, and the budget shrinks as the episode grows", () => {
    const settings = { contextTokens: 1500, maxNewTokens: 200, tokenizer: "o200k" as const };
    let previousKept = Infinity;
    for (const n of [0, 3, 6, 9]) {
      const s = step(n);
      const c = historyContext(blocks, settings, s, counter);
      const messages = buildStepMessages({ ...s, experience: c.text });
      expect(countMessageTokens(messages)).toBeLessThanOrEqual(settings.contextTokens - settings.maxNewTokens);
      const kept = c.keep.reduce((a, b) => a + b, 0);
      expect(kept).toBeLessThanOrEqual(previousKept);
      previousKept = kept;
    }
    expect(previousKept).toBeLessThan(18);
  });
  it("gives an empty experience when nothing fits", () => {
    const c = historyContext(blocks, { contextTokens: 300, maxNewTokens: 200, tokenizer: "o200k" }, step(0), counter);
    expect(c).toEqual({ text: "", keep: [0, 0, 0] });
  });
  it("memoised message counts equal countMessageTokens", () => {
    const m = buildStepMessages({ ...step(4), experience: "E" });
    expect(counter.messages(m)).toBe(countMessageTokens(m));
  });
});
