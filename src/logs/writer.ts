/**
 * The append-only JSONL writer (logs.md, "Layout"). Every line is validated against its zod schema
 * before it is written, so nothing the reader would reject reaches the disk. Each line goes out in ONE
 * write(2) on a file opened with O_APPEND: concurrent episodes of a run share the file, and a crash
 * (kill -9, power loss) can tear at most the last line, never interleave two. `sync()` is called at
 * episode boundaries, so a finished episode's lines are durable before its record claims it is done.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, ftruncateSync, writeSync } from "node:fs";
import { basename } from "node:path";
import type { z } from "zod";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { formatIssues } from "../util/zodIssues.js";
import { stringifyWellFormed } from "../util/wellFormedJson.js";

export class InvalidRecordError extends Error {
  override name = "InvalidRecordError";
}

/**
 * Cuts a torn last line (a crash in the middle of a write) so that the next append starts on a
 * fresh line instead of gluing itself to the fragment. Returns the number of bytes removed.
 */
export function repairTornTail(fd: number): number {
  const size = fstatSync(fd).size;
  if (size === 0) return 0;
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  // Walk backwards to the last newline.
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    const nl = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (nl >= 0) {
      const keep = start + nl + 1;
      if (keep < size) ftruncateSync(fd, keep);
      return size - keep;
    }
    end = start;
  }
  ftruncateSync(fd, 0);
  return size;
}

export class JsonlWriter<S extends z.ZodTypeAny> {
  private fd: number | null;
  /** Lines written since the last fsync: syncing a clean file would cost a disk flush for nothing. */
  private dirty = false;
  readonly path: string;
  /** Bytes removed from a torn last line when the file was opened. */
  readonly repairedBytes: number;

  private constructor(
    path: string,
    private readonly schema: S,
  ) {
    this.path = path;
    this.fd = openSync(path, "a+");
    this.repairedBytes = repairTornTail(this.fd);
  }

  /** Opens (creating if needed) `path` for appending records validated by `schema`. */
  static open<S extends z.ZodTypeAny>(path: string, schema: S): JsonlWriter<S> {
    return new JsonlWriter(path, schema);
  }

  /** Validates `record` and appends it as one line. Throws InvalidRecordError naming the field. */
  append(record: z.input<S>): void {
    if (this.fd === null) throw new Error(`${basename(this.path)}: writer is closed`);
    const parsed = this.schema.safeParse(record);
    if (!parsed.success) throw new InvalidRecordError(`refusing to write an invalid line to ${basename(this.path)}: ${formatIssues(parsed.error, { max: 3 })}`);
    // Serialise the caller's object (not zod's output) so extra fields survive even without passthrough.
    // Lone surrogates (a reply cut inside an emoji) become U+FFFD: the line stays JSON for every reader.
    const buf = Buffer.from(`${stringifyWellFormed(record)}\n`, "utf8");
    let off = 0;
    // A regular file accepts the whole buffer in one call; the loop only guards against a short write.
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    this.dirty = true;
  }

  /** Flushes to stable storage (episode boundaries). */
  sync(): void {
    if (this.fd !== null && this.dirty) {
      fsyncSync(this.fd);
      this.dirty = false;
    }
  }

  close(): void {
    if (this.fd === null) return;
    this.sync();
    closeSync(this.fd);
    this.fd = null;
  }
}

/** Writes a JSON document atomically after validating it with `schema`. */
export function writeJsonAtomic<S extends z.ZodTypeAny>(path: string, schema: S, value: z.input<S>): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidRecordError(`refusing to write an invalid ${basename(path)}: ${formatIssues(parsed.error, { max: 3 })}`);
  writeFileAtomic(path, `${stringifyWellFormed(value, 2)}\n`);
}
