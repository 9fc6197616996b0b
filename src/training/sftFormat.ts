/**
 * The supervised fine-tuning file formats BuildSFT writes and `s3gym finetune --dry-run` validates:
 * `openai-chat` ({"messages": [{role, content}, ...]}, what OpenAI-compatible fine-tuning APIs take)
 * and `sharegpt` ({"conversations": [{from, value}, ...]}, what LLaMA-Factory-style local trainers take).
 */
import { z } from "zod";
import { formatIssues } from "../util/zodIssues.js";
import { countMessageTokens } from "../models/tokens.js";
import type { ChatMessage } from "../models/types.js";
import { readJsonlLines } from "../util/jsonl.js";

export const SFT_FORMATS = ["openai-chat", "sharegpt"] as const;
export type SftFormat = (typeof SFT_FORMATS)[number];

const OpenAIChatExample = z.object({
  messages: z
    .array(z.object({ role: z.enum(["system", "user", "assistant"]), content: z.string() }).passthrough())
    .min(2)
    .refine((m) => m.at(-1)?.role === "assistant", "the last message must be the assistant's answer")
    .refine((m) => m.some((x) => x.role === "user"), "at least one user message is required"),
});

const ShareGptExample = z.object({
  conversations: z
    .array(z.object({ from: z.enum(["system", "human", "gpt"]), value: z.string() }).passthrough())
    .min(2)
    .refine((m) => m.at(-1)?.from === "gpt", "the last turn must be the model's ('gpt') answer")
    .refine((m) => m.some((x) => x.from === "human"), "at least one 'human' turn is required"),
});

const ROLE_TO_FROM = { system: "system", user: "human", assistant: "gpt" } as const;
const FROM_TO_ROLE = { system: "system", human: "user", gpt: "assistant" } as const;

/**
 * One training example in the requested format. `maskEarlierAnswers` (openai-chat only) gives every
 * assistant message but the last `"weight": 0`, the OpenAI fine-tuning field that leaves a message out
 * of the loss: a BuildSFT example's earlier assistant turns are the model's own earlier answers of the
 * episode, unfiltered, and only the final answer is the selected target. (ShareGPT has no per-turn
 * field; LLaMA-Factory's `mask_history: true` does the same there.)
 */
export function toSftExample(messages: ChatMessage[], format: SftFormat, opts: { maskEarlierAnswers?: boolean } = {}): Record<string, unknown> {
  if (format === "openai-chat") {
    const last = messages.length - 1;
    return {
      messages: messages.map((m, i) => (opts.maskEarlierAnswers && m.role === "assistant" && i < last ? { role: m.role, content: m.content, weight: 0 } : { role: m.role, content: m.content })),
    };
  }
  return { conversations: messages.map((m) => ({ from: ROLE_TO_FROM[m.role], value: m.content })) };
}

/** Parses one JSONL line of either format back into chat messages; throws naming the field. */
export function parseSftExample(value: unknown, format: SftFormat): ChatMessage[] {
  if (format === "openai-chat") {
    const r = OpenAIChatExample.safeParse(value);
    if (!r.success) throw new Error(formatIssues(r.error));
    return r.data.messages.map((m) => ({ role: m.role, content: m.content }));
  }
  const r = ShareGptExample.safeParse(value);
  if (!r.success) throw new Error(formatIssues(r.error));
  return r.data.conversations.map((m) => ({ role: FROM_TO_ROLE[m.from], content: m.value }));
}

export interface SftFileReport {
  format: SftFormat | null;
  examples: number;
  /** Token count of each valid example (o200k, chat framing included). */
  tokensPerExample: number[];
  totalTokens: number;
  /** Problems found, each naming the 1-based line. */
  errors: string[];
}

/**
 * Reads a JSONL file in bounded chunks (util/jsonl.ts, the kit's one line reader), detects its format
 * from the first example, validates every line. A line that is not JSON is an error wherever it sits
 * (a torn last line included: an SFT file is not an append-only log that a crash may cut).
 */
export async function validateSftFile(path: string): Promise<SftFileReport> {
  const report: SftFileReport = { format: null, examples: 0, tokensPerExample: [], totalTokens: 0, errors: [] };
  let lines = 0;
  const notJson = ({ line }: { line: number }) => {
    lines++;
    report.errors.push(`line ${line}: not valid JSON`);
  };
  for (const { line, json: value } of readJsonlLines(path, { onDamaged: notJson, onTorn: notJson })) {
    lines++;
    if (report.format === null && value && typeof value === "object") {
      report.format = "messages" in value ? "openai-chat" : "conversations" in value ? "sharegpt" : null;
    }
    if (report.format === null) {
      report.errors.push(`line ${line}: neither a 'messages' (openai-chat) nor a 'conversations' (sharegpt) example`);
      continue;
    }
    try {
      const messages = parseSftExample(value, report.format);
      const tokens = countMessageTokens(messages);
      report.examples++;
      report.tokensPerExample.push(tokens);
      report.totalTokens += tokens;
    } catch (e) {
      report.errors.push(`line ${line}: ${(e as Error).message}`);
    }
  }
  if (lines === 0) report.errors.push("the file is empty (no example on any line)");
  return report;
}
