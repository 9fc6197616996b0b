/**
 * Token counting with a real tokenizer (pure JS, nothing downloaded at run time). o200k_base is the
 * default (GPT-4o family); cl100k_base is available for older models. Used for the History ICL
 * context budget and for usage when an endpoint reports none.
 */
import { countTokens as countCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import type { ChatMessage } from "./types.js";

export const TOKENIZERS = ["o200k", "cl100k"] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

export function countTokens(text: string, tokenizer: TokenizerName = "o200k"): number {
  if (text.length === 0) return 0;
  return tokenizer === "cl100k" ? countCl100k(text) : countO200k(text);
}

/** Per-message framing overhead of chat formats (role markers); a small constant, as OpenAI documents. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function countMessageTokens(messages: readonly ChatMessage[], tokenizer: TokenizerName = "o200k"): number {
  return messages.reduce((n, m) => n + MESSAGE_OVERHEAD_TOKENS + countTokens(m.content, tokenizer), 3);
}
