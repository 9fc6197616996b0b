/**
 * Atomic file replacement, the one implementation: content goes to a temporary file in the target's
 * folder (so the rename cannot cross filesystems), then a rename puts it in place. A crash leaves
 * either the old file or the new one, never a mix, plus at most a stale temporary that
 * `isAtomicTemp` recognises so the next run can remove it.
 */
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { pidIsAlive } from "./pid.js";

let tempCounter = 0;

/** `.<name>.tmp-<pid>-<n>` beside `path`: pid and counter keep concurrent writers apart. */
export function atomicTempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${++tempCounter}`);
}

/** Whether a file name is a temporary of this module (also the `.<name>.tmp-<pid>` form of older versions). */
export function isAtomicTemp(name: string): boolean {
  return /^\..+\.tmp-\d+(-\d+)?$/.test(name);
}

/**
 * Removes the temporaries that killed writers of `paths` left in their folders: `.<name>.tmp-<pid>…`
 * of exactly those file names, and only when that pid is no longer running (a live pid may be
 * another writer at work; our own pid is a previous process's, pids being reused). A folder that
 * holds no run lock (build-sft's output folder) is cleaned this way; a run directory, whose lock
 * rules out other writers, removes every temporary. Returns the removed paths.
 */
export function removeDeadWritersTemps(paths: readonly string[]): string[] {
  const byDir = new Map<string, Set<string>>();
  for (const p of paths) {
    const names = byDir.get(dirname(p)) ?? new Set<string>();
    names.add(basename(p));
    byDir.set(dirname(p), names);
  }
  const removed: string[] = [];
  for (const [dir, names] of byDir) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) {
      const m = /^\.(.+)\.tmp-(\d+)(?:-\d+)?$/.exec(f);
      if (!m || !names.has(m[1]!)) continue;
      const pid = Number(m[2]);
      if (pid !== process.pid && pidIsAlive(pid)) continue;
      try {
        unlinkSync(join(dir, f));
        removed.push(join(dir, f));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
  }
  return removed;
}

/** A write that failed, naming the file and the cause in words ("disk full writing X"). */
export class WriteFailedError extends Error {
  constructor(
    readonly file: string,
    readonly code: string | undefined,
    /** The cause as the system said it (the message adds the file and the cause in words). */
    readonly detail: string,
  ) {
    super(`${WRITE_CAUSES[code ?? ""] ?? "could not write"} writing ${file} (${detail})`);
    this.name = "WriteFailedError";
  }
}

const WRITE_CAUSES: Record<string, string> = {
  ENOSPC: "disk full",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only filesystem",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EIO: "input/output error",
  EFBIG: "file too large",
  ENOENT: "folder missing",
  ENOTDIR: "not a folder",
  EISDIR: "a directory is in the way",
};

/** `e` as a WriteFailedError naming `file` (an error that is one already, or not a system error, is kept). */
export function namedWriteError(file: string, e: unknown): unknown {
  if (e instanceof WriteFailedError) return e;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== "string") return e;
  return new WriteFailedError(file, code, (e as Error).message);
}

/** Writes all of `data`: write(2) may write less than asked (a filling disk), so it loops until done or an error. */
export function writeAllSync(fd: number, data: string | Buffer): void {
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let off = 0;
  while (off < buf.length) {
    const n = writeSync(fd, buf, off, buf.length - off);
    if (n <= 0) throw Object.assign(new Error("no space left on device, write returned 0"), { code: "ENOSPC" });
    off += n;
  }
}

function writeAll(fd: number, text: string): void {
  writeAllSync(fd, text);
}

/**
 * Writes `data` to `path` (not atomically: for files inside a folder that is itself swapped into place
 * whole, such as a report's staging folder), naming the file and the cause on failure.
 */
export async function writeFileNamed(path: string, data: string | Uint8Array): Promise<void> {
  const { writeFile } = await import("node:fs/promises");
  try {
    await writeFile(path, data);
  } catch (e) {
    throw namedWriteError(path, e);
  }
}

/** fsync on the folder makes a rename durable; some filesystems refuse it, and the rename is still atomic. */
function syncDir(dir: string): void {
  try {
    const dfd = openSync(dir, "r");
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // not supported here
  }
}

export interface AtomicOptions {
  /**
   * fsync the data and the folder before and after the rename (default true): the new content
   * survives a power loss. A cache whose entries can be recomputed turns it off to save the syncs.
   */
  durable?: boolean;
}

/** Replaces `path` with `content` atomically. */
export function writeFileAtomic(path: string, content: string | Buffer, opts: AtomicOptions = {}): void {
  const durable = opts.durable ?? true;
  const tmp = atomicTempPath(path);
  let fd: number;
  try {
    fd = openSync(tmp, "w");
  } catch (e) {
    throw namedWriteError(path, e);
  }
  try {
    writeAllSync(fd, content);
    if (durable) fsyncSync(fd);
    closeSync(fd);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    unlinkSync(tmp);
    throw namedWriteError(path, e);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    unlinkSync(tmp);
    throw namedWriteError(path, e);
  }
  if (durable) syncDir(dirname(path));
}

/**
 * A file written in parts that appears at `path` whole on `commit()`, or not at all: `abort()` (or a
 * failed write, which aborts) leaves the previous file, if any, untouched and removes the temporary.
 * Every failure is a WriteFailedError naming `path`. Opening it first removes the temporaries of
 * `path` that killed writers left (removeDeadWritersTemps).
 */
export class AtomicFile {
  private fd: number | null;
  readonly tmp: string;
  constructor(readonly path: string) {
    removeDeadWritersTemps([path]);
    this.tmp = atomicTempPath(path);
    try {
      this.fd = openSync(this.tmp, "w");
    } catch (e) {
      throw namedWriteError(path, e);
    }
  }
  write(data: string | Buffer): void {
    if (this.fd === null) throw new Error(`${this.path}: write after commit or abort`);
    try {
      writeAllSync(this.fd, data);
    } catch (e) {
      this.abort();
      throw namedWriteError(this.path, e);
    }
  }
  commit(): void {
    if (this.fd === null) throw new Error(`${this.path}: commit after commit or abort`);
    try {
      fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = null;
      renameSync(this.tmp, this.path);
    } catch (e) {
      this.abort();
      throw namedWriteError(this.path, e);
    }
    syncDir(dirname(this.path));
  }
  abort(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // closed already
      }
    }
    this.fd = null;
    if (existsSync(this.tmp)) unlinkSync(this.tmp);
  }
}

/**
 * A file written line by line that appears at `path` only on `commit()` (atomically, durably);
 * `abort()` leaves the previous file, if any, untouched. Failures name the file (AtomicFile).
 */
export class AtomicLineFile extends AtomicFile {
  override write(line: string): void {
    super.write(`${line}\n`);
  }
}

/**
 * Creates `path` with `content` only if no file is there yet, atomically and whole: the content goes
 * to a temporary first, then is hard-linked into place (link(2) fails with EEXIST when the name is
 * taken). Of many racing creators exactly one gets true; a reader never sees a half-written file.
 */
export function createFileExclusive(path: string, content: string): boolean {
  const tmp = atomicTempPath(path);
  const fd = openSync(tmp, "w");
  try {
    writeAll(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    syncDir(dirname(path));
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === "EEXIST") return false;
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}
