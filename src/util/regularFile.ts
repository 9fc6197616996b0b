/**
 * Opening a file that came from outside (a data directory's logs, a manifest) so that no file can
 * hang, flood or leak a reader: only a REGULAR file is read, and a symbolic link only when it stays
 * inside the folder the caller names. The type is checked on the open descriptor (fstat), and the open
 * itself is non-blocking, so a FIFO put in a log's place is refused instead of blocking the reader
 * forever; a device (/dev/zero, which never ends) or a directory is refused the same way, each with
 * an error naming the path.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from "node:fs";
import { sep } from "node:path";

/** A file a reader refuses to read (not a regular file, a link out of the data, unreadable), named. */
export class UnreadableFileError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = "UnreadableFileError";
  }
}

/** What `fstat` says a non-regular file is, in words. */
function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Why an open failed, in words a user can act on. */
function causeOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ELOOP") return "a symbolic link loop";
  if (code === "ENOENT") return "does not exist (a dangling symbolic link?)";
  if (code === "EISDIR") return "a directory, expected a file";
  return `cannot be opened (${code ?? (e as Error).message})`;
}

/**
 * Opens `path` for reading and returns its descriptor, or throws UnreadableFileError naming it: for a
 * symbolic link whose target lies outside `within` (when given), and for anything but a regular file.
 * The caller closes the descriptor.
 */
export function openRegularFile(path: string, within?: string): number {
  let linked = false;
  try {
    linked = lstatSync(path).isSymbolicLink();
  } catch (e) {
    throw new UnreadableFileError(path, causeOf(e));
  }
  if (linked && within !== undefined) {
    let target: string;
    let root: string;
    try {
      target = realpathSync(path);
      root = realpathSync(within);
    } catch (e) {
      throw new UnreadableFileError(path, `a symbolic link that ${causeOf(e)}`);
    }
    if (!inside(target, root)) throw new UnreadableFileError(path, `a symbolic link to ${target}, outside ${within}: refused (copy the file in instead)`);
  }
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would wait for a writer forever; regular files ignore it.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    throw new UnreadableFileError(path, causeOf(e));
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new UnreadableFileError(path, `${kindOf(st)}, not a regular file: refused`);
  }
  return fd;
}

/** The longest JSON file (a manifest, a settings file) `readRegularText` reads: far above any the kit writes. */
export const MAX_JSON_FILE_BYTES = 16 * 1024 * 1024;

/**
 * The whole text of a regular file (checked as `openRegularFile` does), at most `maxBytes` long: a
 * longer file is refused by name before it is read, so a manifest cannot exhaust memory.
 */
export function readRegularText(path: string, opts: { within?: string; maxBytes?: number } = {}): string {
  const max = opts.maxBytes ?? MAX_JSON_FILE_BYTES;
  const fd = openRegularFile(path, opts.within);
  try {
    const size = fstatSync(fd).size;
    if (size > max) throw new UnreadableFileError(path, `${size} bytes, over the ${max}-byte limit for this file: refused`);
    const buf = Buffer.alloc(size);
    let off = 0;
    try {
      while (off < size) {
        const n = readSync(fd, buf, off, size - off, null);
        if (n === 0) break;
        off += n;
      }
    } catch (e) {
      throw new UnreadableFileError(path, `read failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    return buf.toString("utf8", 0, off);
  } finally {
    closeSync(fd);
  }
}
