/**
 * A run's quality from its logs (endpoints.md, "Run quality"): computed once when the run ends (or
 * stops), over every invocation (its step lines from the run's own tally, StepQualityTally, the other
 * files read), and written into its manifest (`quality`). The report reads it back and leaves
 * a flagged run out of the paper tables (analysis/tables/runQuality.ts); the flags come from one rule
 * (logs/qualityThresholds.ts), so the run and its report agree.
 */
import { CallRecord, EpisodeRecord, StepRecord, type RunQualityRecord } from "../../logs/schema.js";
import { readRunFile } from "../../logs/reader.js";
import { runFile } from "../../logs/runDir.js";
import { qualityFlags } from "../../logs/qualityThresholds.js";
import { readCallLines } from "./usage.js";

/** The prefix of an episode error that means a step could not fit the context (episodeRunner.ts). */
export const CONTEXT_OVERFLOW = "context_overflow";

const share = (n: number, d: number): number => (d === 0 ? 0 : n / d);

/** The fields of a step line the quality shares read. */
type StepQualityFields = Pick<StepRecord, "action" | "self_score" | "finish_reason" | "valid" | "response" | "turns_dropped">;

/**
 * The step lines' part of the quality record, line by line. The run keeps one while it plays (seeded
 * with the lines already on disk when it opens, then given each step it appends), so its end need not
 * read steps.jsonl back: what it holds is what that read would count, since every appended record
 * passed the writer's schema check and what the writer changes on the way (redaction, well-formed
 * text) never turns a reply blank or a field null.
 */
export class StepQualityTally {
  replies = 0;
  bad = 0;
  cut = 0;
  invalid = 0;
  empty = 0;
  dropped = 0;

  add(s: StepQualityFields): void {
    this.replies++;
    if (s.action === null || s.self_score === null) this.bad++;
    if (s.finish_reason === "length") this.cut++;
    if (!s.valid) this.invalid++;
    if (s.response.trim() === "" && (s as { answer_source?: unknown }).answer_source === undefined) this.empty++;
    if ((s.turns_dropped ?? 0) > 0) this.dropped++;
  }

  /** The tally of a steps.jsonl as it is now (a damaged line left out, as at the run's end). */
  static ofFile(path: string): StepQualityTally {
    const t = new StepQualityTally();
    for (const { value } of readRunFile(path, StepRecord, SKIP_DAMAGED).lines) t.add(value);
    return t;
  }
}

// Read at the run's end like summarizeCalls: a damaged line (a full disk, a hand edit) is left out of
// the shares rather than turning a finished run into an error (resume quarantines it; reliability.md).
const SKIP_DAMAGED = { damaged: () => undefined };

/**
 * The quality record of the run in `runDirectory`, whose status is `status`; `judgeInvalid` false for
 * a built-in policy. `steps`: the run's own tally of its step lines (else steps.jsonl is read); `calls`:
 * calls.jsonl's whole lines when the caller has read them (else they are read here).
 */
export function runQuality(runDirectory: string, status: string, judgeInvalid = true, steps?: StepQualityTally, calls?: readonly CallRecord[]): RunQualityRecord {
  const { replies, bad, cut, invalid, empty, dropped } = steps ?? StepQualityTally.ofFile(runFile(runDirectory, "steps"));
  let overContext = 0;
  for (const { value: e } of readRunFile(runFile(runDirectory, "episodes"), EpisodeRecord, SKIP_DAMAGED).lines) {
    if (e.error?.startsWith(CONTEXT_OVERFLOW) === true) overContext++;
  }
  let truncated = 0;
  const retries: Record<string, number> = {};
  const fingerprints: string[] = [];
  const served: string[] = [];
  for (const c of calls ?? readCallLines(runDirectory)) {
    if (c.server_truncated === true) truncated++;
    for (const k of c.retry_kinds ?? []) retries[k] = (retries[k] ?? 0) + 1;
    // Retries whose kinds were not recorded (logs from before retry_kinds) still count, as `unknown`.
    const unnamed = c.retries - (c.retry_kinds?.length ?? 0);
    if (unnamed > 0) retries.unknown = (retries.unknown ?? 0) + unnamed;
    if (c.system_fingerprint !== undefined && !fingerprints.includes(c.system_fingerprint) && fingerprints.length < 20) fingerprints.push(c.system_fingerprint);
    if (c.served_model !== undefined && !served.includes(c.served_model) && served.length < 20) served.push(c.served_model);
  }
  const measures = {
    status,
    step_replies: replies,
    bad_reply_share: share(bad, replies),
    cut_at_cap_share: share(cut, replies),
    invalid_action_share: share(invalid, replies),
    empty_answer_share: share(empty, replies),
    server_truncated_calls: truncated,
    over_context_steps: overContext,
  };
  const flags = qualityFlags(measures, { judgeInvalid });
  return {
    ...measures,
    flagged: flags.length > 0,
    flags,
    turns_dropped_steps: dropped,
    retries_by_kind: retries,
    system_fingerprints: fingerprints,
    ...(served.length > 0 ? { served_models: served } : {}),
  };
}
