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
  /** What the episode's later prompts show as this turn's answer. */
  turnText: string;
}

/**
 * Parses the reply under `--answer-from`. The content is the default and the only source unless the
 * user opts in: a reasoning text can hold decoy Answer lines. An answer read from the reasoning is
 * shown in later turns as its two contract lines, not as the whole reasoning (which could be tens of
 * thousands of tokens per turn).
 */
export function answerOf(result: Pick<CompletionResult, "text" | "reasoning">, from: AnswerFrom, rule?: ParseRule): Answer {
  const content: Answer = { parsed: parseResponse(result.text, rule), text: result.text, source: "content", turnText: result.text };
  if (from === "content" || (from === "both" && content.parsed.action !== null)) return content;
  const reasoning = result.reasoning ?? "";
  const parsed = parseResponse(reasoning, rule);
  if (from === "both" && parsed.action === null) return content;
  const turnText = parsed.action === null ? result.text : `Answer: ${parsed.action}\nScore: ${parsed.selfScore ?? ""}`.trimEnd();
  return { parsed, text: reasoning, source: "reasoning", turnText };
}

export type ReplyKind = "ok" | "empty" | "no_answer" | "no_score";

/** How a parsed reply counts. `text` is the text the answer was parsed from. */
export function replyKind(text: string, parsed: ParsedResponse): ReplyKind {
  if (parsed.action !== null) return parsed.selfScore === null ? "no_score" : "ok";
  return text.trim() === "" ? "empty" : "no_answer";
}
