/**
 * Reading a step reply (the runner's step loop and the run-quality monitor ask here): where the answer
 * is parsed from (`--answer-from`), what the step record keeps of the reasoning, whether a reply
 * carried reasoning, and how a parsed reply counts for the degenerate-run check. Pure: text in,
 * values out; the `<think>` and line-mark helpers are replyText.ts's.
 */
import { parseResponse, type ParsedResponse, type ParseRule } from "./parseResponse.js";
import { hasThinkTag } from "./replyText.js";
import type { CompletionResult } from "../models/types.js";

/** Where a step's answer is parsed from: the content (default), the reasoning field, or both (content first). */
export const ANSWER_FROM = ["content", "reasoning", "both"] as const;
export type AnswerFrom = (typeof ANSWER_FROM)[number];

/** Characters of reasoning kept per step record (the full length is recorded beside it). */
export const REASONING_CHARS = 20_000;

/** The step record's reasoning fields: the text (cut to REASONING_CHARS) and its full length. */
export function reasoningFields(reasoning: string | null): { reasoning: string | null; reasoning_chars: number } {
  if (reasoning === null) return { reasoning: null, reasoning_chars: 0 };
  if (reasoning.length <= REASONING_CHARS) return { reasoning, reasoning_chars: reasoning.length };
  // Never cut between the two halves of a surrogate pair (a lone surrogate is invalid UTF-8 on disk).
  const end = /[\ud800-\udbff]/.test(reasoning.charAt(REASONING_CHARS - 1)) ? REASONING_CHARS - 1 : REASONING_CHARS;
  return { reasoning: reasoning.slice(0, end), reasoning_chars: reasoning.length };
}

/** True when the reply carried reasoning: a reasoning field, or a `<think>` block in the content (closed or cut at the cap). */
export function hasReasoning(result: Pick<CompletionResult, "text" | "reasoning">): boolean {
  return (result.reasoning !== null && result.reasoning.trim() !== "") || hasThinkTag(result.text);
}

export interface Answer {
  parsed: ParsedResponse;
  /** The text the answer was parsed from. */
  text: string;
  source: "content" | "reasoning";
}

/**
 * Parses the reply under `--answer-from`. The content is the default and the only source unless the
 * user opts in: a reasoning text can hold decoy Answer lines. How the answer shows in later turns is
 * turnTextOf's.
 */
export function answerOf(result: Pick<CompletionResult, "text" | "reasoning">, from: AnswerFrom, rule?: ParseRule): Answer {
  const content: Answer = { parsed: parseResponse(result.text, rule), text: result.text, source: "content" };
  if (from === "content" || (from === "both" && content.parsed.action !== null)) return content;
  const reasoning = result.reasoning ?? "";
  const parsed = parseResponse(reasoning, rule);
  if (from === "both" && parsed.action === null) return content;
  return { parsed, text: reasoning, source: "reasoning" };
}

/**
 * What later prompts of the episode show as a step's answer, from the fields its step record keeps: the
 * reply content, or, for an answer read from the reasoning field, its two contract lines (not the whole
 * reasoning, which could be tens of thousands of tokens per turn). The live
 * episode and every rebuild from the logs (replay, viewer, BuildSFT) call this one function, so a
 * prompt rebuilt from the logs is the prompt that was sent whatever `--answer-from` chose.
 */
export function turnTextOf(step: { response: string; action: string | null; self_score: number | null; answer_source?: "content" | "reasoning" }): string {
  if (step.answer_source !== "reasoning" || step.action === null) return step.response;
  return `Answer: ${step.action}\nScore: ${step.self_score ?? ""}`.trimEnd();
}

export type ReplyKind = "ok" | "empty" | "no_answer" | "no_score";

/** How a parsed reply counts. `text` is the text the answer was parsed from. */
export function replyKind(text: string, parsed: ParsedResponse): ReplyKind {
  if (parsed.action !== null) return parsed.selfScore === null ? "no_score" : "ok";
  return text.trim() === "" ? "empty" : "no_answer";
}
