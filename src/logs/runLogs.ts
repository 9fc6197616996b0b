/**
 * The log files of one run directory (logs.md, "Layout"), each an append-only validated writer:
 * steps, episodes, checkpoints and calls for every run, plus the files a pathway declares as its own
 * (memory.jsonl for the memory pathway).
 */
import { mkdirSync } from "node:fs";
import type { z } from "zod";
import { runFile, type RunFileKind } from "./runDir.js";
import { CallRecord, CheckpointRecord, EpisodeRecord, RUN_FILES, StepRecord } from "./schema.js";
import { JsonlWriter } from "./writer.js";

/**
 * How far a run's logs may fall behind the disk: at an episode or checkpoint boundary the logs are
 * fsynced when this long has passed since their last fsync (and always when the run closes). A model
 * behind an endpoint takes longer than this per episode, so its every boundary is durable; the
 * built-in models finish several episodes a second per run, where an fsync at each boundary kept
 * the reproduction's jobs waiting on the disk (measured: two matrix shards side by side, 15% of
 * their wall time). What this trades: after a power loss or an OS crash (not a killed process: what
 * was written is in the page cache and survives kill -9), up to this long of finished episodes may
 * be missing, and resume plays them again; it never trusts a record whose steps are not all there.
 */
export const DURABLE_INTERVAL_MS = 2000;

/** The files every run writes; the others belong to a pathway. */
const COMMON = ["steps", "episodes", "checkpoints", "calls"] as const satisfies readonly RunFileKind[];

export class RunLogs {
  readonly steps: JsonlWriter<typeof StepRecord>;
  readonly episodes: JsonlWriter<typeof EpisodeRecord>;
  readonly checkpoints: JsonlWriter<typeof CheckpointRecord>;
  readonly calls: JsonlWriter<typeof CallRecord>;
  /** The pathway's own files, opened because it declared them. */
  private readonly own = new Map<RunFileKind, JsonlWriter<z.ZodTypeAny>>();

  /** When the logs were last fsynced (the clock's time); -Infinity before the first boundary. */
  private lastDurable = -Infinity;

  constructor(
    readonly dir: string,
    pathwayFiles: readonly RunFileKind[],
    /** A monotonic clock in ms (tests pass their own). */
    private readonly clock: () => number = () => performance.now(),
  ) {
    mkdirSync(dir, { recursive: true });
    // Steps lines of one event-loop turn go out in one write (writer.ts, `turnBatched`): each is
    // claimed by its episode's record, and every record file writes the held steps first, so no
    // record reaches the disk ahead of its steps and a kill loses only steps that resume drops.
    // calls.jsonl audits every call, a discarded attempt's included: each of its lines is written at once.
    this.steps = JsonlWriter.open(runFile(dir, "steps"), StepRecord, { turnBatched: true });
    const after = this.steps as JsonlWriter<z.ZodTypeAny>;
    this.episodes = JsonlWriter.open(runFile(dir, "episodes"), EpisodeRecord, { after });
    this.checkpoints = JsonlWriter.open(runFile(dir, "checkpoints"), CheckpointRecord, { after });
    this.calls = JsonlWriter.open(runFile(dir, "calls"), CallRecord);
    for (const kind of pathwayFiles) {
      if ((COMMON as readonly string[]).includes(kind)) continue;
      this.own.set(kind, JsonlWriter.open(runFile(dir, kind), RUN_FILES[kind].schema, { after }));
    }
  }

  /** Appends to one of the pathway's own files; throws when the pathway did not declare it. */
  append<K extends RunFileKind>(kind: K, record: z.input<(typeof RUN_FILES)[K]["schema"]>): void {
    const w = this.own.get(kind);
    if (!w) throw new Error(`${this.dir}: ${RUN_FILES[kind].file} is not a file of this run's pathway (declare it in the pathway's files)`);
    w.append(record);
  }

  /** Whether this boundary makes the logs durable (DURABLE_INTERVAL_MS since the last time). */
  private due(): boolean {
    return this.clock() - this.lastDurable >= DURABLE_INTERVAL_MS;
  }

  /**
   * Episode boundary, before the record that claims the steps: when due, the steps reach the disk
   * first (calls.jsonl is an audit log: flushed on close).
   */
  syncSteps(): void {
    if (this.due()) this.steps.sync();
  }

  /**
   * After the episode / checkpoint / pathway record: when due, makes the claim itself durable, its
   * steps first (a no-op when syncSteps just did), so a record never reaches the disk by an fsync
   * ahead of its steps.
   */
  syncRecords(): void {
    if (!this.due()) return;
    this.steps.sync();
    this.episodes.sync();
    this.checkpoints.sync();
    for (const w of this.own.values()) w.sync();
    this.lastDurable = this.clock();
  }

  /** Writes the steps lines held for this turn now: before anything reads the logs back. */
  flush(): void {
    this.steps.flush();
  }

  close(): void {
    for (const w of [this.steps, this.episodes, this.checkpoints, this.calls, ...this.own.values()]) w.close();
  }
}
