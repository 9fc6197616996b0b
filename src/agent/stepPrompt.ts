/**
 * Prompt assembly for one step (protocol.md, "Prompt layout") and its inverse, which lets
 * `s3gym serve` and the built-in models answer from the chat messages alone.
 *
 * Layout (stable prefix first, so provider prefix caches hit):
 *   system     the rules text for the config in use (it ends with the response contract)
 *   user #1    <experience>...</experience> (History context or Memory text; omitted when empty),
 *              then the first observation
 *   assistant  the model's own earlier answers, verbatim
 *   user #k    <feedback> of the previous step, then the current observation, then the reminder
 * The experience shares the first user message instead of standing alone, so that user and
 * assistant turns strictly alternate (some chat templates reject two user turns in a row).
 * Every user turn ends with the same one-line reminder, so an earlier turn never changes when a new
 * one is appended (the whole conversation so far stays a cacheable prefix).
 */
import { CONTRACT_REMINDER } from "../games/responseContract.js";
import type { PolicyContext } from "../games/types.js";
import type { ChatMessage } from "../models/types.js";
import { parseResponse } from "./parseResponse.js";

/** One earlier step of the current episode, as the model lived it. */
export interface EarlierTurn {
  observation: string;
  /** The model's raw reply, replayed verbatim. */
  response: string;
  /** The visible feedback the game gave after that reply. */
  feedback: string;
  /** Only with reward visibility `visible` (an ablation): the verifier reward and running score. */
  reward?: number;
  scoreAfter?: number;
}

export interface StepPromptInput {
  /** The game's rules text (system message). */
  rules: string;
  /** The experience block: history context or memory text; "" for `none` and `training`. */
  experience: string;
  /** Earlier steps of this episode, oldest first. */
  turns: EarlierTurn[];
  /** The current observation. */
  observation: string;
  /** `hidden` (main setting) or `visible` (ablation: rewards appear in the feedback tags). */
  rewardVisibility: "hidden" | "visible";
}

/** What an empty earlier reply is replayed as (some APIs reject empty assistant messages). */
export const EMPTY_REPLY = "(empty reply)";

function feedbackTag(turn: EarlierTurn, visibility: "hidden" | "visible"): string {
  const extra =
    visibility === "visible" && turn.reward !== undefined
      ? ` [verifier reward: ${turn.reward}; episode total so far: ${turn.scoreAfter ?? "?"}]`
      : "";
  return `<feedback>${turn.feedback || "(none)"}${extra}</feedback>`;
}

function userTurn(observation: string, feedback: string | null, experience: string | null): string {
  const parts: string[] = [];
  if (experience) parts.push(`<experience>\n${experience}\n</experience>`);
  if (feedback !== null) parts.push(feedback);
  parts.push(`<observation>\n${observation}\n</observation>`);
  parts.push(CONTRACT_REMINDER);
  return parts.join("\n\n");
}

/** The messages for one step. */
export function buildStepMessages(input: StepPromptInput): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: input.rules }];
  const observations = [...input.turns.map((t) => t.observation), input.observation];
  observations.forEach((observation, i) => {
    const previous = i > 0 ? input.turns[i - 1]! : null;
    const feedback = previous ? feedbackTag(previous, input.rewardVisibility) : null;
    messages.push({ role: "user", content: userTurn(observation, feedback, i === 0 ? input.experience : null) });
    const own = input.turns[i];
    if (own) messages.push({ role: "assistant", content: own.response.length > 0 ? own.response : EMPTY_REPLY });
  });
  return messages;
}

function between(text: string, open: string, close: string): string | null {
  const start = text.lastIndexOf(open);
  const end = text.lastIndexOf(close);
  if (start < 0 || end < start) return null;
  return text.slice(start + open.length, end).replace(/^\n/, "").replace(/\n$/, "");
}

/**
 * Recovers what a text policy needs (rules, current observation, this episode's history) from a
 * step prompt built by `buildStepMessages`. Returns null when the messages are not a step prompt.
 */
export function messagesToPolicyContext(messages: readonly ChatMessage[]): PolicyContext | null {
  const system = messages.find((m) => m.role === "system");
  const users = messages.filter((m) => m.role === "user");
  const assistants = messages.filter((m) => m.role === "assistant");
  if (!system || users.length === 0 || assistants.length !== users.length - 1) return null;
  const observations: string[] = [];
  const feedbacks: string[] = [];
  for (const u of users) {
    // The experience block may quote observations of earlier episodes: look only after it.
    const expEnd = u.content.lastIndexOf("</experience>");
    const own = expEnd >= 0 ? u.content.slice(expEnd) : u.content;
    const obs = between(own, "<observation>", "</observation>");
    if (obs === null) return null;
    observations.push(obs);
    const fb = between(own, "<feedback>", "</feedback>");
    feedbacks.push((fb ?? "").replace(/ \[verifier reward: [^\]]*\]$/, ""));
  }
  const history = assistants.map((a, i) => ({
    observation: observations[i]!,
    action: parseResponse(a.content).action,
    feedback: feedbacks[i + 1] === "(none)" ? "" : feedbacks[i + 1]!,
  }));
  return { rules: system.content, observation: observations.at(-1)!, history };
}
