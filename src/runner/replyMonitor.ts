/**
 * Degenerate-run detection (endpoints.md, "Degenerate replies stop the run early, loudly").
 *
 * Every step reply of a run is classified (ok, empty, no Answer line, no Score line). Once the run
 * has made WARMUP_REPLIES step calls in this invocation, a share of bad replies above the threshold
 * (`--max-bad-replies`, default 50%) trips the monitor: the run stops playing, its status becomes
 * `degenerate` and the reason says what was seen, including whether the replies carried reasoning
 * (the usual cause: a reasoning model whose answer is in `reasoning_content`, see --answer-from) and
 * how many were cut at the token cap. A run that ends before the warm-up is judged on all its
 * replies at the end (`verdict`). A missing Score line counts as bad: without self-scores the
 * run measures nothing the benchmark is about.
 */
import type { ParsedResponse } from "../agent/parseResponse.js";

export const WARMUP_REPLIES = 20;
export const DEFAULT_MAX_BAD_REPLIES = 0.5;

export type ReplyKind = "ok" | "empty" | "no_answer" | "no_score";

/** How a parsed reply counts. `text` is the text the answer was parsed from. */
export function replyKind(text: string, parsed: ParsedResponse): ReplyKind {
  if (parsed.action !== null) return parsed.selfScore === null ? "no_score" : "ok";
  return text.trim() === "" ? "empty" : "no_answer";
}

export interface ReplyStats {
  replies: number;
  bad: number;
  empty: number;
  noAnswer: number;
  noScore: number;
  /** Replies that carried reasoning (a reasoning field or a `<think>` block). */
  withReasoning: number;
  /** Replies the endpoint cut at the token cap (finish_reason `length`). */
  cutAtLength: number;
}

const pct = (n: number, d: number): string => `${d === 0 ? 0 : Math.round((100 * n) / d)}%`;

export class ReplyMonitor {
  private readonly s: ReplyStats = { replies: 0, bad: 0, empty: 0, noAnswer: 0, noScore: 0, withReasoning: 0, cutAtLength: 0 };
  private reason: string | null = null;

  constructor(
    /** Share of bad replies (0..1) above which the run stops; 1 never stops. */
    readonly maxBad = DEFAULT_MAX_BAD_REPLIES,
    readonly warmup = WARMUP_REPLIES,
    /** What the answer was parsed from (named in the hint). */
    private readonly answerFrom: "content" | "reasoning" | "both" = "content",
  ) {}

  record(kind: ReplyKind, info: { reasoning: boolean; finishReason: string | null }): void {
    const s = this.s;
    s.replies++;
    if (kind !== "ok") s.bad++;
    if (kind === "empty") s.empty++;
    if (kind === "no_answer") s.noAnswer++;
    if (kind === "no_score") s.noScore++;
    if (info.reasoning) s.withReasoning++;
    if (info.finishReason === "length") s.cutAtLength++;
    if (this.reason === null && s.replies >= this.warmup && s.bad / s.replies > this.maxBad) this.reason = this.describe();
  }

  /** Why the run stopped, or null while it may go on. */
  get tripped(): string | null {
    return this.reason;
  }

  /**
   * The verdict once the run has ended: why it stopped, or, for a run too short to reach the
   * warm-up, the same rule over all its replies (a short run of empty replies is not "complete").
   */
  verdict(): string | null {
    if (this.reason !== null) return this.reason;
    return this.s.replies > 0 && this.s.bad / this.s.replies > this.maxBad ? this.describe() : null;
  }

  get stats(): Readonly<ReplyStats> {
    return this.s;
  }

  /** Share of bad replies so far (0 before any). */
  get badRate(): number {
    return this.s.replies === 0 ? 0 : this.s.bad / this.s.replies;
  }

  private describe(): string {
    const s = this.s;
    const parts = [
      s.empty > 0 ? `${pct(s.empty, s.replies)} empty ${this.answerFrom === "reasoning" ? "reasoning" : "content"}` : null,
      s.noAnswer > 0 ? `${pct(s.noAnswer, s.replies)} without an Answer line` : null,
      s.noScore > 0 ? `${pct(s.noScore, s.replies)} without a Score line` : null,
    ].filter((p): p is string => p !== null);
    let text = `${pct(s.bad, s.replies)} of ${s.replies} replies unusable (${parts.join(", ")}; limit --max-bad-replies ${Math.round(this.maxBad * 100)}%); reasoning present in ${pct(s.withReasoning, s.replies)}`;
    if (s.withReasoning * 2 >= s.replies && this.answerFrom === "content") text += ": the answer may be in the reasoning field, see --answer-from reasoning|both";
    if (s.cutAtLength * 4 >= s.replies) text += `; ${pct(s.cutAtLength, s.replies)} cut at the token cap (finish_reason length): raise --max-new-tokens`;
    return text;
  }
}
