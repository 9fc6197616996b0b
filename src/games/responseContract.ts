/**
 * The response contract every rules text ends with (protocol.md, "One step"). The agent's parser
 * (src/agent) enforces exactly this; the wording lives here because the rules text states it.
 */
export const RESPONSE_CONTRACT = [
  "## How to answer",
  "Think as much as you like, then end your reply with exactly these two lines:",
  "Answer: <action>",
  "Score: <number>",
  "Score is your own estimate of the immediate reward this action will earn under the rules above",
  "(a number in the game's reward units, not a confidence). Nobody shows you the real reward.",
].join("\n");

/** The one-line reminder that closes every user turn. */
export const CONTRACT_REMINDER = "Reply with your reasoning, then the two lines `Answer: <action>` and `Score: <number>`.";

/** First line of every rules text; `s3gym serve` recognises the game from it. */
export function rulesTitle(game: string, configName: string): string {
  return `# S3Gym game: ${game} (config: ${configName})`;
}

/** Finds the game (and config) a rules text is for, from its title line. */
export function parseRulesTitle(text: string): { game: string; configName: string } | null {
  const m = /^# S3Gym game: ([a-z]+) \(config: ([A-Za-z0-9_-]+)\)\s*$/m.exec(text);
  return m ? { game: m[1] as string, configName: m[2] as string } : null;
}
