/**
 * The spend cap (`--max-usd X`, `--max-input-tokens N`; endpoints.md, "Run quality"). One cap over
 * the whole matrix and every invocation of it: what earlier invocations spent (their calls.jsonl) is
 * counted in, so a rerun with a higher cap resumes where the lower one stopped. Only calls paid for
 * count (a reply replayed from the response cache costs nothing again).
 *
 * The cap is checked before an episode starts, never inside one: an episode in flight plays to its
 * end (its steps are all logged), a new one does not start once the spend, plus one episode at the
 * mean cost of those played so far for each in flight and for the new one, would pass the cap. The run then stops `partial`: its logs
 * are exactly those of an interrupted run, which resume reads (runner/resume/resume.ts).
 */
import type { CallRecord } from "../../logs/schema.js";
import { UsageError } from "../../util/errors.js";
import type { OptionTable } from "../../util/options.js";

export interface CapLimits {
  /** Dollars (from the models file's prices); null: no dollar cap. */
  maxUsd: number | null;
  /** Prompt tokens sent (for unpriced models); null: no token cap. */
  maxInputTokens: number | null;
}

/** A cap's flag text: a positive number (an integer for tokens); a UsageError names the flag. */
function capValue(flag: string, integer: boolean): (value: string) => number {
  return (value) => {
    const n = Number(value.trim());
    if (value.trim() === "" || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new UsageError(`--${flag} must be a positive ${integer ? "integer" : "number"} (got '${value}')${integer ? "" : ", dollars, e.g. --max-usd 5"}`);
    }
    return n;
  };
}

/** `s3gym run --max-usd X --max-input-tokens N`: absent, no cap. */
export const SPEND_CAP_OPTIONS: OptionTable<CapLimits> = {
  maxUsd: {
    name: "max-usd",
    kind: { type: "text", shown: "X", parse: capValue("max-usd", false) },
    default: null,
    help: "stop the matrix between episodes before its spend in dollars passes the cap (earlier invocations counted);\n              rerun with a higher cap to resume",
  },
  maxInputTokens: {
    name: "max-input-tokens",
    kind: { type: "text", shown: "N", parse: capValue("max-input-tokens", true) },
    default: null,
    help: "the same cap in prompt tokens sent (for models without a price)",
  },
};

/** Thrown at an episode's start once the cap is reached; the run loop ends the run `partial`. */
export class SpendCapReached extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SpendCapReached";
  }
}

const dollars = (x: number): string => `$${x.toFixed(x >= 10 ? 2 : 4)}`;

export class SpendCap {
  private usd: number;
  private tokensIn: number;
  /** The spend at the start of this invocation: the projection uses this invocation's episodes only. */
  private readonly base: { usd: number; tokensIn: number };
  /** Episodes ended in this invocation (the mean cost divides by it). */
  private episodes = 0;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private stopped: string | null = null;

  constructor(
    readonly limits: CapLimits,
    /** What earlier invocations of the same runs spent. */
    before: { usd: number; tokensIn: number } = { usd: 0, tokensIn: 0 },
  ) {
    this.usd = before.usd;
    this.tokensIn = before.tokensIn;
    this.base = { ...before };
  }

  /** One call measured (calls.jsonl line). */
  add(c: Pick<CallRecord, "cached" | "cost_usd" | "tokens_in">): void {
    if (c.cached) return;
    this.usd += c.cost_usd ?? 0;
    this.tokensIn += c.tokens_in;
  }

  /**
   * Waits until an episode may start, or throws SpendCapReached. Until one episode of this invocation
   * has ended its cost is unknown, so only one plays at a time: concurrent starts at zero spend
   * could pass a small cap many times over. Pair with `release` (in a finally).
   */
  async admit(): Promise<void> {
    for (;;) {
      const stop = this.check();
      if (stop !== null) throw new SpendCapReached(stop);
      if (this.episodes > 0 || this.inFlight === 0) break;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.inFlight++;
  }

  /** An admitted episode ended (its calls already added): the mean episode cost is what the next one is expected to add. */
  release(): void {
    this.inFlight--;
    this.episodes++;
    for (const wake of this.waiting.splice(0)) wake();
  }

  get spent(): { usd: number; tokensIn: number } {
    return { usd: this.usd, tokensIn: this.tokensIn };
  }

  /**
   * Why no new episode may start, or null: the spend so far (episodes in flight included) plus one
   * mean episode for each in flight and one for the new one would pass a cap.
   */
  check(): string | null {
    if (this.stopped !== null) return this.stopped;
    const { maxUsd, maxInputTokens } = this.limits;
    const ahead = (this.inFlight + 1) / Math.max(1, this.episodes);
    const usd = this.usd + (this.usd - this.base.usd) * ahead;
    const tokens = this.tokensIn + (this.tokensIn - this.base.tokensIn) * ahead;
    if (maxUsd !== null && (this.usd >= maxUsd || (this.episodes > 0 && usd > maxUsd))) {
      this.stopped = `spend cap reached: ${dollars(this.usd)} spent of --max-usd ${dollars(maxUsd)} (another episode would pass it)`;
    } else if (maxInputTokens !== null && (this.tokensIn >= maxInputTokens || (this.episodes > 0 && tokens > maxInputTokens))) {
      this.stopped = `spend cap reached: ${this.tokensIn} input tokens sent of --max-input-tokens ${maxInputTokens} (another episode would pass it)`;
    }
    return this.stopped;
  }

  /** The end line's clause: what the cap stopped and how to go on. */
  summary(): string | null {
    if (this.stopped === null) return null;
    return `${this.stopped}; episodes in flight finished, no new one started; rerun the same command with a higher cap to resume (no step is lost or repeated)`;
  }
}
