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

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
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
export function writeFileAtomic(path: string, content: string, opts: AtomicOptions = {}): void {
  const durable = opts.durable ?? true;
  const tmp = atomicTempPath(path);
  const fd = openSync(tmp, "w");
  try {
    writeAll(fd, content);
    if (durable) fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
  if (durable) syncDir(dirname(path));
}

/**
 * A file written line by line that appears at `path` only on `commit()` (atomically, durably);
 * `abort()` leaves the previous file, if any, untouched.
 */
export class AtomicLineFile {
  private fd: number | null;
  readonly tmp: string;
  constructor(readonly path: string) {
    this.tmp = atomicTempPath(path);
    this.fd = openSync(this.tmp, "w");
  }
  write(line: string): void {
    if (this.fd === null) throw new Error(`${this.path}: write after commit or abort`);
    writeAll(this.fd, `${line}\n`);
  }
  commit(): void {
    if (this.fd === null) throw new Error(`${this.path}: commit after commit or abort`);
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
    renameSync(this.tmp, this.path);
    syncDir(dirname(this.path));
  }
  abort(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    if (existsSync(this.tmp)) unlinkSync(this.tmp);
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

