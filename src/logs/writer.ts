/**
 * The append-only JSONL writer (logs.md, "Layout"). Every line is validated against its zod schema
 * before it is written (a check compiled from the schema, zod itself for anything it cannot pass),
 * so nothing the reader would reject reaches the disk. Each line (or a turn-batched writer's lines of
 * one event-loop turn together: `turnBatched`) goes out in ONE write(2) on a file opened with
 * O_APPEND: concurrent episodes of a run share the file, and a crash (kill -9, power loss) can tear
 * at most the last line, never interleave two. `sync()` is called at
 * episode boundaries, so a finished episode's lines are durable before its record claims it is done.
 *
 * A full disk (ENOSPC, EDQUOT, EIO) can still cut a write short. The writer then cuts the file back to
 * the size it had before the record (the last whole line) before anything else appends, and stays
 * failed: every later append to that file throws the same named error, so the run stops with its
 * cause instead of gluing the next record onto a fragment. Writes are
 * synchronous, so no other episode of the process can append between the short write and the cut.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, ftruncateSync, writeSync } from "node:fs";
import { basename } from "node:path";
import type { z } from "zod";
import { writeFileAtomic, type AtomicOptions } from "../util/atomicWrite.js";
import { formatIssues } from "../util/zodIssues.js";
import { stringifyWellFormed, wellFormedStringified } from "../util/wellFormedJson.js";
import { jsonMayHoldSecret, redactDeep } from "../util/secretText.js";
import { fastCheckOf } from "../util/zodFastCheck.js";

export class InvalidRecordError extends Error {
  override name = "InvalidRecordError";
}

/** An append that did not reach the disk whole (a full disk): names the file and the cause. */
export class LogWriteError extends Error {
  override name = "LogWriteError";
}

/** The write(2) the writer uses; a test passes one that fails like a full disk. */
export type WriteFn = (fd: number, buf: Buffer, offset: number, length: number) => number;

const defaultWrite: WriteFn = (fd, buf, offset, length) => writeSync(fd, buf, offset, length);

/**
 * The writers holding lines for the end of this event-loop turn (`turnBatched`), and whether their
 * flush is queued. One setImmediate writes them all: it runs at the start of the next turn's
 * check phase, ahead of the episodes' own next turns (their immediates are queued after it).
 */
const heldWriters = new Set<JsonlWriter<z.ZodTypeAny>>();
let flushQueued = false;

function flushHeldWriters(): void {
  flushQueued = false;
  const writers = [...heldWriters];
  heldWriters.clear();
  // A failed write is kept in its writer (`failed`): its next append, or the next record that
  // claims its lines, throws it where the run can stop with its cause.
  for (const w of writers) w.flushHeldQuietly();
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
  /** Set by the first append that failed: every later append throws it again. */
  private failed: LogWriteError | null = null;
  /** The schema's compiled check (zodFastCheck.ts): true only for a record zod would accept. */
  private readonly check: ((v: unknown) => boolean) | null;
  /** A turn-batched writer's lines not yet written (`turnBatched`); null for a writer that writes each line at once. */
  private readonly held: string[] | null;

  private constructor(
    path: string,
    private readonly schema: S,
    private readonly write: WriteFn,
    /** false: `sync()` (and so `close()`) never fsyncs: for files recomputed whole from a seed (the synthetic data set). */
    private readonly durable: boolean,
    turnBatched: boolean,
    /** A turn-batched writer whose held lines are written before each of this writer's lines. */
    private readonly after: JsonlWriter<z.ZodTypeAny> | null,
  ) {
    this.held = turnBatched ? [] : null;
    this.path = path;
    this.check = fastCheckOf(schema);
    this.fd = openSync(path, "a+");
    this.repairedBytes = repairTornTail(this.fd);
  }

  /**
   * Opens (creating if needed) `path` for appending records validated by `schema`. `durable: false`
   * (default true) drops the fsyncs, as `writeFileAtomic`'s option does: only for a file that can be
   * recomputed whole (the synthetic data set), never for a run's logs.
   *
   * `turnBatched: true` holds the lines appended during one turn of the event loop and writes them
   * together, in one write(2), when the next turn starts (or earlier: `flush`, `sync`, `close`, or
   * an append to a writer opened with this one as `after`). Only for a file whose lines are claimed
   * by a record in another file written after them (a run's steps.jsonl: resume keeps a step only
   * when its episode's record is there): a kill can then lose only lines that resume drops anyway,
   * and a reader (`tail -f`) still sees each line within a turn of its append.
   */
  static open<S extends z.ZodTypeAny>(path: string, schema: S, io: { write?: WriteFn; durable?: boolean; turnBatched?: boolean; after?: JsonlWriter<z.ZodTypeAny> } = {}): JsonlWriter<S> {
    return new JsonlWriter(path, schema, io.write ?? defaultWrite, io.durable ?? true, io.turnBatched ?? false, io.after ?? null);
  }

  /** Validates `record` and appends it as one line. Throws InvalidRecordError naming the field. */
  append(record: z.input<S>): void {
    if (this.fd === null) throw new Error(`${basename(this.path)}: writer is closed`);
    if (this.failed !== null) throw this.failed;
    // The compiled check passes a conforming record without zod's copy; anything else gets zod's verdict.
    if (this.check === null || !this.check(record)) {
      const parsed = this.schema.safeParse(record);
      if (!parsed.success) throw new InvalidRecordError(`refusing to write an invalid line to ${basename(this.path)}: ${formatIssues(parsed.error, { max: 3 })}`);
    }
    // Serialise the caller's object (not zod's output) so extra fields survive even without passthrough.
    // Lone surrogates (a reply cut inside an emoji) become U+FFFD: the line stays JSON for every reader.
    // Keys never reach a log, whatever text carried them (a reply echoing the key, an error body): the
    // record's own JSON text proves almost every line clean in one scan (jsonMayHoldSecret); any other
    // line is redacted field by field and serialised again, so every line's bytes are what they were.
    const json = JSON.stringify(record);
    const text = jsonMayHoldSecret(json) ? stringifyWellFormed(redactDeep(record)) : wellFormedStringified(record, json);
    if (this.after !== null) this.after.flush();
    if (this.held === null) {
      this.writeOut(`${text}\n`);
      return;
    }
    if (this.held.length === 0) {
      heldWriters.add(this as JsonlWriter<z.ZodTypeAny>);
      if (!flushQueued) {
        flushQueued = true;
        setImmediate(flushHeldWriters);
      }
    }
    this.held.push(`${text}\n`);
  }

  /**
   * Writes a turn-batched writer's held lines now, in one write(2) (a no-op for any other writer).
   * Throws the LogWriteError of a failed write, as an append would.
   */
  flush(): void {
    if (this.held === null) return;
    // A failed batch throws here too, held lines or not: a record that claims its lines must not follow it.
    if (this.failed !== null) {
      this.held.length = 0;
      throw this.failed;
    }
    if (this.held.length === 0) return;
    const text = this.held.length === 1 ? this.held[0]! : this.held.join("");
    this.held.length = 0;
    if (this.fd === null) throw new Error(`${basename(this.path)}: writer is closed`);
    this.writeOut(text);
  }

  /** `flush` from the turn's end: a failure stays in `failed` for the next append or record to throw. */
  flushHeldQuietly(): void {
    try {
      this.flush();
    } catch {
      // kept in this.failed
    }
  }

  /** `text` (whole lines) appended in one write(2); on a short write, the file cut back and the writer failed. */
  private writeOut(text: string): void {
    const fd = this.fd!;
    let off = 0;
    try {
      // The text goes out as a string (no Buffer made in JavaScript); a regular file takes it whole in
      // one call, and only a short write makes the bytes to write the rest from.
      if (this.write === defaultWrite) {
        off = writeSync(fd, text);
        if (off === 0 && text.length > 0) throw Object.assign(new Error("write returned 0 bytes"), { code: "ENOSPC" });
        if (off >= text.length && off === Buffer.byteLength(text, "utf8")) {
          this.dirty = true;
          return;
        }
      }
      const buf = Buffer.from(text, "utf8");
      while (off < buf.length) {
        const n = this.write(fd, buf, off, buf.length - off);
        if (n <= 0) throw Object.assign(new Error("write returned 0 bytes"), { code: "ENOSPC" });
        off += n;
      }
    } catch (e) {
      // The size before this record: what is there now less the bytes this append wrote (writes are
      // synchronous, so nothing else of the process appended between). Asked of the file only on
      // failure: an fstat per line was a few percent of a run's CPU.
      this.failed = this.cutBack(off, e);
      throw this.failed;
    }
    this.dirty = true;
  }

  /** After a failed append: the file back to its last whole line, and the error that names why. */
  private cutBack(written: number, cause: unknown): LogWriteError {
    const code = (cause as { code?: unknown }).code;
    const why = typeof code === "string" ? code : cause instanceof Error ? cause.message : String(cause);
    let cut: string;
    try {
      const size = fstatSync(this.fd!).size - written;
      cut = `cut back to its last whole line (${size} bytes)`;
      ftruncateSync(this.fd!, size);
    } catch (e) {
      // The next open cuts a torn last line anyway (repairTornTail); say the cut is still owed.
      cut = `not cut back (${(e as { code?: string }).code ?? (e as Error).message}); the next run cuts its torn last line`;
    }
    const hint = why === "ENOSPC" || why === "EDQUOT" ? "the disk is full: free space, then rerun the same command to resume" : "fix the cause, then rerun the same command to resume";
    return new LogWriteError(`${this.path}: a record could not be written (${why}); the file was ${cut}; ${hint}`);
  }

  /** Flushes to stable storage (episode boundaries); a turn-batched writer writes its held lines first. */
  sync(): void {
    // A failed writer's error was thrown where it failed, and is thrown again at its next append.
    if (this.failed === null) this.flush();
    if (this.fd !== null && this.dirty && this.durable) {
      fsyncSync(this.fd);
      this.dirty = false;
    }
  }

  close(): void {
    if (this.fd === null) return;
    heldWriters.delete(this as JsonlWriter<z.ZodTypeAny>);
    try {
      this.sync();
    } finally {
      closeSync(this.fd);
      this.fd = null;
    }
  }
}

/** Writes a JSON document atomically after validating it with `schema` (`opts`: writeFileAtomic's). */
export function writeJsonAtomic<S extends z.ZodTypeAny>(path: string, schema: S, value: z.input<S>, opts: AtomicOptions = {}): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidRecordError(`refusing to write an invalid ${basename(path)}: ${formatIssues(parsed.error, { max: 3 })}`);
  writeFileAtomic(path, `${stringifyWellFormed(redactDeep(value), 2)}\n`, opts);
}
