/**
 * How `s3gym reproduce` reports its runs: one line per run that finishes, and one progress line for
 * the whole phase (a bar redrawn in place on a TTY; a plain line every `lineEveryMs` otherwise),
 * instead of every shard's per-run progress interleaved.
 *
 * It watches the data directory rather than the runner's events, because the matrix runs in
 * several `s3gym run --shard i/n` processes: a run has finished when its manifest has `ended_at` and
 * a status other than `running`; its episodes are the lines of its episodes.jsonl (read
 * incrementally). Runs already complete when the phase starts are counted in one line, not listed.
 */
import { closeSync, existsSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { openRegularFile, readRegularText } from "../../util/regularFile.js";

export interface WatchedRun {
  runId: string;
  /** Episodes the run plays in total (exploration + every checkpoint's evaluations). */
  totalEpisodes: number;
}

export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

interface RunState {
  run: WatchedRun;
  episodes: number;
  offset: number;
  finished: boolean;
  /**
   * The manifest's `ended_at` when the phase started, for a run that had ended but is not complete
   * for this phase (another schedule's run, a failed one): it has finished again only once a new
   * invocation writes another end. Without this, a run the phase never played (refused, say) was
   * listed as finished now.
   */
  endedAtStart: string | null;
}

interface ManifestView {
  status: string | null;
  ended: boolean;
  endedAt: string | null;
  wallS: number | null;
}

function readManifest(path: string): ManifestView | null {
  try {
    const m = JSON.parse(readRegularText(path)) as { status?: unknown; ended_at?: unknown; wall_s?: unknown };
    return {
      status: typeof m.status === "string" ? m.status : null,
      ended: typeof m.ended_at === "string" && m.ended_at !== "",
      endedAt: typeof m.ended_at === "string" ? m.ended_at : null,
      wallS: typeof m.wall_s === "number" ? m.wall_s : null,
    };
  } catch {
    // Missing, or replaced between our stat and read: the next poll sees it.
    return null;
  }
}

export function formatSeconds(s: number): string {
  if (s < 59.95) return `${s.toFixed(1)} s`;
  // Round to whole seconds first: 599.6 s is 10m00s, never 9m60s.
  const whole = Math.round(s);
  const m = Math.floor(whole / 60);
  return `${m}m${String(whole - m * 60).padStart(2, "0")}s`;
}

export class RunWatch {
  private readonly states: RunState[];
  private readonly startMs: number;
  private alreadyDone = 0;
  private episodesAtStart = 0;
  private finishedNow = 0;
  private lastLineMs: number;
  private barShown = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly tty: boolean;

  constructor(
    private readonly dataDir: string,
    runs: readonly WatchedRun[],
    private readonly out: ProgressOut,
    private readonly opts: { label: string; now?: () => number; lineEveryMs?: number; pollMs?: number },
  ) {
    this.states = runs.map((run) => ({ run, episodes: 0, offset: 0, finished: false, endedAtStart: null }));
    this.tty = out.isTTY === true;
    this.startMs = this.now();
    this.lastLineMs = this.startMs;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** Counts what is already done, prints one line about it, and starts polling. */
  start(): void {
    for (const s of this.states) {
      this.countEpisodes(s);
      const m = readManifest(join(this.dataDir, "runs", s.run.runId, "manifest.json"));
      if (m?.ended && m.status === "complete" && s.episodes >= s.run.totalEpisodes) {
        s.finished = true;
        this.alreadyDone++;
      } else if (m?.ended) s.endedAtStart = m.endedAt;
    }
    this.episodesAtStart = this.episodeTotals().episodes;
    if (this.alreadyDone > 0) {
      this.print(`${this.opts.label}: ${this.alreadyDone} of ${this.states.length} runs already complete in the data directory (resumed, not replayed)`);
    }
    if (this.opts.pollMs !== 0) {
      this.timer = setInterval(() => this.poll(), this.opts.pollMs ?? (this.tty ? 500 : 2000));
      this.timer.unref();
    }
  }

  /** Episodes logged since the last look (new bytes of episodes.jsonl only). */
  private countEpisodes(s: RunState): void {
    const path = join(this.dataDir, "runs", s.run.runId, "episodes.jsonl");
    if (!existsSync(path)) return;
    const size = statSync(path).size;
    if (size <= s.offset) return;
    let fd: number;
    try {
      fd = openRegularFile(path);
    } catch {
      return; // not a regular file: the run's own readers name it; progress only counts what it can
    }
    try {
      const buf = Buffer.alloc(size - s.offset);
      const n = readSync(fd, buf, 0, buf.length, s.offset);
      // Count whole lines only; a torn last line is counted once its newline arrives.
      const last = buf.lastIndexOf(10, n - 1);
      if (last < 0) return;
      for (let i = 0; i <= last; i++) if (buf[i] === 10) s.episodes++;
      s.offset += last + 1;
    } finally {
      closeSync(fd);
    }
  }

  /** One look at the data directory: a line per run that finished since, then the progress line. */
  poll(): void {
    for (const s of this.states) {
      if (s.finished) continue;
      this.countEpisodes(s);
      const m = readManifest(join(this.dataDir, "runs", s.run.runId, "manifest.json"));
      if (!m?.ended || m.status === "running" || (s.endedAtStart !== null && m.endedAt === s.endedAtStart)) continue;
      s.finished = true;
      this.finishedNow++;
      const done = this.alreadyDone + this.finishedNow;
      const wall = m.wallS === null ? "" : `, ${formatSeconds(m.wallS)}`;
      this.print(
        `${this.opts.label} run ${String(done).padStart(String(this.states.length).length)}/${this.states.length} ${m.status ?? "?"}: ${s.run.runId} (${Math.min(s.episodes, s.run.totalEpisodes)} episodes${wall})`,
      );
    }
    const t = this.now();
    if (this.tty) this.drawBar();
    else if (t - this.lastLineMs >= (this.opts.lineEveryMs ?? 30_000)) {
      this.lastLineMs = t;
      this.out.write(`[reproduce] ${this.progressText()}\n`);
    }
  }

  /** Final look; removes the bar. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.poll();
    if (this.barShown) this.out.write("\r\x1b[2K");
    this.barShown = false;
  }

  /** `matrix: 34/70 runs, 1234/5000 episodes (24%), 1m20s, ETA 4m10s` (ETA from this invocation's pace). */
  progressText(): string {
    const runs = this.states.filter((s) => s.finished).length;
    const { episodes, total } = this.episodeTotals();
    const elapsed = (this.now() - this.startMs) / 1000;
    // Episodes left at this invocation's pace (runs already complete at the start are not its pace).
    const left = paceEta(elapsed, episodes - this.episodesAtStart, total - this.episodesAtStart);
    const eta = left !== null ? `, ETA ${formatSeconds(left)}` : "";
    const pct = total > 0 ? Math.floor((episodes / total) * 100) : 100;
    return `${this.opts.label}: ${runs}/${this.states.length} runs, ${episodes}/${total} episodes (${pct}%), ${formatSeconds(elapsed)}${eta}`;
  }

  private episodeTotals(): { episodes: number; total: number } {
    let episodes = 0;
    let total = 0;
    for (const s of this.states) {
      episodes += Math.min(s.episodes, s.run.totalEpisodes);
      total += s.run.totalEpisodes;
    }
    return { episodes, total };
  }

  private drawBar(): void {
    const { episodes, total } = this.episodeTotals();
    const width = 24;
    const filled = total > 0 ? Math.round((episodes / total) * width) : width;
    const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${this.progressText()}`;
    this.out.write(`\r\x1b[2K${line.slice(0, (this.out.columns ?? 120) - 1)}`);
    this.barShown = true;
  }

  /** A line above the bar (the bar is cleared first and redrawn by the next poll). */
  private print(text: string): void {
    if (this.barShown) this.out.write("\r\x1b[2K");
    this.barShown = false;
    this.out.write(`[reproduce] ${text}\n`);
  }
}

/**
 * Filters a `s3gym run` child's output for reproduce: the per-run result lines on stdout
 * (`<run_id>\t<status>\t...`) are kept only for runs that did not complete (the watcher already
 * printed a line per run), the `total` line is dropped; stderr keeps everything but the shard banner.
 */
export function runOutputFilter(stream: "stdout" | "stderr"): (line: string) => boolean {
  if (stream === "stderr") return (line) => !/^s3gym run: shard \d+\/\d+: /.test(line) && line.trim() !== "";
  return (line) => {
    const [id, status] = line.split("\t");
    if (id === "total" || id === undefined || line.trim() === "") return false;
    return status !== "complete";
  };
}

/**
 * The progress line's ETA: episodes left x mean seconds per episode played so far (this invocation).
 * bench/reproduceEta.ts replays a full reproduction's logs through it (docs/runner.md: within 15% of
 * the truth from 10% of the jobs on).
 */
export function paceEta(elapsedS: number, played: number, total: number): number | null {
  return played > 0 && elapsedS > 0 && played < total ? (elapsedS / played) * (total - played) : null;
}
