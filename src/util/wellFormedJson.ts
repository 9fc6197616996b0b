/**
 * JSON text that every strict reader accepts. JavaScript strings may hold a lone UTF-16 surrogate
 * (a model reply cut in the middle of an emoji, a server's broken escape); JSON.stringify writes it
 * as `\udXXX`, which strict parsers (jq, serde, Go) reject, so one bad reply made a whole steps.jsonl
 * unreadable outside the kit. At the writing edge each lone surrogate becomes U+FFFD, the Unicode
 * replacement character: the file is valid UTF-8 and valid JSON for every reader, and the rest of
 * the text is kept exactly.
 */

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with each lone surrogate replaced by U+FFFD (linear: one pass, one-character look-arounds). */
export function wellFormed(text: string): string {
  return text.replace(LONE, "\ufffd");
}

function fixValue(_key: string, value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.some((k) => wellFormed(k) !== k)) return Object.fromEntries(keys.map((k) => [wellFormed(k), (value as Record<string, unknown>)[k]]));
  }
  return value;
}

/** JSON.stringify whose output never holds a lone surrogate (see above); same bytes otherwise. */
export function stringifyWellFormed(value: unknown, space?: number): string {
  return wellFormedStringified(value, JSON.stringify(value, null, space), space);
}

/** stringifyWellFormed(value, space), given `text`: the caller's JSON.stringify(value, null, space) (no second serialisation of a clean value). */
export function wellFormedStringified(value: unknown, text: string, space?: number): string {
  // JSON.stringify escapes exactly the lone surrogates (a pair is written as is), so the escape's
  // absence proves the common case clean in one scan; only then is a second pass made.
  if (text === undefined || !/\\u[dD][89abcdefABCDEF]/.test(text)) return text;
  return JSON.stringify(value, fixValue, space);
}
