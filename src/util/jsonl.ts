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
 * The file is read in fixed-size chunks (memory is bounded by the longest line, never the file), and
 * each line is parsed once, in time linear in its length.
 */
import { closeSync, openSync, readSync } from "node:fs";

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
}

/**
 * Raw lines with their numbers and whether each ended in a newline, read in chunks. Each chunk's
 * complete lines are decoded as one string and split at "\n" (a newline byte never occurs inside a
 * UTF-8 sequence, so a line decodes to the same text as alone); the bytes of an unfinished line are
 * carried into the next chunk.
 */
function* rawLines(path: string, chunkBytes: number): Generator<{ text: string; line: number; terminated: boolean }> {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(chunkBytes);
    let carry: Buffer[] = [];
    let line = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const lastNl = buf.lastIndexOf(0x0a, n - 1);
      if (lastNl < 0) {
        carry.push(Buffer.from(buf.subarray(0, n)));
        continue;
      }
      let text: string;
      if (carry.length > 0) {
        carry.push(buf.subarray(0, lastNl));
        text = Buffer.concat(carry).toString("utf8");
        carry = [];
      } else text = buf.toString("utf8", 0, lastNl);
      for (let start = 0; ; ) {
        const nl = text.indexOf("\n", start);
        if (nl < 0) {
          yield { text: start === 0 ? text : text.slice(start), line: ++line, terminated: true };
          break;
        }
        yield { text: text.slice(start, nl), line: ++line, terminated: true };
        start = nl + 1;
      }
      if (lastNl + 1 < n) carry.push(Buffer.from(buf.subarray(lastNl + 1, n)));
    }
    if (carry.length > 0) yield { text: Buffer.concat(carry).toString("utf8"), line: ++line, terminated: false };
  } finally {
    closeSync(fd);
  }
}

/** The parsed lines of a JSONL file, under the torn-line contract above. */
export function* readJsonlLines(path: string, opts: JsonlReadOptions = {}): Generator<JsonlLine> {
  // A suspicious line is only judged once we know whether a non-blank line follows it.
  let held: { line: number; text: string; json: unknown; problem: string | null } | null = null;
  for (const raw of rawLines(path, opts.chunkBytes ?? 1 << 16)) {
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
