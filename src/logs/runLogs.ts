/**
 * The log files of one run directory (logs.md, "Layout"), each an append-only validated writer.
 * memory.jsonl exists only for the memory pathway.
 */
import { mkdirSync } from "node:fs";
import { runFile } from "./runDir.js";
import { CallRecord, CheckpointRecord, EpisodeRecord, MemoryRecord, StepRecord } from "./schema.js";
import { JsonlWriter } from "./writer.js";

export class RunLogs {
  readonly steps: JsonlWriter<typeof StepRecord>;
  readonly episodes: JsonlWriter<typeof EpisodeRecord>;
  readonly checkpoints: JsonlWriter<typeof CheckpointRecord>;
  readonly calls: JsonlWriter<typeof CallRecord>;
  readonly memory: JsonlWriter<typeof MemoryRecord> | null;

  constructor(
    readonly dir: string,
    withMemory: boolean,
  ) {
    mkdirSync(dir, { recursive: true });
    this.steps = JsonlWriter.open(runFile(dir, "steps"), StepRecord);
    this.episodes = JsonlWriter.open(runFile(dir, "episodes"), EpisodeRecord);
    this.checkpoints = JsonlWriter.open(runFile(dir, "checkpoints"), CheckpointRecord);
    this.calls = JsonlWriter.open(runFile(dir, "calls"), CallRecord);
    this.memory = withMemory ? JsonlWriter.open(runFile(dir, "memory"), MemoryRecord) : null;
  }

  /**
   * Episode boundary: the episode's steps reach the disk before its record does, so a record on disk
   * always means all its steps are there too (calls.jsonl is an audit log: flushed on close).
   */
  syncSteps(): void {
    this.steps.sync();
  }

  /** After the episode / checkpoint / memory record: make the claim itself durable. */
  syncRecords(): void {
    this.episodes.sync();
    this.checkpoints.sync();
    this.memory?.sync();
  }

  close(): void {
    for (const w of [this.steps, this.episodes, this.checkpoints, this.calls, this.memory]) w?.close();
  }
}
