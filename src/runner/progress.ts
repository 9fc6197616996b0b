/**
 * Progress on stderr (architecture.md, "Progress"): on a TTY a live bar per run (episodes, steps,
 * tokens, failures, ETA), redrawn in place; otherwise (CI, a pipe, a file) plain lines every
 * `intervalMs` for the runs that moved, and one line when a run ends. Never stdout: stdout stays
 * clean for whatever a script reads from it.
 */
import type { CheckpointRecord, EpisodeRecord } from "../logs/schema.js";
import { terminalSafe } from "../models/secrets.js";
import type { RunEvents } from "./context.js";

export type ProgressMode = "auto" | "bar" | "lines" | "off";

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  rows?: number;
  columns?: number;
}

interface RunProgress {
  label: string;
  total: number;
  done: number;
  doneAtStart: number;
  steps: number;
  tokensIn: number;
  tokensOut: number;
  failures: number;
  status: string | null;
  startedMs: number;
  changed: boolean;
}

function compact(n: number): string {
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

export class Progress implements RunEvents {
  private readonly runs = new Map<string, RunProgress>();
  private readonly mode: "bar" | "lines" | "off";
  private timer: NodeJS.Timeout | null = null;
  private drawn = 0;
  private readonly now: () => number;

  constructor(
    private readonly stream: ProgressStream,
    opts: { mode?: ProgressMode; intervalMs?: number; now?: () => number } = {},
  ) {
    const mode = opts.mode ?? "auto";
    this.mode = mode === "auto" ? (stream.isTTY ? "bar" : "lines") : mode;
    this.now = opts.now ?? Date.now;
    if (this.mode !== "off") {
      const interval = opts.intervalMs ?? (this.mode === "bar" ? 250 : 30_000);
      this.timer = setInterval(() => this.tick(), interval);
      // Progress must never keep the process alive.
      this.timer.unref();
    }
  }

  runStarted(runId: string, info: { totalEpisodes: number; doneEpisodes: number; label: string }): void {
    this.runs.set(runId, {
      label: terminalSafe(info.label).replace(/\n/g, "\\n"),
      total: info.totalEpisodes,
      done: info.doneEpisodes,
      doneAtStart: info.doneEpisodes,
      steps: 0,
      tokensIn: 0,
      tokensOut: 0,
      failures: 0,
      status: null,
      startedMs: this.now(),
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

  episodeDone(runId: string, record: EpisodeRecord): void {
    const r = this.runs.get(runId);
    if (!r) return;
    r.done++;
    if (record.status !== "ok") r.failures++;
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
    if (this.mode === "lines") this.stream.write(`[s3gym] ${this.line(r)}\n`);
  }

  /** ETA from this invocation's pace (episodes already done before a resume do not count). */
  private eta(r: RunProgress): string {
    const doneNow = r.done - r.doneAtStart;
    const left = r.total - r.done;
    if (r.status !== null || left <= 0) return "";
    if (doneNow === 0) return " ETA ?";
    return ` ETA ${formatDuration(((this.now() - r.startedMs) / doneNow) * left)}`;
  }

  line(r: RunProgress): string {
    const fail = r.failures > 0 ? `, ${r.failures} failed` : "";
    const state = r.status ?? `${r.done}/${r.total} episodes`;
    return `${r.label}: ${state} (${r.done}/${r.total} episodes, ${compact(r.steps)} steps, tokens ${compact(r.tokensIn)} in / ${compact(r.tokensOut)} out${fail})${this.eta(r)}`;
  }

  private bar(r: RunProgress, width: number): string {
    const frac = r.total > 0 ? Math.min(1, r.done / r.total) : 1;
    const filled = Math.round(frac * width);
    return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
  }

  private tick(): void {
    if (this.mode === "bar") this.redraw();
    else if (this.mode === "lines") {
      for (const r of this.runs.values()) {
        if (!r.changed || r.status !== null) continue;
        r.changed = false;
        this.stream.write(`[s3gym] ${this.line(r)}\n`);
      }
    }
  }

  private redraw(): void {
    const cols = this.stream.columns ?? 120;
    const rows = Math.max(3, (this.stream.rows ?? 40) - 2);
    const all = [...this.runs.values()];
    const active = all.filter((r) => r.status === null);
    const shown = active.slice(0, rows - 1);
    const finished = all.length - active.length;
    const labelWidth = Math.min(48, Math.max(8, ...shown.map((r) => r.label.length)));
    const lines = shown.map((r) => {
      const fail = r.failures > 0 ? ` ${r.failures} failed` : "";
      const text = `${r.label.padEnd(labelWidth).slice(0, labelWidth)} ${this.bar(r, 20)} ${r.done}/${r.total} ep ${compact(r.steps)} st ${compact(r.tokensIn + r.tokensOut)} tok${fail}${this.eta(r)}`;
      return text.slice(0, cols - 1);
    });
    lines.push(`${finished}/${all.length} runs finished${active.length > shown.length ? `, ${active.length - shown.length} more running` : ""}`);
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
