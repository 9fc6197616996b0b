/**
 * Degenerate-run detection (endpoints.md, "Degenerate replies stop the run early, loudly"; "Run
 * quality"). Every step reply of a run is classified (ok, empty, no Answer line, no Score line) and
 * its action's fate recorded (valid or refused by the game). Once the run has made WARMUP_REPLIES
 * step calls in this invocation, it trips when a share of bad replies is above `--max-bad-replies`
 * (default 50%), when every action so far was invalid (MAX_INVALID_ACTIONS), or when the server cut
 * more prompts than MAX_SERVER_TRUNCATED_CALLS (that one needs no warm-up: each such call is already
 * wrong). The run stops playing, its status becomes `degenerate`, and the reason names the cause:
 * cut at the cap, a repetition loop, an answer sitting in a complete reasoning field, a server that
 * truncates. A run that ends before the warm-up is judged on all its replies at the end (`verdict`).
 * The thresholds live in logs/qualityThresholds.ts, which the report reads too.
 */
import type { ReplyKind } from "../../agent/reply.js";
import { DEFAULT_MAX_BAD_REPLIES, MAX_INVALID_ACTIONS, MAX_SERVER_TRUNCATED_CALLS, MIN_ACTIONS_JUDGED, WARMUP_REPLIES } from "../../logs/qualityThresholds.js";

export { DEFAULT_MAX_BAD_REPLIES, WARMUP_REPLIES };

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
  /** Of those, replies whose tail is one short text repeated (a repetition loop: a bigger cap will not help). */
  loops: number;
  /** Replies whose reasoning held a complete Answer line (the answer may be there, see --answer-from). */
  reasoningWithAnswer: number;
  /** Replies that gave an action (parsed), valid or not. */
  actions: number;
  /** Of those, actions the game refused. */
  invalid: number;
  /** Step calls whose prompt the server cut (its prompt_tokens well below the kit's count). */
  serverTruncated: number;
}

/** What one step call showed besides its reply kind. */
export interface ReplyInfo {
  reasoning: boolean;
  finishReason: string | null;
  /** The reply's text ends in a repetition loop (isRepetitionLoop). */
  loop?: boolean;
  /** The reasoning holds a complete answer (an Answer line parsed from it). */
  reasoningAnswer?: boolean;
  /** The game accepted the action (false: invalid or none). */
  valid?: boolean;
  /** The server's prompt_tokens fell short of the kit's count (callLog.ts). */
  serverTruncated?: boolean;
}

/**
 * True when `text` ends in one unit of at most 200 characters repeated to fill at least its last 400
 * characters (or 4 repeats): the shape of a model looping until the token cap. Bounded work: at most
 * 200 x 800 character comparisons, whatever the text's length.
 */
export function isRepetitionLoop(text: string): boolean {
  const tail = text.slice(-1200);
  for (let p = 1; p <= 200 && p * 4 <= tail.length; p++) {
    const span = Math.min(tail.length, Math.max(400, 4 * p));
    if (span < 4 * p) continue;
    let ok = true;
    for (let i = tail.length - span + p; i < tail.length; i++) {
      if (tail.charCodeAt(i) !== tail.charCodeAt(i - p)) {
        ok = false;
        break;
      }
    }
    if (ok) return true;
  }
  return false;
}

const pct = (n: number, d: number): string => `${d === 0 ? 0 : Math.round((100 * n) / d)}%`;

export class ReplyMonitor {
  private readonly s: ReplyStats = {
    replies: 0,
    bad: 0,
    empty: 0,
    noAnswer: 0,
    noScore: 0,
    withReasoning: 0,
    cutAtLength: 0,
    loops: 0,
    reasoningWithAnswer: 0,
    actions: 0,
    invalid: 0,
    serverTruncated: 0,
  };
  private reason: string | null = null;

  constructor(
    /** Share of bad replies (0..1) above which the run stops; 1 never stops. */
    readonly maxBad = DEFAULT_MAX_BAD_REPLIES,
    readonly warmup = WARMUP_REPLIES,
    /** What the answer was parsed from (named in the hint). */
    private readonly answerFrom: "content" | "reasoning" | "both" = "content",
    /** Apply the all-invalid rule (false for built-in policies: instruments, see qualityThresholds.ts). */
    private readonly judgeInvalid = true,
  ) {}

  record(kind: ReplyKind, info: ReplyInfo): void {
    const s = this.s;
    s.replies++;
    if (kind !== "ok") s.bad++;
    if (kind === "empty") s.empty++;
    if (kind === "no_answer") s.noAnswer++;
    if (kind === "no_score") s.noScore++;
    if (info.reasoning) s.withReasoning++;
    if (info.finishReason === "length") s.cutAtLength++;
    if (info.finishReason === "length" && info.loop === true) s.loops++;
    if (info.reasoningAnswer === true) s.reasoningWithAnswer++;
    // Refused actions are counted among parsed ones: an unparsable reply is already a bad reply.
    if (kind === "ok" || kind === "no_score") {
      s.actions++;
      if (info.valid === false) s.invalid++;
    }
    if (info.serverTruncated === true) s.serverTruncated++;
    if (this.reason === null) this.reason = this.check(s.replies >= this.warmup);
  }

  /** The stop reason now, or null; `warm`: the shares may be judged (past the warm-up, or at the end). */
  private check(warm: boolean): string | null {
    const s = this.s;
    if (s.serverTruncated > MAX_SERVER_TRUNCATED_CALLS) return this.describeTruncation();
    if (!warm || s.replies === 0) return null;
    if (s.bad / s.replies > this.maxBad) return this.describe();
    if (this.judgeInvalid && s.actions >= MIN_ACTIONS_JUDGED && s.invalid / s.actions >= MAX_INVALID_ACTIONS) return this.describeInvalid();
    return null;
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
    return this.reason ?? this.check(true);
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
    // The hint only when the reasoning itself holds an answer: a reasoning cut at the cap holds none.
    if (s.reasoningWithAnswer * 2 >= s.replies && this.answerFrom === "content") text += ": the answer may be in the reasoning field, see --answer-from reasoning|both";
    return text + this.capText();
  }

  /** The cut-at-cap diagnosis, telling a repetition loop (a bigger cap will not help) from a short cap. */
  private capText(): string {
    const s = this.s;
    if (s.cutAtLength * 4 < s.replies) return "";
    const cut = `; ${pct(s.cutAtLength, s.replies)} of replies cut at max tokens (finish_reason length)`;
    if (s.loops * 2 >= s.cutAtLength) {
      return `${cut}, ${pct(s.loops, s.cutAtLength)} of them a repetition loop (the same text repeated until the cap): a larger --max-new-tokens will not help; lower the temperature or set a repetition penalty (models file extra_body)`;
    }
    return `${cut}: raise --max-new-tokens or lower the reasoning effort`;
  }

  private describeInvalid(): string {
    const s = this.s;
    const source = this.answerFrom === "content" ? "" : ` (answers read from ${this.answerFrom === "reasoning" ? "the reasoning" : "content or reasoning"}: it may hold drafts, not the final action)`;
    return `${pct(s.invalid, s.actions)} of ${s.actions} actions invalid: the game refused every action${source}; the model does not play the game${this.capText()}`;
  }

  private describeTruncation(): string {
    const s = this.s;
    return (
      `server_truncated: on ${s.serverTruncated} step calls the server counted far fewer prompt tokens than were sent (a silent cut of the prompt, limit ${MAX_SERVER_TRUNCATED_CALLS}); ` +
      `the likely cause is a server context window smaller than --context-tokens (Ollama's num_ctx: start the server with OLLAMA_CONTEXT_LENGTH=<tokens>, or set PARAMETER num_ctx <tokens> in a Modelfile), or lower --context-tokens to the server's window`
    );
  }
}
