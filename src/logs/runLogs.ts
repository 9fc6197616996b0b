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

/** The files every run writes; the others belong to a pathway. */
const COMMON = ["steps", "episodes", "checkpoints", "calls"] as const satisfies readonly RunFileKind[];

export class RunLogs {
  readonly steps: JsonlWriter<typeof StepRecord>;
  readonly episodes: JsonlWriter<typeof EpisodeRecord>;
  readonly checkpoints: JsonlWriter<typeof CheckpointRecord>;
  readonly calls: JsonlWriter<typeof CallRecord>;
  /** The pathway's own files, opened because it declared them. */
  private readonly own = new Map<RunFileKind, JsonlWriter<z.ZodTypeAny>>();

  constructor(
    readonly dir: string,
    pathwayFiles: readonly RunFileKind[],
  ) {
    mkdirSync(dir, { recursive: true });
    this.steps = JsonlWriter.open(runFile(dir, "steps"), StepRecord);
    this.episodes = JsonlWriter.open(runFile(dir, "episodes"), EpisodeRecord);
    this.checkpoints = JsonlWriter.open(runFile(dir, "checkpoints"), CheckpointRecord);
    this.calls = JsonlWriter.open(runFile(dir, "calls"), CallRecord);
    for (const kind of pathwayFiles) {
      if ((COMMON as readonly string[]).includes(kind)) continue;
      this.own.set(kind, JsonlWriter.open(runFile(dir, kind), RUN_FILES[kind].schema));
    }
  }

  /** Appends to one of the pathway's own files; throws when the pathway did not declare it. */
  append<K extends RunFileKind>(kind: K, record: z.input<(typeof RUN_FILES)[K]["schema"]>): void {
    const w = this.own.get(kind);
    if (!w) throw new Error(`${this.dir}: ${RUN_FILES[kind].file} is not a file of this run's pathway (declare it in the pathway's files)`);
    w.append(record);
  }

  /**
   * Episode boundary: the episode's steps reach the disk before its record does, so a record on disk
   * always means all its steps are there too (calls.jsonl is an audit log: flushed on close).
   */
  syncSteps(): void {
    this.steps.sync();
  }

  /** After the episode / checkpoint / pathway record: make the claim itself durable. */
  syncRecords(): void {
    this.episodes.sync();
    this.checkpoints.sync();
    for (const w of this.own.values()) w.sync();
  }

  close(): void {
    for (const w of [this.steps, this.episodes, this.checkpoints, this.calls, ...this.own.values()]) w.close();
  }
}
