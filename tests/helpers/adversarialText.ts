/**
 * Replies a model (or a broken endpoint) can send, 100k to 5M characters. Several took the earlier
 * parser and action normaliser tens of seconds each (`[*_`]+$`, the one-line pattern's `\s*(.*)`, and
 * an unwrapping regex in a loop backtrack quadratically on long runs); a linear reader takes
 * milliseconds. Tests using them fail by timing out; no timing is asserted (bench/ measures).
 */
export const ADVERSARIAL_REPLIES: Record<string, string> = {
  underscores: `Answer: ${"_".repeat(160_000)}x\nScore: 1`,
  stars: `Answer: ${"*".repeat(160_000)}x${"*".repeat(160_000)}\nScore: ${"*".repeat(160_000)}1 x`,
  backticks: `Answer: x${"`".repeat(160_000)}y\nScore: 1${"`".repeat(160_000)}y`,
  spaces: `Answer:${" ".repeat(160_000)}x`,
  spacesCarriageReturn: `Answer:${" ".repeat(160_000)}x,${" ".repeat(160_000)}\r${" ".repeat(160_000)}Score: 1`,
  commaSpaces: `Answer: x${", ".repeat(160_000)}\rScore: `,
  answers: "Answer:".repeat(100_000),
  answersAndScores: `${"Answer: ".repeat(100_000)}\n${"Score:".repeat(100_000)}`,
  blankLines: `Answer:${"\n".repeat(160_000)}UP`,
  fences: `Answer:${"\n```".repeat(160_000)}\nUP`,
  thinkTags: "</think>".repeat(100_000) + "<think>".repeat(100_000),
  latex: `Answer: ${"\\boxed{".repeat(100_000)}${"}".repeat(100_000)}`,
  wrapped: `Answer: ${"**".repeat(160_000)}x${"**".repeat(160_000)}`,
  // A bare wrapped answer (as a game reads it from `s3gym play` or a parsed reply).
  wrappedAction: `${"**".repeat(160_000)}x${"**".repeat(160_000)}`,
  fiveMegabytes: `${"Row 3, column 4 is *safe*; the answer is near. ".repeat(110_000)}\nAnswer: UP\nScore: 1`,
};

/** Lets pending timers run (vitest's test timeout among them) between two synchronous pieces of work. */
export const yieldToTimers = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
