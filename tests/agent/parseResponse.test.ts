import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseResponse, PARSE_RULES } from "../../src/agent/parseResponse.js";
import { ADVERSARIAL_REPLIES, yieldToTimers } from "../helpers/adversarialText.js";

const strict = (text: string) => parseResponse(text, "strict-contract");

describe("parseResponse (both rules)", () => {
  for (const rule of PARSE_RULES) {
    it(`${rule}: reads the two closing lines and the single-line form`, () => {
      expect(parseResponse("I think so.\nAnswer: uncover (1, 2)\nScore: 0.1", rule)).toEqual({ action: "uncover (1, 2)", selfScore: 0.1, error: null });
      // The single line splits at the last ', Score:', so actions may hold commas and semicolons.
      expect(parseResponse("Answer: X 1 0; W 0 1, Score: 1", rule)).toEqual({ action: "X 1 0; W 0 1", selfScore: 1, error: null });
      expect(parseResponse("Answer: uncover (1, 2), Score: -0.5", rule)).toEqual({ action: "uncover (1, 2)", selfScore: -0.5, error: null });
    });
    it(`${rule}: tolerates markdown emphasis, case and blank lines`, () => {
      expect(parseResponse("**Answer:** `UP`\n\n**Score:** 1\n\n", rule)).toEqual({ action: "UP", selfScore: 1, error: null });
      expect(parseResponse("answer: cheat\nSCORE: 3.", rule)).toEqual({ action: "cheat", selfScore: 3, error: null });
    });
    it(`${rule}: keeps the action when the score is not a plain finite number`, () => {
      const r = parseResponse("Answer: UP\nScore: high", rule);
      expect(r.action).toBe("UP");
      expect(r.selfScore).toBeNull();
      expect(r.error).toMatch(/unparsable score 'high'/);
      expect(r.error).toContain(`rule ${rule}`);
      expect(parseResponse("Answer: UP\nScore: 1e999", rule).selfScore).toBeNull();
      expect(parseResponse("Answer: UP\nScore: 0x10", rule).selfScore).toBeNull();
      expect(parseResponse("Answer: UP\nScore: 12345678901234567890123456789012345678901234567890123456789012345", rule).selfScore).toBeNull();
    });
    it(`${rule}: ignores reasoning inside <think> blocks`, () => {
      expect(parseResponse("<think>Answer: DOWN\nScore: 9</think>\nAnswer: UP\nScore: 0", rule)).toEqual({ action: "UP", selfScore: 0, error: null });
      expect(parseResponse("<think>Answer: DOWN\nScore: 9</think>", rule)).toEqual({ action: null, selfScore: null, error: "empty response" });
      expect(parseResponse("", rule)).toEqual({ action: null, selfScore: null, error: "empty response" });
      expect(parseResponse("Answer: UP\nScore: 1\n<think>Answer: DOWN\nScore: 2", rule)).toEqual({ action: "UP", selfScore: 1, error: null });
    });
  }
});

describe("parseResponse, rule last-answer (the default: what real models write)", () => {
  it("takes the last Answer label whatever follows it, and a Score only after it", () => {
    // o3-mini / GPT-4o in pvz: an explanation after the Answer line.
    expect(parseResponse("Plan first.\nAnswer: H 4 6\n\nExplanation: the torchwood boosts row 4.")).toEqual({
      action: "H 4 6",
      selfScore: null,
      error: "no 'Score:' label after the answer (rule last-answer)",
    });
    // Several Answer labels: the last wins; a Score before it is not a self-score.
    expect(parseResponse("Answer: LEFT\nScore: 5\nOn second thought:\nAnswer: UP").selfScore).toBeNull();
    expect(parseResponse("Answer: LEFT\nScore: 5\nOn second thought:\nAnswer: UP").action).toBe("UP");
    expect(parseResponse("Answer: UP\nScore: 1\nActually, wait.")).toEqual({ action: "UP", selfScore: 1, error: null });
  });
  it("reads the real shapes: fences, ;Answer:, quotes, headers, Final Answer, labels inside sentences", () => {
    // gemini-2.5-pro: the answer inside a code fence (the last line is the closing fence).
    expect(parseResponse("Reasoning.\n\n```text\nAnswer: 5 90\n```").action).toBe("5 90");
    // Qwen3 minesweeper: a `;Answer:` prefix.
    expect(parseResponse("So the answer is 'uncover (6,1)'.\n ;Answer: uncover (6,1)").action).toBe("uncover (6,1)");
    // The whole line in quotes or backticks.
    expect(parseResponse("Thus, the action would be:\n'Answer: 5 0'").action).toBe("5 0");
    expect(parseResponse('### Final Answer\n\n"Answer: J 1 1"\n\nThis places a wall-nut.').action).toBe("J 1 1");
    expect(parseResponse("`Answer: UP`").action).toBe("UP");
    // `### Answer:` with the value on the next line (fences and blank lines skipped).
    expect(parseResponse("### Answer:\n\n```\nW 1 2;W 0 1\n```").action).toBe("W 1 2;W 0 1");
    expect(parseResponse("**Answer:**\n\n**X 1 0**\n\nScore: 1")).toEqual({ action: "X 1 0", selfScore: 1, error: null });
    // `Final Answer:` and the label inside a sentence.
    expect(parseResponse("**Final Answer: J 0 1**").action).toBe("J 0 1");
    expect(parseResponse("Thus, the command is: Answer: H 3 4").action).toBe("H 3 4");
    expect(parseResponse("**Answer**: `J 0 5`.").action).toBe("J 0 5");
    expect(parseResponse("Answer: $\\boxed{0 1}$").action).toBe("0 1");
  });
  it("does not take a word that merely contains or starts like the label", () => {
    expect(parseResponse("Answer: UP\nThe answers: many.\nreanswer: DOWN").action).toBe("UP");
    expect(parseResponse("Here is my answer.").error).toBe("no 'Answer:' label outside <think> blocks (rule last-answer)");
  });
  it("an empty Answer label is no action, and a Score line is never the action", () => {
    expect(parseResponse("Answer:\nScore: 1")).toEqual({ action: null, selfScore: 1, error: "the last 'Answer:' label holds no action (rule last-answer)" });
    expect(parseResponse("Answer: UP\nAnswer: **").action).toBeNull();
    expect(parseResponse("Score: 1").error).toBe("no 'Answer:' label outside <think> blocks (rule last-answer)");
  });
  it("a Score inside a later line is not a self-score (a board copied from the prompt)", () => {
    // A real pvz reply (claude-3-7-sonnet) copies KORGym's status line after its answer.
    expect(parseResponse("Answer: J 3 1\nTurn:10 | Sun: 85 | Score: 10\nLine0|X  |J  |0")).toEqual({
      action: "J 3 1",
      selfScore: null,
      error: "no 'Score:' label after the answer (rule last-answer)",
    });
    expect(parseResponse("Answer: J 3 1\n- **Score:** 0.5").selfScore).toBe(0.5);
    expect(parseResponse("Answer: J 3 1; my score: 2").selfScore).toBe(2);
  });
});

describe("parseResponse, rule strict-contract (--strict-contract: the literal contract)", () => {
  it("the answer must close the reply", () => {
    const r = strict("Answer: UP\nScore: 1\nActually, wait.");
    expect(r.action).toBeNull();
    expect(r.error).toBe("the response does not end with 'Answer: <action>' and 'Score: <number>' lines (rule strict-contract)");
    expect(strict("Score: 1").error).toMatch(/without an 'Answer:'.*strict-contract/);
    expect(strict("Answer:\nScore: 1").action).toBeNull();
    expect(strict("Reasoning.\n\n```text\nAnswer: 5 90\n```").action).toBeNull();
    expect(strict("Thus, the command is: Answer: H 3 4").action).toBeNull();
  });
  it("keeps the action when the score line is missing", () => {
    expect(strict("Answer: UP")).toEqual({ action: "UP", selfScore: null, error: "missing 'Score:' line after the answer (rule strict-contract)" });
  });
});

describe("parseResponse is total and safe on any text", () => {
  it("never throws and never yields an action that is not in the text (random and adversarial texts)", () => {
    const pieces = fc.constantFrom(
      "Answer:",
      "Score:",
      "answer :",
      "Final Answer:",
      ";Answer:",
      "**",
      "`",
      "```",
      "'",
      '"',
      ",",
      ";",
      "\n",
      " ",
      "<think>",
      "</think>",
      "1",
      "-2.5",
      "e9",
      "UP",
      "uncover (1, 2)",
      "İ",
      "\r\n",
      "NaN",
      "Infinity",
      "\\boxed{",
      "}",
      "$",
      "###",
    );
    const adversarial = fc.array(fc.oneof(pieces, fc.string()), { maxLength: 30 }).map((a) => a.join(""));
    fc.assert(
      fc.property(fc.oneof(fc.string(), adversarial, fc.string({ unit: "binary" })), fc.constantFrom(...PARSE_RULES), (text, rule) => {
        const r = parseResponse(text, rule);
        if (r.action !== null) {
          expect(text.includes(r.action)).toBe(true);
          expect(r.action.length).toBeGreaterThan(0);
          expect(r.action).toBe(r.action.trim());
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

describe("parseResponse is linear in the reply's length", () => {
  it("reads adversarial replies of 100k-5M characters (fails by timing out if any scan is quadratic)", async () => {
    for (const [name, text] of Object.entries(ADVERSARIAL_REPLIES)) {
      // Yield between replies, so the test timeout can fire (a synchronous loop would outlast it unnoticed).
      await yieldToTimers();
      for (const rule of PARSE_RULES) {
        const r = parseResponse(text, rule);
        if (r.action !== null) expect(text.includes(r.action), name).toBe(true);
        if (r.action === null || r.selfScore === null) expect(typeof r.error, name).toBe("string");
      }
    }
    expect(parseResponse(ADVERSARIAL_REPLIES.underscores!)).toEqual({ action: "x", selfScore: 1, error: null });
    expect(parseResponse(ADVERSARIAL_REPLIES.fiveMegabytes!)).toEqual({ action: "UP", selfScore: 1, error: null });
    expect(ADVERSARIAL_REPLIES.fiveMegabytes!.length).toBeGreaterThan(5_000_000);
    expect(parseResponse(ADVERSARIAL_REPLIES.blankLines!).action).toBe("UP");
    expect(parseResponse(ADVERSARIAL_REPLIES.answers!).action).toBeNull();
  });
});
