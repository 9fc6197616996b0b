/**
 * The report's side of run quality (endpoints.md, "Run quality"): the `run_quality` table, and the
 * filter that keeps flagged runs out of every other table unless `--include-flagged`. A run is
 * flagged by the one rule of logs/qualityThresholds.ts: the quality its manifest recorded when it
 * ended, or, for a run whose manifest has none (older logs, hand-written ones), its status alone.
 */
import { qualityFlags, WARMUP_REPLIES } from "../../logs/qualityThresholds.js";
import type { RunQualityRecord } from "../../logs/schema.js";
import type { Dataset, RunData } from "../load/dataset.js";
import type { Table } from "./table.js";
import { isInstrument, withInstrumentNote } from "./instruments.js";
import { MethodTally, describeBootstrap, type BootstrapConfig } from "../stats/bootstrap.js";

/** The mark on the model of every row built from a flagged run (with --include-flagged). */
export const FLAG_MARK = "⚠";

export interface RunQualityRow {
  model: string;
  game: string;
  pathway: string;
  run_id: string;
  status: string;
  /** FLAG_MARK when flagged, "" when clean. */
  flagged: string;
  step_replies: number | null;
  bad_reply_share: number | null;
  cut_at_cap_share: number | null;
  invalid_action_share: number | null;
  empty_answer_share: number | null;
  server_truncated_calls: number | null;
  over_context_steps: number | null;
  turns_dropped_steps: number | null;
  /** `7: 6x http_429, 1x http_5xx`, "0" without retries. */
  retries: string;
  /** The distinct system_fingerprints that answered; more than one is a drift in the served model. */
  fingerprints: string;
  flags: string;
}

/** The statuses the kit writes into a manifest (RunManifest `status`). */
export const KNOWN_STATUSES: readonly string[] = ["running", "complete", "failed", "degenerate", "partial", "error"];

const share = (n: number, d: number): number => (d === 0 ? 0 : n / d);

/** A run's quality measured from its step lines (RunData.replies), for a manifest that recorded none. */
function qualityFromSteps(run: RunData, status: string): RunQualityRecord | null {
  const c = run.replies;
  if (c === undefined) return null;
  const measures = {
    status,
    step_replies: c.replies,
    bad_reply_share: share(c.bad, c.replies),
    cut_at_cap_share: share(c.cut, c.replies),
    invalid_action_share: share(c.invalid, c.replies),
    empty_answer_share: share(c.empty, c.replies),
    server_truncated_calls: 0,
    over_context_steps: c.overContext,
  };
  // Fewer replies than the run loop's warm-up say too little to flag on a share (hand-written or
  // converted logs of a few steps): then the status alone decides, as before.
  const judged = c.replies >= WARMUP_REPLIES ? measures : { ...measures, bad_reply_share: 0, cut_at_cap_share: 0, invalid_action_share: 0 };
  const flags = qualityFlags(judged, { judgeInvalid: !isInstrument(run.model) });
  return { ...measures, flagged: flags.length > 0, flags, turns_dropped_steps: c.dropped, retries_by_kind: {}, system_fingerprints: [] };
}

export interface RunVerdict {
  status: string;
  flags: string[];
  quality: RunQualityRecord | null;
  /** Where the verdict came from: `manifest` (its recorded quality) or `steps` (measured here: no recorded quality). */
  source: "manifest" | "steps";
  /** A manifest status outside KNOWN_STATUSES, as written; null otherwise. */
  unknownStatus: string | null;
}

/**
 * A run's status and flags: from the quality its manifest recorded, or, when none was recorded (no
 * manifest, one from before quality was, or one written by another tool), measured from its step
 * lines by the same rule (a run of 100% unusable replies is flagged with or without its manifest;
 * a run of fewer than WARMUP_REPLIES step replies is not flagged on a share).
 * A status the kit does not write (another tool's `done`) is not a flag by itself: it is named, and
 * the run is judged as `complete` by its steps.
 */
export function runVerdict(run: RunData): RunVerdict {
  const q = run.manifest?.quality ?? null;
  // The measures recorded, judged by today's thresholds: the same rule the run loop applied.
  if (q) return { status: q.status, flags: qualityFlags(q, { judgeInvalid: !isInstrument(run.model) }), quality: q, source: "manifest", unknownStatus: null };
  // No recorded quality: a manifest's status is believed when it is one the kit writes.
  const written = typeof run.manifest?.status === "string" ? run.manifest.status : "complete";
  const unknownStatus = KNOWN_STATUSES.includes(written) ? null : written;
  const status = unknownStatus === null ? written : "complete";
  const measured = qualityFromSteps(run, status);
  if (measured === null) return { status, flags: status === "complete" ? [] : [`status ${status}`], quality: null, source: "steps", unknownStatus };
  return { status, flags: measured.flags, quality: measured, source: "steps", unknownStatus };
}

/** How an unknown status reads in the tables and warnings. */
export function unknownStatusText(status: string): string {
  return `unknown status '${status}': treated as complete, judged by its steps`;
}

/** `7: 6x http_429, 1x http_5xx` (most frequent kind first). */
export function retriesText(byKind: Readonly<Record<string, number>>): string {
  const kinds = Object.entries(byKind)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const total = kinds.reduce((n, [, k]) => n + k, 0);
  return total === 0 ? "0" : `${total}: ${kinds.map(([k, n]) => `${n}x ${k}`).join(", ")}`;
}

/** The run_quality table: one row per run of the whole data set, flagged or not. */
export function runQualityTable(ds: Dataset, cfg: BootstrapConfig): Table<RunQualityRow> {
  return withInstrumentNote(qualityTable(ds, cfg), []);
}

function qualityTable(ds: Dataset, cfg: BootstrapConfig): Table<RunQualityRow> {
  const rows = ds.runs.map((run): RunQualityRow => {
    const v = runVerdict(run);
    const q = v.quality;
    return {
      model: run.model,
      game: run.game,
      pathway: run.pathway,
      run_id: run.run_id,
      status: v.unknownStatus === null ? v.status : `${v.unknownStatus} (${unknownStatusText(v.unknownStatus)})`,
      flagged: v.flags.length > 0 ? FLAG_MARK : "",
      step_replies: q?.step_replies ?? null,
      bad_reply_share: q?.bad_reply_share ?? null,
      cut_at_cap_share: q?.cut_at_cap_share ?? null,
      invalid_action_share: q?.invalid_action_share ?? null,
      empty_answer_share: q?.empty_answer_share ?? null,
      server_truncated_calls: q?.server_truncated_calls ?? null,
      over_context_steps: q?.over_context_steps ?? null,
      turns_dropped_steps: q?.turns_dropped_steps ?? null,
      retries: q && v.source === "manifest" ? retriesText(q.retries_by_kind) : "",
      fingerprints: q && v.source === "manifest" ? (q.system_fingerprints.length > 1 ? `${FLAG_MARK} ${q.system_fingerprints.length} differ: ` : "") + q.system_fingerprints.join(" ") : "",
      flags: v.flags.join("; "),
    };
  });
  const int = (key: string) => ({ key, kind: "int" as const });
  const num = (key: string) => ({ key, kind: "num" as const });
  return {
    name: "run_quality",
    title: "Run quality: what each run's replies, calls and server looked like (a flagged run is left out of the other tables)",
    columns: [
      { key: "model", kind: "text" },
      { key: "game", kind: "text" },
      { key: "pathway", kind: "text" },
      { key: "run_id", kind: "text" },
      { key: "status", kind: "text" },
      { key: "flagged", kind: "text" },
      int("step_replies"),
      num("bad_reply_share"),
      num("cut_at_cap_share"),
      num("invalid_action_share"),
      num("empty_answer_share"),
      int("server_truncated_calls"),
      int("over_context_steps"),
      int("turns_dropped_steps"),
      { key: "retries", kind: "text" },
      { key: "fingerprints", kind: "text" },
      { key: "flags", kind: "text" },
    ],
    rows,
    notes: [
      describeBootstrap(cfg, "nothing: run quality is counted from the logs, not estimated, so it has no interval", new MethodTally()),
      "From each run's manifest (`quality`, written when the run ended); a run whose manifest recorded none (missing, older, or another tool's) is measured here from its step lines by the same thresholds (a share flags it from " +
        WARMUP_REPLIES +
        " step replies on), its call columns (retries, server truncation, fingerprints) then empty or 0. A status the kit does not write (another tool's `done`) is named in the status column and the run judged as complete by its steps. Shares are of step replies: bad = no parsable Answer or Score line; cut at cap = finish_reason length; invalid = the game refused the action; empty = no answer text. server_truncated_calls: the server counted far fewer prompt tokens than the kit sent (a silent cut, e.g. Ollama's num_ctx). over_context_steps: steps that could not fit --context-tokens and ended their episode; turns_dropped_steps: steps sent without their episode's earliest turns. Thresholds: src/logs/qualityThresholds.ts (docs/endpoints.md, \"Run quality\").",
    ],
  };
}

/** Flagged runs by run id, with why. */
export function flaggedRuns(ds: Dataset): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const run of ds.runs) {
    const flags = runVerdict(run).flags;
    if (flags.length > 0) out.set(run.run_id, flags);
  }
  return out;
}

/**
 * The data set the paper tables are built from: without the flagged runs (default), or with them,
 * each one's model marked FLAG_MARK so every row built from it shows the mark (its rows are apart
 * from the same model's clean runs). `note` names what was done, for every table's notes. Its data
 * set's warnings add what the terminal and report.json must say: runs whose manifest status the kit
 * does not write (named, with what they were treated as), and, as `emptied`, that leaving the flagged
 * runs out left no run for the paper tables at all (with the fix).
 */
export function qualityFiltered(ds: Dataset, includeFlagged: boolean): { ds: Dataset; note: string | null; emptied: string | null } {
  const flagged = new Map<string, string[]>();
  const unknown = new Map<string, string[]>();
  for (const run of ds.runs) {
    const v = runVerdict(run);
    if (v.flags.length > 0) flagged.set(run.run_id, v.flags);
    if (v.unknownStatus !== null) unknown.set(v.unknownStatus, [...(unknown.get(v.unknownStatus) ?? []), run.run_id]);
  }
  const said = [...unknown].map(
    ([status, ids]) => `${ids.length} run${ids.length > 1 ? "s" : ""} (e.g. ${ids[0]}): ${unknownStatusText(status)} (the kit writes ${KNOWN_STATUSES.join(", ")}; see run_quality)`,
  );
  if (flagged.size === 0) return { ds: said.length > 0 ? { ...ds, warnings: withWarnings(ds.warnings, said) } : ds, note: null, emptied: null };
  const named = [...flagged].map(([id, f]) => `${id} (${f.join("; ")})`).join(", ");
  if (!includeFlagged) {
    const kept = ds.runs.filter((r) => !flagged.has(r.run_id));
    const emptied =
      kept.length === 0
        ? `every run (${flagged.size}) was flagged by run_quality and left out, so every table but run_quality is empty: see tables/run_quality.md for why (${[...new Set([...flagged.values()].flat())].slice(0, 4).join("; ")}); fix the runs (rerun them) or report --include-flagged to put them back, marked ${FLAG_MARK}`
        : null;
    return {
      ds: { ...ds, runs: kept, warnings: withWarnings(ds.warnings, [...said, ...(emptied ? [emptied] : [])]) },
      note: `Left out ${flagged.size} flagged run${flagged.size > 1 ? "s" : ""} (see run_quality; report --include-flagged puts them back, marked ${FLAG_MARK}): ${named}.`,
      emptied,
    };
  }
  return {
    ds: { ...ds, runs: ds.runs.map((r) => (flagged.has(r.run_id) ? { ...r, model: `${r.model} ${FLAG_MARK}` } : r)), warnings: withWarnings(ds.warnings, said) },
    note: `Rows whose model ends in ${FLAG_MARK} come from flagged runs (--include-flagged; see run_quality): ${named}.`,
    emptied: null,
  };
}

/** `warnings` itself when nothing is added (callers compare the array), else a new array with `more` after it. */
function withWarnings(warnings: string[], more: readonly string[]): string[] {
  return more.length === 0 ? warnings : [...warnings, ...more];
}
