/**
 * Progress on stderr (architecture.md, "Progress"; endpoints.md, "While it runs"): per run the
 * episodes, steps, tokens, dollars spent so far, retries, bad-reply rate and ETA; and a matrix line
 * with the overall ETA. On a TTY a live bar per run, redrawn in place; otherwise (CI, a pipe, a
 * file) plain lines every `intervalMs` for the runs that moved (and the matrix, when there are
 * several runs), and one line when a run ends. Never stdout: stdout stays clean for scripts.
 *
 * The numbers live in `ProgressState` (no I/O), which other displays can render from
 * (`snapshot()`, `formatRunProgress`, `formatMatrixProgress`); `Progress` only draws them. Labels
 * are escaped: a model name is outside text.
 */
import type { CallRecord, CheckpointRecord, EpisodeRecord } from "../../logs/schema.js";
import { terminalSafe } from "../../models/secrets.js";
import { escapeControl } from "../../util/outsideText.js";
import type { Option } from "../../util/options.js";
import type { RunEvents } from "../loop/context.js";
import type { ReplyKind } from "../../agent/reply.js";
import type { ReplyStats } from "./replyMonitor.js";

/** How progress is shown: a redrawn bar (a terminal), a line every interval (a log), nothing, or auto (bar on a terminal, else lines). */
export const PROGRESS_MODES = ["auto", "bar", "lines", "off"] as const;
export type ProgressMode = (typeof PROGRESS_MODES)[number];

/** `--progress`, the row of every command that shows a run's progress (run, train-loop, rejudge, probe). */
export const PROGRESS_OPTION: Option<ProgressMode> = { name: "progress", kind: { type: "choice", choices: PROGRESS_MODES }, default: "auto", about: "how progress is shown" };

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  rows?: number;
  columns?: number;
}

/** One run's progress as the events told it (this invocation; `done` includes resumed episodes). */
export interface RunProgress {
  label: string;
  total: number;
  done: number;
  doneAtStart: number;
  steps: number;
  tokensIn: number;
  tokensOut: number;
  /** Episodes (or checkpoints that never played) that failed on infrastructure. */
  failures: number;
  /** Dollars of calls actually made (cache replays cost nothing); null while no call had a price. */
  spentUsd: number | null;
  /** Transport retries of this invocation's calls. */
  retries: number;
  /** The same retries by failure kind (`http_429` ...), as far as calls.jsonl names them. */
  retryKinds: Record<string, number>;
  /** Exploration episodes left (the run's critical path: they play one after another); null when unknown. */
  exploreLeft: number | null;
  /** Exploration episodes ended in this invocation and the time they took (end to end, consolidation included). */
  exploreEnded: number;
  exploreMs: number;
  /** When the last exploration episode ended (or the run started). */
  lastExploreMs: number;
  /** Evaluation episodes timed (their records' started_at to ended_at) and their total time. */
  evalTimed: number;
  evalMs: number;
  /** Step replies classified, and the unusable ones among them (replyMonitor.ts). */
  replies: number;
  badReplies: number;
  /** `complete`, `failed`, `degenerate`, `error` once ended; null while running. */
  status: string | null;
  startedMs: number;
  changed: boolean;
}

/** The whole invocation, summed over its runs. */
export interface MatrixProgress {
  runs: number;
  finished: number;
  total: number;
  done: number;
  spentUsd: number | null;
  retries: number;
  retryKinds: Record<string, number>;
  replies: number;
  badReplies: number;
  /**
   * Milliseconds left: the larger of the matrix's pace (episodes left at this invocation's rate) and
   * the slowest run's own ETA (the critical path bounds the total); null before the first episode ends.
   */
  etaMs: number | null;
}

export function compact(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** Dollars with enough digits to see small runs move. */
export function formatUsd(usd: number): string {
  return `$${usd < 10 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

const percent = (n: number, d: number): string => `${d === 0 ? 0 : Math.round((100 * n) / d)}%`;

/** Short names of the retry kinds, as a person reads them. */
const KIND_NAMES: Record<string, string> = { http_429: "429", http_5xx: "5xx", bad_response: "error body", timeout: "timeout", transport: "connection" };

/** `7 retries: 6x429, 1x5xx` (most frequent first); kinds not recorded are left unnamed. */
export function formatRetries(retries: number, kinds: Readonly<Record<string, number>>): string {
  const named = Object.entries(kinds)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const list = named.map(([k, n]) => `${n}x${KIND_NAMES[k] ?? k}`).join(", ");
  return `${retries} retries${list ? `: ${list}` : ""}`;
}

/** ", $0.0123 spent, 3 retries: 3x429, 12% bad replies": only what is known and not zero. */
function extras(x: { spentUsd: number | null; retries: number; retryKinds: Record<string, number>; replies: number; badReplies: number }): string {
  const parts: string[] = [];
  if (x.spentUsd !== null) parts.push(`${formatUsd(x.spentUsd)} spent`);
  if (x.retries > 0) parts.push(formatRetries(x.retries, x.retryKinds));
  if (x.replies > 0 && x.badReplies > 0) parts.push(`${percent(x.badReplies, x.replies)} bad replies`);
  return parts.map((p) => `, ${p}`).join("");
}

/** The numbers behind the display. Pure: the clock is injected. */
export class ProgressState implements RunEvents {
  readonly runs = new Map<string, RunProgress>();
  private firstStartMs: number | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  runStarted(runId: string, info: { totalEpisodes: number; doneEpisodes: number; label: string; exploreLeft?: number }): void {
    const started = this.now();
    this.firstStartMs ??= started;
    this.runs.set(runId, {
      label: terminalSafe(info.label).replace(/\n/g, "\\n"),
      total: info.totalEpisodes,
      done: info.doneEpisodes,
      doneAtStart: info.doneEpisodes,
      steps: 0,
      tokensIn: 0,
      tokensOut: 0,
      failures: 0,
      spentUsd: null,
      retries: 0,
      retryKinds: {},
      exploreLeft: info.exploreLeft ?? null,
      exploreEnded: 0,
      exploreMs: 0,
      lastExploreMs: started,
      evalTimed: 0,
      evalMs: 0,
      replies: 0,
      badReplies: 0,
      status: null,
      startedMs: started,
      changed: true,
    });
  }

  step(runId: string, tokensIn: number, tokensOut: number): void {
    const r = this.runs.get(runId);
    if (!r) return;
    r.steps++;
    r.tokensIn += tokensIn;
    r.tokensOut += tokensOut;
    r.changed = true;
  }

  reply(runId: string, kind: ReplyKind, _stats: Readonly<ReplyStats>): void {
    const r = this.runs.get(runId);
    if (!r) return;
    r.replies++;
    if (kind !== "ok") r.badReplies++;
    r.changed = true;
  }

  call(runId: string, record: CallRecord): void {
    const r = this.runs.get(runId);
    if (!r) return;
    r.retries += record.retries;
    for (const k of record.retry_kinds ?? []) r.retryKinds[k] = (r.retryKinds[k] ?? 0) + 1;
    // Money actually spent: a replayed answer was paid for by an earlier invocation.
    if (record.cost_usd !== null && !record.cached) r.spentUsd = (r.spentUsd ?? 0) + record.cost_usd;
    r.changed = true;
  }

  episodeDone(runId: string, record: EpisodeRecord): void {
    const r = this.runs.get(runId);
    if (!r) return;
    r.done++;
    if (record.status !== "ok") r.failures++;
    if (record.phase === "explore" && r.exploreLeft !== null) {
      const now = this.now();
      r.exploreLeft = Math.max(0, r.exploreLeft - 1);
      r.exploreEnded++;
      r.exploreMs += now - r.lastExploreMs;
      r.lastExploreMs = now;
    }
    if (record.phase === "eval") {
      const took = Date.parse(record.ended_at) - Date.parse(record.started_at);
      if (Number.isFinite(took) && took >= 0) {
        r.evalTimed++;
        r.evalMs += took;
      }
    }
    r.changed = true;
  }

  checkpointDone(runId: string, record: CheckpointRecord): void {
    const r = this.runs.get(runId);
    if (r && record.status !== "ok" && (record.failed_episodes as unknown[] | undefined)?.length === 0) {
      // A checkpoint failed without playing (exploration stopped): count it once.
      r.failures++;
      r.changed = true;
    }
  }

  runEnded(runId: string, status: string): void {
    const r = this.runs.get(runId);
    if (!r) return;
    r.status = status;
    r.changed = true;
  }

  /**
   * Milliseconds left for one run; null before its first episode ends. From completed work along the
   * run's critical path when its exploration is known: the exploration episodes left play one after
   * another at the mean time of those ended, then the last checkpoint's evaluation (its episodes
   * concurrent) takes about one evaluation episode (their mean, once timed); once exploration is
   * over, what is left of that. Otherwise (a checkpoint list, or past that time) episodes left at
   * this invocation's pace.
   */
  etaMs(r: RunProgress): number | null {
    const doneNow = r.done - r.doneAtStart;
    const left = r.total - r.done;
    if (r.status !== null || left <= 0) return 0;
    const pace = doneNow === 0 ? null : ((this.now() - r.startedMs) / doneNow) * left;
    if (r.exploreLeft !== null && r.exploreEnded > 0) {
      const mean = r.exploreMs / r.exploreEnded;
      // The last checkpoint's evaluation: its episodes play at once, so about one of them (timed when seen).
      const tail = r.evalTimed > 0 ? r.evalMs / r.evalTimed : mean;
      if (r.exploreLeft > 0) return r.exploreLeft * mean + tail;
      const rest = tail - (this.now() - r.lastExploreMs);
      // Past the typical evaluation time, the episodes still playing are slower ones: back to the pace.
      return rest > 0 ? rest : pace;
    }
    return pace;
  }

  matrix(): MatrixProgress {
    const all = [...this.runs.values()];
    const retryKinds: Record<string, number> = {};
    for (const r of all) for (const [k, n] of Object.entries(r.retryKinds)) retryKinds[k] = (retryKinds[k] ?? 0) + n;
    // The slowest running run bounds the total: the matrix cannot end before it.
    const runEtas = all.map((r) => this.etaMs(r));
    const slowest = runEtas.some((e) => e === null) ? null : Math.max(0, ...(runEtas as number[]));
    const sum = (f: (r: RunProgress) => number) => all.reduce((n, r) => n + f(r), 0);
    const priced = all.some((r) => r.spentUsd !== null);
    const total = sum((r) => r.total);
    const done = sum((r) => r.done);
    const doneNow = sum((r) => r.done - r.doneAtStart);
    // Runs that ended early (failed, degenerate) leave nothing to wait for.
    const left = sum((r) => (r.status === null ? Math.max(0, r.total - r.done) : 0));
    const elapsed = this.firstStartMs === null ? 0 : this.now() - this.firstStartMs;
    return {
      runs: all.length,
      finished: all.filter((r) => r.status !== null).length,
      total,
      done,
      spentUsd: priced ? sum((r) => r.spentUsd ?? 0) : null,
      retries: sum((r) => r.retries),
      retryKinds,
      replies: sum((r) => r.replies),
      badReplies: sum((r) => r.badReplies),
      etaMs: left === 0 ? 0 : doneNow === 0 ? null : Math.max((elapsed / doneNow) * left, slowest ?? 0),
    };
  }

  /** A copy of every run's numbers and the matrix totals. */
  snapshot(): { runs: Array<RunProgress & { runId: string; etaMs: number | null }>; matrix: MatrixProgress } {
    return { runs: [...this.runs].map(([runId, r]) => ({ ...r, runId, etaMs: this.etaMs(r) })), matrix: this.matrix() };
  }
}

const eta = (ms: number | null): string => (ms === 0 ? "" : ms === null ? " ETA ?" : ` ETA ${formatDuration(ms)}`);

/** One run's plain progress line (no prefix). */
export function formatRunProgress(r: RunProgress, etaMs: number | null): string {
  const fail = r.failures > 0 ? `, ${r.failures} failed` : "";
  const state = r.status ?? `${r.done}/${r.total} episodes`;
  return `${r.label}: ${state} (${r.done}/${r.total} episodes, ${compact(r.steps)} steps, tokens ${compact(r.tokensIn)} in / ${compact(r.tokensOut)} out${extras(r)}${fail})${eta(etaMs)}`;
}

/** The matrix line: runs finished, episodes, dollars, retries, bad replies, overall ETA. */
export function formatMatrixProgress(m: MatrixProgress): string {
  return `${m.finished}/${m.runs} runs finished, ${m.done}/${m.total} episodes${extras(m)}${eta(m.etaMs)}`;
}

export class Progress implements RunEvents {
  readonly state: ProgressState;
  private readonly mode: "bar" | "lines" | "off";
  private timer: NodeJS.Timeout | null = null;
  private drawn = 0;
  private matrixChanged = false;

  constructor(
    private readonly stream: ProgressStream,
    opts: { mode?: ProgressMode; intervalMs?: number; now?: () => number } = {},
  ) {
    const mode = opts.mode ?? "auto";
    this.mode = mode === "auto" ? (stream.isTTY ? "bar" : "lines") : mode;
    this.state = new ProgressState(opts.now ?? Date.now);
    if (this.mode !== "off") {
      const interval = opts.intervalMs ?? (this.mode === "bar" ? 250 : 30_000);
      this.timer = setInterval(() => this.tick(), interval);
      // Progress must never keep the process alive.
      this.timer.unref();
    }
  }

  runStarted(runId: string, info: { totalEpisodes: number; doneEpisodes: number; label: string; exploreLeft?: number }): void {
    this.state.runStarted(runId, info);
    this.matrixChanged = true;
  }
  step(runId: string, tokensIn: number, tokensOut: number): void {
    this.state.step(runId, tokensIn, tokensOut);
  }
  reply(runId: string, kind: ReplyKind, stats: Readonly<ReplyStats>): void {
    this.state.reply(runId, kind, stats);
  }
  call(runId: string, record: CallRecord): void {
    this.state.call(runId, record);
  }
  episodeDone(runId: string, record: EpisodeRecord): void {
    this.state.episodeDone(runId, record);
    this.matrixChanged = true;
  }
  checkpointDone(runId: string, record: CheckpointRecord): void {
    this.state.checkpointDone(runId, record);
  }
  runEnded(runId: string, status: string): void {
    this.state.runEnded(runId, status);
    this.matrixChanged = true;
    const r = this.state.runs.get(runId);
    if (r && this.mode === "lines") this.stream.write(`[s3gym] ${this.line(r)}\n`);
  }

  warning(runId: string, message: string): void {
    // Said in every mode (off included): a repair the user has not seen is data lost silently.
    this.stream.write(`[s3gym] warning: ${escapeControl(terminalSafe(`${runId}: ${message}`))}\n`);
  }

  line(r: RunProgress): string {
    return formatRunProgress(r, this.state.etaMs(r));
  }

  private bar(r: RunProgress, width: number): string {
    const frac = r.total > 0 ? Math.min(1, r.done / r.total) : 1;
    const filled = Math.round(frac * width);
    return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
  }

  private tick(): void {
    if (this.mode === "bar") this.redraw();
    else if (this.mode === "lines") {
      for (const r of this.state.runs.values()) {
        if (!r.changed || r.status !== null) continue;
        r.changed = false;
        this.stream.write(`[s3gym] ${this.line(r)}\n`);
      }
      // With one run the matrix line would repeat the run's.
      if (this.matrixChanged && this.state.runs.size > 1) this.stream.write(`[s3gym] matrix: ${formatMatrixProgress(this.state.matrix())}\n`);
      this.matrixChanged = false;
    }
  }

  private redraw(): void {
    const cols = this.stream.columns ?? 120;
    const rows = Math.max(3, (this.stream.rows ?? 40) - 2);
    const all = [...this.state.runs.values()];
    const active = all.filter((r) => r.status === null);
    const shown = active.slice(0, rows - 1);
    const labelWidth = Math.min(48, Math.max(8, ...shown.map((r) => r.label.length)));
    const lines = shown.map((r) => {
      const fail = r.failures > 0 ? ` ${r.failures} failed` : "";
      const money = r.spentUsd !== null ? ` ${formatUsd(r.spentUsd)}` : "";
      const retries = r.retries > 0 ? ` ${formatRetries(r.retries, r.retryKinds)}` : "";
      const bad = r.badReplies > 0 ? ` ${percent(r.badReplies, r.replies)} bad` : "";
      const text = `${r.label.padEnd(labelWidth).slice(0, labelWidth)} ${this.bar(r, 20)} ${r.done}/${r.total} ep ${compact(r.steps)} st ${compact(r.tokensIn + r.tokensOut)} tok${money}${retries}${bad}${fail}${eta(this.state.etaMs(r))}`;
      return text.slice(0, cols - 1);
    });
    const more = active.length > shown.length ? `, ${active.length - shown.length} more running` : "";
    lines.push(`${formatMatrixProgress(this.state.matrix())}${more}`.slice(0, cols - 1));
    let out = this.drawn > 0 ? `\x1b[${this.drawn}A` : "";
    for (const l of lines) out += `\x1b[2K${l}\n`;
    // Clear lines left over from a taller previous frame.
    for (let i = lines.length; i < this.drawn; i++) out += "\x1b[2K\n";
    if (this.drawn > lines.length) out += `\x1b[${this.drawn - lines.length}A`;
    this.drawn = lines.length;
    this.stream.write(out);
  }

  /** Stops the timer and prints the final state. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.mode === "bar") this.redraw();
  }
}
