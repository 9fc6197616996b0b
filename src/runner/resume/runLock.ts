/**
 * A lock per run directory: two processes appending to the same run would interleave episodes.
 *
 * `<dir>/.lock` holds the owner's pid. It is created with its content in one step (a temporary file
 * hard-linked into place, which fails if the lock exists), so no reader ever sees an empty lock.
 * A lock whose owner is dead (kill -9) is taken over, and the takeover is atomic (with
 * stale locks in 42 run directories and two identical runs started at once, both ran one directory
 * in 1 of 8 trials, because each removed the stale lock and the second removed the first's new one):
 *
 *   to replace a stale lock holding pid P, a process first takes the marker `.lock.takeover-P`
 *   (the same kind of lock, one per stale pid); holding it, it re-reads `.lock` and removes it only
 *   if it still holds P. Nobody else can change a lock that holds P in the meantime: its owner is
 *   dead, and replacing it needs the marker. Then it frees the marker and competes for `.lock` as
 *   any starter does; a slower process that still believes P is there gets the marker later, sees
 *   the new owner, and stops.
 *
 * A marker left by a process killed during its takeover is itself a stale lock, replaced the same
 * way (`.lock.takeover-P.takeover-Q`).
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { lockPath } from "../../logs/runDir.js";
import { pidIsAlive } from "../../util/pid.js";

const held = new Set<string>();

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

let tempCounter = 0;

/** Creates `path` holding our pid, atomically with its content; false when it already exists. */
function createWithPid(path: string): boolean {
  const tmp = `${path}.new-${process.pid}-${++tempCounter}`;
  writeFileSync(tmp, `${process.pid}\n`);
  try {
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}

/** The pid a lock file holds; null when the file is gone; NaN when it holds no pid. */
function ownerOf(path: string): number | null {
  try {
    return Number(readFileSync(path, "utf8").trim());
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

function isLive(pid: number): boolean {
  // Our own pid in a lock we do not hold is a previous process's (pids are reused, e.g. in containers).
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidIsAlive(pid);
}

/** Deepest marker chain followed before giving up (each level is one process killed mid-takeover). */
const MAX_DEPTH = 8;
/** Attempts at one level; a live marker holder finishes its takeover within milliseconds. */
const MAX_ATTEMPTS = 400;

/**
 * Takes the lock at `path`: true when taken; the live owner's pid when another live process holds it.
 * `depth` > 0 for takeover markers, which are waited for (their holder is mid-takeover) instead of
 * being reported.
 */
function take(path: string, depth: number): true | number {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (createWithPid(path)) return true;
    const pid = ownerOf(path);
    if (pid === null) continue; // released meanwhile: compete again
    if (isLive(pid)) {
      if (depth === 0) return pid;
      sleepSync(2); // a marker's holder is finishing its takeover
      continue;
    }
    if (depth >= MAX_DEPTH) throw new Error(`cannot take over ${path}: too many interrupted takeovers (remove ${path}.takeover-* files)`);
    const marker = `${path}.takeover-${Number.isFinite(pid) ? pid : "invalid"}`;
    if (take(marker, depth + 1) !== true) continue;
    try {
      // Holding the marker, nobody else can replace a lock that still holds `pid`.
      const now = ownerOf(path);
      if (now !== null && (now === pid || (Number.isNaN(now) && Number.isNaN(pid)))) unlinkSync(path);
    } finally {
      unlinkSync(marker);
    }
  }
  throw new Error(`cannot lock ${path}: it kept changing hands`);
}

/**
 * Takes `<dir>/.lock` (holding our pid). A lock left by a dead process (kill -9) is taken over
 * atomically; a lock held by a live process is an error naming it.
 */
export function acquireRunLock(dir: string): () => void {
  const path = lockPath(dir);
  if (held.has(path)) throw new Error(`run directory ${dir} is already being run by this process`);
  const got = take(path, 0);
  if (got !== true) throw new Error(`run directory ${dir} is in use by process ${got} (remove ${path} if that is wrong)`);
  held.add(path);
  return () => {
    held.delete(path);
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  };
}
