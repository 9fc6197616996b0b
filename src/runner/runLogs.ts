/**
 * The log files of one run directory (logs.md, "Layout"), each an append-only validated writer.
 * memory.jsonl exists only for the memory pathway.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { CallRecord, CheckpointRecord, EpisodeRecord, MemoryRecord, RUN_FILES, StepRecord } from "../logs/schema.js";
import { JsonlWriter } from "../logs/writer.js";

export function runDir(dataDir: string, runId: string): string {
  return join(dataDir, "runs", runId);
}

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
    this.steps = JsonlWriter.open(join(dir, RUN_FILES.steps.file), StepRecord);
    this.episodes = JsonlWriter.open(join(dir, RUN_FILES.episodes.file), EpisodeRecord);
    this.checkpoints = JsonlWriter.open(join(dir, RUN_FILES.checkpoints.file), CheckpointRecord);
    this.calls = JsonlWriter.open(join(dir, RUN_FILES.calls.file), CallRecord);
    this.memory = withMemory ? JsonlWriter.open(join(dir, RUN_FILES.memory.file), MemoryRecord) : null;
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
