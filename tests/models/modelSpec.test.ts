import { describe, expect, it } from "vitest";
import { MODEL_SCHEMES, modelSpecNotice, parseModelSpec, specText } from "../../src/models/modelSpec.js";

describe("parseModelSpec", () => {
  it("parses openai and builtin specs", () => {
    expect(parseModelSpec("openai:gpt-4o-mini")).toEqual({ scheme: "openai", model: "gpt-4o-mini" });
    expect(parseModelSpec("builtin:perfect-judge")).toEqual({ scheme: "builtin", policy: "perfect-judge" });
    expect(parseModelSpec("builtin:ceiling")).toEqual({ scheme: "builtin", policy: "ceiling" });
    // The old name of perfect-judge still parses, to it, and says so.
    expect(parseModelSpec("builtin:oracle")).toEqual({ scheme: "builtin", policy: "perfect-judge" });
    expect(modelSpecNotice("builtin:oracle")).toMatch(/now called 'perfect-judge'/);
    expect(modelSpecNotice("builtin:perfect-judge")).toBeNull();
    expect(modelSpecNotice("builtin:constructor")).toBeNull();
    expect(() => parseModelSpec("builtin:constructor")).toThrow(/unknown built-in policy 'constructor'/);
  });
  it("keeps colons and slashes of the model id (only the first colon is the scheme's)", () => {
    expect(parseModelSpec("openai:qwen/qwen3-8b:free")).toEqual({ scheme: "openai", model: "qwen/qwen3-8b:free" });
  });
  it("has one registry of schemes: each parses and prints back its own specs", () => {
    expect(MODEL_SCHEMES).toEqual(["openai", "builtin"]);
    for (const text of ["openai:qwen/qwen3-8b:free", "builtin:heuristic", "builtin:learner?judge=0.3"]) expect(specText(parseModelSpec(text))).toBe(text);
    expect(parseModelSpec("openai:a:b")).toEqual({ scheme: "openai", model: "a:b" });
  });

  it("rejects an unknown scheme, naming the valid ones and an example", () => {
    expect(() => parseModelSpec("anthropic:claude")).toThrow(/unknown scheme 'anthropic'.*openai:<model> \(e\.g\. openai:gpt-4o-mini\).*builtin:random\|heuristic\|perfect-judge\|ceiling/);
    expect(() => parseModelSpec("gpt-4o")).toThrow(/no scheme.*openai:<model>/);
  });
  it("rejects an empty model id and an unknown policy", () => {
    expect(() => parseModelSpec("openai:")).toThrow(/empty/);
    expect(() => parseModelSpec("builtin:genius")).toThrow(/unknown built-in policy 'genius'.*builtin:random\|heuristic\|perfect-judge\|ceiling/);
  });
});
