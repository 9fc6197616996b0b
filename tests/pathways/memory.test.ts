import { describe, expect, it } from "vitest";
import { builtinSummary, memoryText } from "../../src/agent/summaryPrompt.js";
import type { Trajectory } from "../../src/agent/trajectoryText.js";
import { countMessageTokens } from "../../src/models/tokens.js";
import { TokenCounter } from "../../src/models/tokenCounter.js";
import { EMPTY_MEMORY, memoryFromRecord, memoryRecordFields, nextMemory, summaryMessages } from "../../src/pathways/memory.js";

const trajectory: Trajectory = {
  episode: 4,
  steps: Array.from({ length: 30 }, (_, i) => ({ observation: `board ${i} ${"z".repeat(80)}`, action: "up", selfScore: 1, feedback: i % 5 ? "ok" : "invalid move" })),
  endObservation: "end",
};
const counter = new TokenCounter("o200k");

describe("memory pathway", () => {
  it("a well-formed reply becomes the next version; a malformed one keeps the previous triple", () => {
    const { messages } = summaryMessages({ rules: "R", previous: null, trajectory }, { contextTokens: 100_000, maxNewTokens: 1000, tokenizer: "o200k" }, counter);
    const v1 = nextMemory(EMPTY_MEMORY, 1, builtinSummary(messages));
    expect(v1.parsed).toBe(true);
    expect(v1.version.afterEpisode).toBe(1);
    expect(memoryText(v1.version.triple)).toContain("## Strategies to retain");
    const v2 = nextMemory(v1.version, 2, "I think I did fine.");
    expect(v2.parsed).toBe(false);
    expect(v2.error).toMatch(/headings/);
    expect(v2.version).toEqual({ afterEpisode: 2, triple: v1.version.triple });
  });
  it("records round-trip, version 0 is the empty memory", () => {
    expect(memoryRecordFields(EMPTY_MEMORY)).toEqual({ after_episode: 0, text: "", retain: "", avoid: "", next: "" });
    expect(memoryFromRecord(memoryRecordFields(EMPTY_MEMORY))).toEqual(EMPTY_MEMORY);
    const v = { afterEpisode: 3, triple: { retain: "a", avoid: "b", next: "c" } };
    expect(memoryFromRecord(memoryRecordFields(v))).toEqual(v);
  });
  it("cuts the trajectory's tail so the summary prompt leaves room for the reply", () => {
    const settings = { contextTokens: 1200, maxNewTokens: 300, tokenizer: "o200k" as const };
    const { messages, keptSteps } = summaryMessages({ rules: "R", previous: null, trajectory }, settings, counter);
    expect(keptSteps).toBeGreaterThan(0);
    expect(keptSteps).toBeLessThan(30);
    expect(countMessageTokens(messages)).toBeLessThanOrEqual(settings.contextTokens - settings.maxNewTokens);
    expect(messages[1]!.content).toContain(`[... ${30 - keptSteps} later steps omitted]`);
  });
});
