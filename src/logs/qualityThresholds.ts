/**
 * Every threshold of run quality in one place (endpoints.md, "Run quality"; docs/endpoints.md).
 * The run loop stops a run with them (replyMonitor.ts, runQuality.ts) and the report leaves a run
 * out of the paper tables with the same numbers (analysis/tables/runQuality.ts), so a run and its report
 * never disagree about what is clean. Here, in the lowest layer both read, and nowhere else.
 */

/** Step replies a run makes before a share may stop it (a short run is judged on all its replies at the end). */
export const WARMUP_REPLIES = 20;

/** Default `--max-bad-replies`: the share of empty or unparsable step replies that makes a run degenerate. */
export const DEFAULT_MAX_BAD_REPLIES = 0.5;

/**
 * The share of parsed actions the game refused (invalid) at which a run is degenerate,
 * like unparsable replies: at 100% the model never played, it only talked. Checked with a strict
 * `>=` so only a run with no valid action at all trips it.
 */
export const MAX_INVALID_ACTIONS = 1;
/**
 * Parsed actions a run needs before the invalid-action rule judges it: a weak model in chess may
 * refuse-rate 96% legitimately, and 100 such moves all invalid by chance has odds of 1.7% (0.96^100).
 * Built-in policies (instruments, e.g. builtin:random) are never judged by it.
 */
export const MIN_ACTIONS_JUDGED = 100;

/**
 * Server-side truncation (per call): the server's prompt_tokens is below the kit's own count by more
 * than BOTH margins (a relative one for tokenizer differences, an absolute one for short prompts).
 */
export const TRUNCATION_MARGIN_SHARE = 0.1;
export const TRUNCATION_MARGIN_TOKENS = 256;

/**
 * Server-truncated calls a run may have before it stops (`server_truncated` outcome). One such call
 * already flags the run in the report; a few more in a row mean the window is too small.
 */
export const MAX_SERVER_TRUNCATED_CALLS = 3;

/**
 * Flag thresholds for a run that ended: above any, the run is `flagged` in run_quality and left out
 * of the paper tables unless `report --include-flagged`. Shares are of step replies.
 */
export const FLAG_THRESHOLDS = {
  /** Empty or unparsable replies (the stop threshold above applies only with its default). */
  badReplyShare: 0.2,
  /** Replies cut at the token cap (finish_reason `length`). */
  cutAtCapShare: 0.2,
  /**
   * Actions the game refused, flagged only at 100% (`>=`): invalid moves are part of a game's
   * difficulty (built-in random and learner play 65-96% invalid chess moves in a complete run), so
   * only a run that never made a valid move is not a measurement.
   */
  invalidActionShare: 1,
  /** Calls whose prompt the server truncated: any. */
  serverTruncatedCalls: 0,
  /** Steps that could not fit the context and ended their episode: any. */
  overContextCalls: 0,
} as const;

/** True when the server counted fewer prompt tokens than the kit by more than both margins. */
export function isServerTruncated(localTokens: number, serverTokens: number): boolean {
  const short = localTokens - serverTokens;
  return short > TRUNCATION_MARGIN_TOKENS && short > TRUNCATION_MARGIN_SHARE * localTokens;
}

/** The measured part of a run's quality that the flags read (RunQualityRecord without its verdict). */
export interface QualityMeasures {
  status: string;
  /** Step replies measured (a run without any has no shares to judge). */
  step_replies?: number;
  bad_reply_share: number;
  cut_at_cap_share: number;
  invalid_action_share: number;
  server_truncated_calls: number;
  over_context_steps: number;
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/**
 * Why a run is flagged (empty: clean). One rule for the run's manifest and the report: a status
 * other than `complete`, or any share or count above FLAG_THRESHOLDS. `judgeInvalid: false` for a
 * built-in policy (an instrument: its invalid moves are what it is for).
 */
export function qualityFlags(q: QualityMeasures, o: { judgeInvalid?: boolean } = {}): string[] {
  const t = FLAG_THRESHOLDS;
  const out: string[] = [];
  if (q.status !== "complete") out.push(`status ${q.status}`);
  if (q.bad_reply_share > t.badReplyShare) out.push(`${pct(q.bad_reply_share)} bad replies`);
  if (q.cut_at_cap_share > t.cutAtCapShare) out.push(`${pct(q.cut_at_cap_share)} cut at max tokens`);
  if (o.judgeInvalid !== false && (q.step_replies ?? 0) >= MIN_ACTIONS_JUDGED && q.invalid_action_share >= t.invalidActionShare) {
    out.push(`${pct(q.invalid_action_share)} invalid actions`);
  }
  if (q.server_truncated_calls > t.serverTruncatedCalls) out.push(`${q.server_truncated_calls} calls truncated by the server`);
  if (q.over_context_steps > t.overContextCalls) out.push(`${q.over_context_steps} steps over the context`);
  return out;
}
