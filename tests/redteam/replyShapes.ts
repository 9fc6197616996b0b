/**
 * The red-team reply shapes (issue 12, item 1): replies that once made a text path quadratic (or
 * worse), and the paths every reply takes. tests/redteam runs them; bench/pathological.ts times them.
 */
import { parseResponse } from "../../src/agent/parseResponse.js";
import type { EarlierTurn } from "../../src/agent/stepPrompt.js";
import type { Trajectory } from "../../src/agent/trajectoryText.js";
import { countTokens } from "../../src/models/tokens.js";
import { historyContext, makeHistoryBlock, type HistorySettings } from "../../src/pathways/history.js";
import { TokenCounter } from "../../src/models/tokenCounter.js";
import { EMPTY_MEMORY, nextMemory, summaryMessages } from "../../src/pathways/memory.js";

/** The adversarial shapes: each builds a reply of about `n` characters. */
export const SHAPES: Record<string, (n: number) => string> = {
  underscores: (n) => `Answer: ${"_".repeat(n)}x\nScore: 1`,
  "spaces-one-line": (n) => `Answer: UP${" ".repeat(n)}, Score: 1`,
  "letter-run": (n) => "x".repeat(n),
  "cjk-run": (n) => "汉".repeat(n),
  "emoji-run": (n) => "😀".repeat(Math.floor(n / 2)),
  "marks-run": (n) => `Answer: ${"*_`".repeat(Math.floor(n / 3))}UP\nScore: 1`,
  "many-lines": (n) => "Answer: UP\n".repeat(Math.floor(n / 11)),
  "think-tags": (n) => `${"</think>".repeat(Math.floor(n / 8))}Answer: UP\nScore: 1`,
  "score-commas": (n) => `Answer: ${", Score:".repeat(Math.floor(n / 8))}`,
  "huge-action": (n) => `Answer: ${"go left ".repeat(Math.floor(n / 8))}\nScore: 0.5`,
  "heading-spaces": (n) => `## Strategies to retain${" ".repeat(n)}x`,
  "blank-lines": (n) => `${" \n".repeat(Math.floor(n / 2))}Answer: UP\nScore: 1`,
};

const SETTINGS: HistorySettings = { contextTokens: 128_000, maxNewTokens: 1024, tokenizer: "o200k" };
const RULES = "# S3Gym game: snake (config: explore)\nMove the snake.";

function trajectoryWith(reply: string): Trajectory {
  const p = parseResponse(reply);
  return {
    episode: 1,
    steps: [
      { observation: "grid 1", action: p.action, selfScore: p.selfScore, feedback: "moved" },
      { observation: "grid 2", action: "UP", selfScore: 1, feedback: "ate an apple" },
    ],
    endObservation: "grid end",
  };
}

export const PATHS: Record<string, (reply: string) => void> = {
  parse: (reply) => void parseResponse(reply),
  count: (reply) => void countTokens(reply),
  history: (reply) => {
    const counter = new TokenCounter("o200k");
    const blocks = [makeHistoryBlock(trajectoryWith(reply), counter)];
    const turns: EarlierTurn[] = [{ observation: "grid 3", response: reply, feedback: "moved" }];
    historyContext(blocks, SETTINGS, { rules: RULES, turns, observation: "grid 4", rewardVisibility: "hidden" }, counter);
  },
  memory: (reply) => {
    const counter = new TokenCounter("o200k");
    summaryMessages({ rules: RULES, previous: null, trajectory: trajectoryWith(reply) }, SETTINGS, counter);
    nextMemory(EMPTY_MEMORY, 1, reply);
  },
};
