/**
 * The window probe of the preflight (endpoints.md, "Server-side truncation"): a server that states no
 * context window (Ollama) may cut a longer prompt silently, keeping its tail and answering. One
 * request whose prompt is about the run's largest (`--context-tokens` minus the `--max-new-tokens`
 * reserve, the bound no step prompt passes) with a 1-token cap shows it: the server's usage.prompt_tokens
 * below the kit's own count by the server_truncated margins (logs/qualityThresholds.ts) is a cut.
 * A server that reports no usage cannot show a cut, and the line says so.
 */
import { isServerTruncated } from "../../logs/qualityThresholds.js";
import type { OpenAIModel } from "../openaiModel.js";
import { AttemptError } from "../retry.js";
import { countMessageTokens, countTokens, type TokenizerName } from "../tokens.js";
import type { ChatMessage, SamplingParams } from "../types.js";

/** What the probe found. */
export type WindowFinding =
  /** The server counted the whole prompt. */
  | { kind: "fits"; sent: number; counted: number }
  /** The server counted less than the margins allow: it cut the prompt. */
  | { kind: "cut"; sent: number; counted: number }
  /** The server refused the prompt (a 4xx): its window is smaller, and it says so. */
  | { kind: "refused"; sent: number; message: string }
  /** Nothing to compare: no usage in the reply, or the call failed for another reason. */
  | { kind: "unknown"; sent: number; why: string };

/** Filler whose token count per repeat is stable (plain words, a line each). */
const FILLER = "This line pads the window probe; the reply is capped at one token and is not read.\n";
const NOTE = "\n\n(Padding follows, to measure the server's context window. Ignore it.)\n";

/**
 * The probe's messages with filler appended to the last user message, so that the whole prompt
 * counts about `target` tokens with `tokenizer` (never fewer than the messages themselves). Linear in
 * the target: one count of the unit, one of the result, one correction.
 */
export function paddedPrompt(messages: readonly ChatMessage[], target: number, tokenizer: TokenizerName): ChatMessage[] {
  const base = countMessageTokens(messages, tokenizer);
  const last = messages.findLastIndex((m) => m.role === "user");
  if (base >= target || last < 0) return [...messages];
  const unit = Math.max(1, countTokens(FILLER, tokenizer));
  const build = (reps: number): ChatMessage[] => messages.map((m, i) => (i === last ? { ...m, content: m.content + NOTE + FILLER.repeat(Math.max(0, reps)) } : m));
  let reps = Math.floor((target - base) / unit);
  // One correction for the note and for tokens merged across repeats.
  const over = countMessageTokens(build(reps), tokenizer) - target;
  if (over > 0) reps -= Math.ceil(over / unit);
  return build(reps);
}

/** Sends one prompt of about `target` tokens with a 1-token cap and compares the server's count. */
export async function probeWindow(model: OpenAIModel, o: { probe: readonly ChatMessage[]; target: number; tokenizer: TokenizerName; sampling: SamplingParams }): Promise<WindowFinding> {
  const messages = paddedPrompt(o.probe, o.target, o.tokenizer);
  const sent = countMessageTokens(messages, o.tokenizer);
  const identity = { runId: "preflight", purpose: "step" as const, phase: null, checkpoint: null, episode: null, step: null, sample: 0 };
  try {
    const r = await model.complete({ messages, sampling: { ...o.sampling, max_tokens: 1 }, identity });
    if (r.usage.countedBy !== "server") return { kind: "unknown", sent, why: "the server reports no usage (prompt_tokens), so a cut prompt cannot be seen" };
    const counted = r.usage.tokensIn;
    return isServerTruncated(sent, counted) ? { kind: "cut", sent, counted } : { kind: "fits", sent, counted };
  } catch (e) {
    if (!(e instanceof AttemptError)) throw e;
    if (e.kind === "http_4xx") return { kind: "refused", sent, message: e.message };
    return { kind: "unknown", sent, why: `the probe failed (${e.kind}: ${e.message})` };
  }
}
