/**
 * The verified pathway's pure parts, hand-computed: consolidation (evidence counts, disputes,
 * drops, uncertain and rejected verdicts), the memory text under its budget, the broad-then-deep
 * batches and the curriculum's fallback.
 */
import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/agent/verifierPrompt.js";
import { fallbackChoices, verifiedBatches } from "../../src/pathways/verified.js";
import { consolidateVerdict, EMPTY_VERIFIED_MEMORY, memoryTextUnderBudget, type VerifiedMemory } from "../../src/pathways/verifiedMemory.js";

const fact = (condition: string, action: string, effect: string, steps = [1]) => ({ condition, action, effect, steps });
const v = (outcome: Verdict["outcome"], ...facts: ReturnType<typeof fact>[]): Verdict => ({ outcome, facts });

describe("consolidateVerdict", () => {
  it("counts evidence, disputes at the first contradiction, drops at the second, and re-support clears a dispute", () => {
    let m: VerifiedMemory = EMPTY_VERIFIED_MEMORY;
    const dropped: string[][] = [];
    const step = (x: number, verdict: Verdict | null) => {
      const r = consolidateVerdict(m, x, verdict);
      dropped.push(r.dropped);
      m = r.memory;
    };
    step(1, v("success", fact("c1", "a1", "e1", [1, 2]), fact("c2", "a2", "e2")));
    expect(m.facts.map((f) => [f.id, f.support, f.status])).toEqual([
      ["f1", 1, "active"],
      ["f2", 1, "active"],
    ]);
    // Same fact (repeated in one verdict: counted once); a contradiction of f2 in other case and spacing.
    step(2, v("failure", fact("c1", "a1", "e1", [3]), fact("c1", "a1", "E1 "), fact("C2", " a2", "e3")));
    expect(m.facts.map((f) => [f.id, f.support, f.status, f.contradictions])).toEqual([
      ["f1", 2, "active", 0],
      ["f2", 1, "disputed", 1],
      ["f3", 1, "active", 0],
    ]);
    expect(m.facts[0]!.steps).toEqual([
      { episode: 1, steps: [1, 2] },
      { episode: 2, steps: [3] },
    ]);
    // Uncertain: not remembered.
    step(3, v("uncertain", fact("c2", "a2", "e3")));
    expect(m.afterEpisode).toBe(3);
    expect(m.facts.find((f) => f.id === "f3")!.support).toBe(1);
    // Second contradiction of f2: dropped.
    step(4, v("success", fact("c2", "a2", "e3")));
    expect(dropped[3]).toEqual(["f2"]);
    expect(m.facts.map((f) => [f.id, f.support])).toEqual([
      ["f1", 2],
      ["f3", 2],
    ]);
    // f1 disputed once, then supported again: active, open contradictions cleared; the newcomer f4 is now disputed.
    step(5, v("success", fact("c1", "a1", "e9")));
    expect(m.facts.find((f) => f.id === "f1")!.status).toBe("disputed");
    step(6, v("success", fact("c1", "a1", "e1")));
    expect(m.facts.map((f) => [f.id, f.support, f.status, f.contradictions, f.episodes])).toEqual([
      ["f1", 3, "active", 0, [1, 2, 6]],
      ["f3", 2, "active", 0, [2, 4]],
      ["f4", 1, "disputed", 1, [5]],
    ]);
    // A rejected reply keeps the memory.
    const before = m;
    step(7, null);
    expect(m).toEqual({ ...before, afterEpisode: 7 });
    expect(m.nextId).toBe(5);
  });

  it("never changes the version it was given (states are values)", () => {
    const m1 = consolidateVerdict(EMPTY_VERIFIED_MEMORY, 1, v("success", fact("c", "a", "e"))).memory;
    const copy = JSON.stringify(m1);
    consolidateVerdict(m1, 2, v("success", fact("c", "a", "e"), fact("c", "a", "other")));
    expect(JSON.stringify(m1)).toBe(copy);
  });
});

describe("memoryTextUnderBudget", () => {
  const m: VerifiedMemory = {
    afterEpisode: 3,
    nextId: 4,
    facts: [
      { id: "f1", condition: "c1", action: "a1", effect: "e1", support: 1, episodes: [1], steps: [], contradictions: 0, status: "active" },
      { id: "f2", condition: "c2", action: "a2", effect: "e2", support: 3, episodes: [1, 2, 3], steps: [], contradictions: 0, status: "active" },
      { id: "f3", condition: "c3", action: "a3", effect: "e3", support: 1, episodes: [2], steps: [], contradictions: 1, status: "disputed" },
    ],
  };
  const chars = (t: string) => t.length;

  it("sorts by support, then id, and marks disputed facts", () => {
    const lines = memoryTextUnderBudget(m, 10_000, chars).split("\n");
    expect(lines.slice(1)).toEqual(["- f2 (support 3): c2 | a2 | e2", "- f1 (support 1): c1 | a1 | e1", "- f3 (support 1, disputed): c3 | a3 | e3"]);
  });

  it("keeps the best supported facts that fit and stops at the first that does not", () => {
    const full = memoryTextUnderBudget(m, 10_000, chars);
    const two = full.split("\n").slice(0, 3).join("\n");
    expect(memoryTextUnderBudget(m, two.length, chars)).toBe(two);
    expect(memoryTextUnderBudget(m, two.length - 1, chars).split("\n")).toHaveLength(2);
    expect(memoryTextUnderBudget(m, 5, chars)).toBe("");
  });
});

describe("verifiedBatches", () => {
  it("30 episodes, batches of 5: three broad batches of 5, then 15 deep episodes one at a time", () => {
    const b = verifiedBatches(30, 5);
    expect(b.slice(0, 3).map((x) => [x.index, x.phase, x.episodes])).toEqual([
      [1, "broad", [1, 2, 3, 4, 5]],
      [2, "broad", [6, 7, 8, 9, 10]],
      [3, "broad", [11, 12, 13, 14, 15]],
    ]);
    expect(b.slice(3).map((x) => x.episodes)).toEqual(Array.from({ length: 15 }, (_, i) => [16 + i]));
    expect(b.slice(3).every((x) => x.phase === "deep")).toBe(true);
    expect(b).toHaveLength(18);
  });

  it("10 episodes, batches of 3: broad 1..5 as [1,2,3] [4,5], deep 6..10; a bad batch size is refused", () => {
    expect(verifiedBatches(10, 3).map((x) => x.episodes)).toEqual([[1, 2, 3], [4, 5], [6], [7], [8], [9], [10]]);
    expect(verifiedBatches(1, 5).map((x) => [x.phase, x.episodes])).toEqual([["deep", [1]]]);
    expect(() => verifiedBatches(10, 0)).toThrow(/broad-batch must be an integer >= 1/);
  });
});

describe("fallbackChoices", () => {
  it("takes the next seeds not yet played nor planned, on explore, and wraps when all were played", () => {
    const plans = [
      { episode: 1, seed: 10, config: "explore" },
      { episode: 2, seed: 30, config: "x" },
    ];
    expect(fallbackChoices([10, 20, 30, 40], plans, [3, 4])).toEqual([
      { episode: 3, seed: 20, variant: "explore" },
      { episode: 4, seed: 40, variant: "explore" },
    ]);
    expect(fallbackChoices([10, 30], plans, [3])).toEqual([{ episode: 3, seed: 10, variant: "explore" }]);
  });
});
