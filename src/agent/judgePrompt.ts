/**
 * The external judge's prompt (`--judge model:<spec>`, docs/judging.md): one call per exploration
 * step, showing the judge what the actor saw at that step (the rules, the observation) and the action
 * it took, never the reward, the score or the feedback that came after; the judge answers with one
 * `Score:` line, its estimate of the step's reward on the scale the actor's self-scores use.
 *
 * Cache-friendly: the system message is one constant text and the user message opens with the rules,
 * so every call of a game shares a long prefix (a provider's prefix cache serves it); the observation
 * and the action come last.
 */
import type { ChatMessage } from "../models/types.js";

export const JUDGE_TITLE = "# S3Gym step judge";

const JUDGE_SYSTEM = [
  JUDGE_TITLE,
  "You judge one step of the game below that an agent has just played. You see the rules, the observation",
  "the agent saw before it acted, and the action it took. You never see the real reward, the score or what",
  "happened next. Estimate the reward this action earned at this step, on the scale the rules define (0 when",
  "it earned nothing, negative when it cost something).",
  "Reply with your reasoning in at most two short lines, then one last line `Score: <number>`.",
].join("\n");

export interface JudgeInput {
  rules: string;
  observation: string;
  /** The parsed action, or null when the actor's reply had none. */
  action: string | null;
}

export function buildJudgeMessages(input: JudgeInput): ChatMessage[] {
  const user = [`<rules>\n${input.rules}\n</rules>`, `<observation>\n${input.observation}\n</observation>`, `<action>\n${input.action ?? "(no action: the reply could not be read)"}\n</action>`].join(
    "\n\n",
  );
  return [
    { role: "system", content: JUDGE_SYSTEM },
    { role: "user", content: user },
  ];
}

export function isJudgeRequest(messages: readonly ChatMessage[]): boolean {
  return messages.some((m) => m.role === "system" && m.content.startsWith(JUDGE_TITLE));
}

/** What a judge prompt shows (null when the messages are not one). */
export function readJudgePrompt(messages: readonly ChatMessage[]): JudgeInput | null {
  if (!isJudgeRequest(messages)) return null;
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  const tag = (t: string): string | null => {
    const a = user.indexOf(`<${t}>\n`);
    const b = user.lastIndexOf(`\n</${t}>`);
    return a >= 0 && b > a ? user.slice(a + t.length + 3, b) : null;
  };
  const rules = tag("rules");
  const observation = tag("observation");
  const action = tag("action");
  if (rules === null || observation === null || action === null) return null;
  return { rules, observation, action };
}

/** A line `Score: <number>` (surrounding space and markdown emphasis allowed); one line at a time, so linear. */
const SCORE_LINE = /^[\s*_]*Score[\s*_]*:[\s*_]*(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)[\s*_]*$/;
const MAX_SCORE_LINE = 200;

/** The judge's score: the number on the reply's last `Score:` line; an error saying what was missing otherwise. */
export function parseJudgeReply(text: string): { ok: true; score: number } | { ok: false; error: string } {
  let score: number | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (line.length > MAX_SCORE_LINE) continue;
    const m = SCORE_LINE.exec(line);
    if (m) score = Number(m[1]);
  }
  if (score === null || !Number.isFinite(score)) return { ok: false, error: "no line 'Score: <number>' in the judge's reply" };
  return { ok: true, score };
}

/**
 * The built-in models' answer to a judge prompt: a constant 0 (they have no judgment of another
 * agent's step). An instrument, not a judge: `model:builtin:*` is the constant judge, whose contrast
 * with `self` shows what a judgment with no information does.
 */
export function builtinJudgeAnswer(): string {
  return "(built-in judge: a constant estimate)\nScore: 0";
}
