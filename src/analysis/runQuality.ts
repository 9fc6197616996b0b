/**
 * The report's side of run quality (endpoints.md, "Run quality"): the `run_quality` table, and the
 * filter that keeps flagged runs out of every other table unless `--include-flagged`. A run is
 * flagged by the one rule of logs/qualityThresholds.ts: the quality its manifest recorded when it
 * ended, or, for a run whose manifest has none (older logs, hand-written ones), its status alone.
 */
import { qualityFlags } from "../logs/qualityThresholds.js";
import type { RunQualityRecord } from "../logs/schema.js";
import type { Dataset, RunData } from "./dataset.js";
import type { Table } from "./table.js";
import { isInstrument, withInstrumentNote } from "./instruments.js";
import { describeBootstrap, type BootstrapConfig } from "./bootstrap.js";

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

/** A run's status and flags: from the recorded quality, or from its status when none was recorded. */
export function runVerdict(run: RunData): { status: string; flags: string[]; quality: RunQualityRecord | null } {
  const q = run.manifest?.quality ?? null;
  // The measures recorded, judged by today's thresholds: the same rule the run loop applied.
  if (q) return { status: q.status, flags: qualityFlags(q, { judgeInvalid: !isInstrument(run.model) }), quality: q };
  // No manifest: nothing says it went wrong; a manifest that says so is believed.
  const status = typeof run.manifest?.status === "string" ? run.manifest.status : "complete";
  const flags = status === "complete" ? [] : [`status ${status}`];
  return { status, flags, quality: null };
}

/** `7: 6x http_429, 1x http_5xx` (most frequent kind first). */
export function retriesText(byKind: Readonly<Record<string, number>>): string {
  const kinds = Object.entries(byKind).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
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
      status: v.status,
      flagged: v.flags.length > 0 ? FLAG_MARK : "",
      step_replies: q?.step_replies ?? null,
      bad_reply_share: q?.bad_reply_share ?? null,
      cut_at_cap_share: q?.cut_at_cap_share ?? null,
      invalid_action_share: q?.invalid_action_share ?? null,
      empty_answer_share: q?.empty_answer_share ?? null,
      server_truncated_calls: q?.server_truncated_calls ?? null,
      over_context_steps: q?.over_context_steps ?? null,
      turns_dropped_steps: q?.turns_dropped_steps ?? null,
      retries: q ? retriesText(q.retries_by_kind) : "",
      fingerprints: q ? (q.system_fingerprints.length > 1 ? `${FLAG_MARK} ${q.system_fingerprints.length} differ: ` : "") + q.system_fingerprints.join(" ") : "",
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
      describeBootstrap(cfg, "nothing: run quality is counted from the logs, not estimated, so it has no interval"),
      "From each run's manifest (`quality`, written when the run ended; empty cells: a run whose manifest has none, judged by its status alone). Shares are of step replies: bad = no parsable Answer or Score line; cut at cap = finish_reason length; invalid = the game refused the action; empty = no answer text. server_truncated_calls: the server counted far fewer prompt tokens than the kit sent (a silent cut, e.g. Ollama's num_ctx). over_context_steps: steps that could not fit --context-tokens and ended their episode; turns_dropped_steps: steps sent without their episode's earliest turns. Thresholds: src/logs/qualityThresholds.ts (docs/endpoints.md, \"Run quality\").",
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
 * from the same model's clean runs). `note` names what was done, for every table's notes.
 */
export function qualityFiltered(ds: Dataset, includeFlagged: boolean): { ds: Dataset; note: string | null } {
  const flagged = flaggedRuns(ds);
  if (flagged.size === 0) return { ds, note: null };
  const named = [...flagged].map(([id, f]) => `${id} (${f.join("; ")})`).join(", ");
  if (!includeFlagged) {
    return { ds: { ...ds, runs: ds.runs.filter((r) => !flagged.has(r.run_id)) }, note: `Left out ${flagged.size} flagged run${flagged.size > 1 ? "s" : ""} (see run_quality; report --include-flagged puts them back, marked ${FLAG_MARK}): ${named}.` };
  }
  return {
    ds: { ...ds, runs: ds.runs.map((r) => (flagged.has(r.run_id) ? { ...r, model: `${r.model} ${FLAG_MARK}` } : r)) },
    note: `Rows whose model ends in ${FLAG_MARK} come from flagged runs (--include-flagged; see run_quality): ${named}.`,
  };
}
