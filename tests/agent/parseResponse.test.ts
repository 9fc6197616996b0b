import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseResponse } from "../../src/agent/parseResponse.js";

describe("parseResponse", () => {
  it("reads the two closing lines", () => {
    expect(parseResponse("I think so.\nAnswer: uncover (1, 2)\nScore: 0.1")).toEqual({ action: "uncover (1, 2)", selfScore: 0.1, error: null });
  });
  it("reads the single-line form, splitting at the last ', Score:'", () => {
    expect(parseResponse("Answer: X 1 0; W 0 1, Score: 1")).toEqual({ action: "X 1 0; W 0 1", selfScore: 1, error: null });
    expect(parseResponse("Answer: uncover (1, 2), Score: -0.5")).toEqual({ action: "uncover (1, 2)", selfScore: -0.5, error: null });
  });
  it("tolerates markdown emphasis, case and blank lines", () => {
    expect(parseResponse("**Answer:** `UP`\n\n**Score:** 1\n\n")).toEqual({ action: "UP", selfScore: 1, error: null });
    expect(parseResponse("answer: cheat\nSCORE: 3.")).toEqual({ action: "cheat", selfScore: 3, error: null });
  });
  it("keeps the action when the score is missing or not a number", () => {
    expect(parseResponse("Answer: UP")).toEqual({ action: "UP", selfScore: null, error: "missing 'Score:' line after the answer" });
    const r = parseResponse("Answer: UP\nScore: high");
    expect(r.action).toBe("UP");
    expect(r.selfScore).toBeNull();
    expect(r.error).toMatch(/unparsable score/);
    expect(parseResponse("Answer: UP\nScore: 1e999").selfScore).toBeNull();
    expect(parseResponse("Answer: UP\nScore: 0x10").selfScore).toBeNull();
  });
  it("is strict about position: the answer must close the reply", () => {
    const r = parseResponse("Answer: UP\nScore: 1\nActually, wait.");
    expect(r.action).toBeNull();
    expect(r.error).toMatch(/does not end with/);
    expect(parseResponse("")).toEqual({ action: null, selfScore: null, error: "empty response" });
    expect(parseResponse("Score: 1").error).toMatch(/without an 'Answer:'/);
    expect(parseResponse("Answer:\nScore: 1").action).toBeNull();
  });
  it("ignores reasoning inside <think> blocks", () => {
    expect(parseResponse("<think>Answer: DOWN\nScore: 9</think>\nAnswer: UP\nScore: 0")).toEqual({ action: "UP", selfScore: 0, error: null });
    expect(parseResponse("<think>Answer: DOWN\nScore: 9</think>").action).toBeNull();
  });
  it("never throws and never yields an action that is not in the text (random and adversarial texts)", () => {
    const pieces = fc.constantFrom("Answer:", "Score:", "answer :", "**", "`", ",", ";", "\n", " ", "<think>", "</think>", "1", "-2.5", "e9", "UP", "uncover (1, 2)", "İ", "\r\n", "NaN", "Infinity");
    const adversarial = fc.array(fc.oneof(pieces, fc.string()), { maxLength: 30 }).map((a) => a.join(""));
    fc.assert(
      fc.property(fc.oneof(fc.string(), adversarial, fc.string({ unit: "binary" })), (text) => {
        const r = parseResponse(text);
        if (r.action !== null) {
          expect(text.includes(r.action)).toBe(true);
          expect(r.action.length).toBeGreaterThan(0);
        }
        if (r.selfScore !== null) expect(Number.isFinite(r.selfScore)).toBe(true);
        // Every failure is recorded with its reason; a full parse records none.
        if (r.action === null || r.selfScore === null) expect(typeof r.error).toBe("string");
        else expect(r.error).toBeNull();
      }),
      { numRuns: 3000 },
    );
  });
});
