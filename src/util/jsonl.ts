/**
 * The one JSONL line reader and its torn-line contract, shared by the analysis reader and resume.
 *
 * Writers append a line and its newline in ONE write(2), so a crash can tear only the last line. The
 * contract: every non-blank line is parsed as JSON and yielded in file order with its 1-based line
 * number and raw text; the LAST non-blank line is a torn write when it does not parse (or, with
 * `unterminatedIsTorn`, when it lacks its newline): it is not yielded, it is reported through
 * `onTorn`. An unparsable line anywhere else throws JsonlSyntaxError, unless the caller takes it
 * through `onDamaged`: line-atomic writes cannot produce it, but a full disk under an older kit
 * could (a short write with the next record glued on), so readers that can say so out loud (a
 * warning, a quarantine file) skip it instead of refusing the whole file.
 *
 * The file is read in fixed-size chunks, and each line is parsed once, in time linear in its length.
 * A line longer than MAX_LINE_BYTES is never held: its bytes are skipped as they arrive and it is a
 * damaged line ("longer than the cap"), so memory is bounded by the cap, never by the file or a line.
 * Only a regular file is opened (src/util/regularFile.ts): a FIFO, a device or a directory in a log's
 * place, or a symbolic link out of `within`, is an UnreadableFileError naming the path.
 */
import { closeSync, readSync } from "node:fs";
import { dirname } from "node:path";
import { openRegularFile, UnreadableFileError } from "./regularFile.js";

/**
 * The longest line any JSONL reader takes: a step holds at most one reply body (capped at 4 MiB by
 * src/models/httpFetch.ts, reasoning included) plus its observation, so 64 MiB leaves room for JSON
 * escaping. A longer line is skipped as damaged, named with its length.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** How much of an overlong line is kept as its text (what a quarantine file shows of it). */
const OVERLONG_KEPT_BYTES = 4096;

/** One parsed line. */
export interface JsonlLine {
  /** 1-based line number in the file (blank lines count). */
  line: number;
  /** The line's text without its newline (what a rewrite puts back). */
  text: string;
  /** JSON.parse of the text. */
  json: unknown;
}

/** A torn last line that was not yielded. */
export interface TornLine {
  line: number;
  /** Why it counts as torn: the JSON error, or the missing newline. */
  detail: string;
}

/** A line that does not parse and is not the last one. */
export class JsonlSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = "JsonlSyntaxError";
  }
}

export interface JsonlReadOptions {
  /** Take a last line without its newline for torn even if it parses (resume; default false). */
  unterminatedIsTorn?: boolean;
  /** Told about the torn last line, if any. */
  onTorn?: (torn: TornLine) => void;
  /** Told about an unparsable line that is not the last (then skipped); absent: such a line throws. */
  onDamaged?: (damaged: TornLine & { text: string }) => void;
  /** Chunk size in bytes (tests use a tiny one to cross chunk borders). */
  chunkBytes?: number;
  /** The longest line taken (default MAX_LINE_BYTES); a longer one is damaged (tests use a small cap). */
  maxLineBytes?: number;
  /** A symbolic link is followed only when its target lies inside this folder (default: the file's own folder). */
  within?: string;
}

/**
 * Raw lines with their numbers and whether each ended in a newline, read in chunks. Each chunk's
 * complete lines are decoded as one string and split at "\n" (a newline byte never occurs inside a
 * UTF-8 sequence, so a line decodes to the same text as alone); the bytes of an unfinished line are
 * carried into the next chunk, up to `maxLine` bytes: past that the line's bytes are counted and
 * dropped, and it comes out with `overlong` (its length) and only its first bytes as text.
 */
function* rawLines(path: string, chunkBytes: number, maxLine: number, within: string): Generator<{ text: string; line: number; terminated: boolean; overlong?: number }> {
  const fd = openRegularFile(path, within);
  try {
    const buf = Buffer.alloc(chunkBytes);
    let carry: Buffer[] = [];
    let carried = 0;
    // While a line runs over the cap: its first bytes and its length so far.
    let over: { head: Buffer; bytes: number } | null = null;
    let line = 0;
    const overlongLine = (end: number, terminated: boolean) => {
      const o = over as { head: Buffer; bytes: number };
      over = null;
      return { text: o.head.toString("utf8"), line: ++line, terminated, overlong: o.bytes + end };
    };
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        throw new UnreadableFileError(path, `read failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      if (n === 0) break;
      let from = 0;
      if (over !== null) {
        const nl = buf.indexOf(0x0a, 0);
        if (nl < 0 || nl >= n) {
          (over as { bytes: number }).bytes += n;
          continue;
        }
        yield overlongLine(nl, true);
        from = nl + 1;
      }
      const lastNl = buf.lastIndexOf(0x0a, n - 1);
      if (lastNl < from) {
        carried += n - from;
        if (carried > maxLine) {
          const head = Buffer.concat([...carry, buf.subarray(from, n)]).subarray(0, OVERLONG_KEPT_BYTES);
          over = { head: Buffer.from(head), bytes: carried };
          carry = [];
          carried = 0;
        } else carry.push(Buffer.from(buf.subarray(from, n)));
        continue;
      }
      let text: string;
      if (carry.length > 0) {
        const first = buf.indexOf(0x0a, from);
        if (carried + (first - from) > maxLine) {
          // The carried line ends in this chunk but is over the cap: skip it, keep the rest.
          over = { head: Buffer.from(Buffer.concat(carry).subarray(0, OVERLONG_KEPT_BYTES)), bytes: carried };
          carry = [];
          carried = 0;
          yield overlongLine(first - from, true);
          from = first + 1;
        }
      }
      if (from > lastNl) {
        text = "";
      } else if (carry.length > 0) {
        carry.push(buf.subarray(from, lastNl));
        text = Buffer.concat(carry).toString("utf8");
        carry = [];
        carried = 0;
      } else text = buf.toString("utf8", from, lastNl);
      if (from <= lastNl) {
        for (let start = 0; ; ) {
          const nl = text.indexOf("\n", start);
          if (nl < 0) {
            yield { text: start === 0 ? text : text.slice(start), line: ++line, terminated: true };
            break;
          }
          yield { text: text.slice(start, nl), line: ++line, terminated: true };
          start = nl + 1;
        }
      }
      if (lastNl + 1 < n) {
        carry.push(Buffer.from(buf.subarray(lastNl + 1, n)));
        carried = n - lastNl - 1;
        if (carried > maxLine) {
          over = { head: Buffer.from(buf.subarray(lastNl + 1, Math.min(n, lastNl + 1 + OVERLONG_KEPT_BYTES))), bytes: carried };
          carry = [];
          carried = 0;
        }
      }
    }
    if (over !== null) yield overlongLine(0, false);
    else if (carry.length > 0) yield { text: Buffer.concat(carry).toString("utf8"), line: ++line, terminated: false };
  } finally {
    closeSync(fd);
  }
}

/** The parsed lines of a JSONL file, under the torn-line contract above. */
export function* readJsonlLines(path: string, opts: JsonlReadOptions = {}): Generator<JsonlLine> {
  // A suspicious line is only judged once we know whether a non-blank line follows it.
  let held: { line: number; text: string; json: unknown; problem: string | null } | null = null;
  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES;
  // A chunk never exceeds the cap, so a line that fits in one chunk is within it (only carried lines are measured).
  const chunk = Math.max(1, Math.min(opts.chunkBytes ?? 1 << 16, maxLine));
  for (const raw of rawLines(path, chunk, maxLine, opts.within ?? dirname(path))) {
    if (raw.overlong !== undefined) {
      // Never a torn write (a write is one line): damaged wherever it stands.
      if (held !== null) {
        if (held.problem === null) yield { line: held.line, text: held.text, json: held.json };
        else if (opts.onDamaged) opts.onDamaged({ line: held.line, detail: held.problem, text: held.text });
        else throw new JsonlSyntaxError(path, held.line, held.problem);
        held = null;
      }
      const detail = `a line of ${raw.overlong} bytes, longer than the ${maxLine}-byte line cap`;
      if (opts.onDamaged) opts.onDamaged({ line: raw.line, detail, text: raw.text });
      else throw new JsonlSyntaxError(path, raw.line, detail);
      continue;
    }
    if (raw.text.trim().length === 0) continue;
    if (held !== null) {
      // Only the last line can lack its newline, so a problem here is always a JSON error.
      if (held.problem === null) yield { line: held.line, text: held.text, json: held.json };
      else if (opts.onDamaged) opts.onDamaged({ line: held.line, detail: held.problem, text: held.text });
      else throw new JsonlSyntaxError(path, held.line, held.problem);
      held = null;
    }
    let json: unknown;
    let problem: string | null = null;
    try {
      json = JSON.parse(raw.text);
    } catch (e) {
      json = undefined;
      problem = `invalid JSON (${(e as Error).message})`;
    }
    if (problem === null && !raw.terminated && opts.unterminatedIsTorn) problem = "no newline at the end (an interrupted write)";
    held = { line: raw.line, text: raw.text, json, problem };
  }
  if (held === null) return;
  if (held.problem !== null) opts.onTorn?.({ line: held.line, detail: held.problem });
  else yield { line: held.line, text: held.text, json: held.json };
}
