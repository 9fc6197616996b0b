/**
 * Token counting with a real tokenizer (pure JS, nothing downloaded at run time). o200k_base is the
 * default (GPT-4o family); cl100k_base is available for older models. Used for the History ICL
 * context budget and for usage when an endpoint reports none.
 *
 * Bounded work on any text: byte-pair encoding is quadratic in the length of ONE
 * pre-token (the tokenizer's regex splits text into words, punctuation runs and whitespace runs, and
 * merges bytes inside each), so a reply of 200,000 `x` took 29 s and froze the process, turning other
 * runs' in-flight calls into false timeouts. A pre-token longer than MAX_PIECE characters is therefore
 * counted in MAX_PIECE slices: the count of such a run is then linear (and within a few tokens of the
 * exact one: real BPE never merges across ~100 characters of a run into one token anyway). Text with no
 * such pre-token, which is all ordinary text, is counted by one call of the library as before, so
 * its count is exactly the library's.
 */
import { countTokens as countCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import type { ChatMessage } from "./types.js";

export const TOKENIZERS = ["o200k", "cl100k"] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

/**
 * The longest pre-token counted whole. BPE on 256 characters costs ~0.05 ms; English words, numbers
 * (split in threes) and code punctuation are far shorter, so ordinary text never reaches it.
 */
export const MAX_PIECE = 256;

/**
 * Special-token text (`<|endoftext|>`) in outside text is counted as ordinary characters: the
 * library's default refuses it with an exception, which a model's reply must never be able to raise.
 */
const ORDINARY = { disallowedSpecial: new Set<string>() } as const;

const ENCODINGS = {
  o200k: { count: (t: string) => countO200k(t, ORDINARY), split: O200K_TOKEN_SPLIT_REGEX },
  cl100k: { count: (t: string) => countCl100k(t, ORDINARY), split: CL100K_TOKEN_SPLIT_REGEX },
} as const;

/** Where a slice of at most `max` code units ending at or before `end` may stop: never inside a surrogate pair. */
function sliceEnd(text: string, start: number, max: number): number {
  const end = Math.min(text.length, start + max);
  if (end < text.length && end > start + 1) {
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) return end - 1; // a high surrogate: keep its pair together
  }
  return end;
}

/**
 * The pre-tokenizer regex never sees more than WINDOW characters at once: on one run of millions of
 * letters it backtracks deep enough to overflow the stack (5 MB of CJK text throws RangeError).
 */
const WINDOW = 16_384;
/** A match ending this close to a window's end may be cut by it (a contraction suffix, a lookahead). */
const MARGIN = 8;

/** Visits the pre-tokens of `text` as [start, end) spans, scanning it a window at a time. */
function forEachPiece(text: string, split: RegExp, visit: (start: number, end: number) => void): void {
  let pos = 0;
  while (pos < text.length) {
    const winEnd = sliceEnd(text, pos, WINDOW);
    const last = winEnd === text.length;
    const window = text.slice(pos, winEnd);
    let next = winEnd;
    let accepted = false;
    for (const m of window.matchAll(split)) {
      const s = pos + m.index;
      const e = s + m[0].length;
      if (!last && e > winEnd - MARGIN) {
        // Possibly cut by the window: scan it again from its start in the next window, unless nothing
        // before it was accepted (one pre-token fills the window: a long run, counted in slices anyway).
        if (accepted) next = s;
        else {
          visit(s, e);
          next = e;
        }
        break;
      }
      visit(s, e);
      accepted = true;
    }
    pos = next;
  }
}

/**
 * BPE merges inside one pre-token and never across two, so a text's count is the sum of its
 * pre-tokens' counts, and those repeat (board rows, cell glyphs, the same words at every step): each
 * distinct pre-token is encoded once. Re-encoding them was most of a History run's token counting.
 * Bounded: a long run must not keep every number it ever printed.
 */
const PIECE_MEMO: Record<TokenizerName, Map<string, number>> = { o200k: new Map(), cl100k: new Map() };
const PIECE_MEMO_MAX = 200_000;

function pieceCount(enc: { count: (t: string) => number }, tokenizer: TokenizerName, piece: string): number {
  const memo = PIECE_MEMO[tokenizer];
  let n = memo.get(piece);
  if (n === undefined) {
    n = enc.count(piece);
    if (memo.size >= PIECE_MEMO_MAX) memo.clear();
    memo.set(piece, n);
  }
  return n;
}

export function countTokens(text: string, tokenizer: TokenizerName = "o200k"): number {
  return countTokensJoinable(text, tokenizer).tokens;
}

/**
 * A line break followed by 8 whitespace characters that are not line breaks: the one shape where a
 * WINDOW edge can make forEachPiece end a pre-token earlier than the regex on the whole text would
 * (`\s*[\r\n]+` backtracks to the last line break inside the window). Text without it is split by
 * forEachPiece exactly as the tokenizer splits it.
 */
const WINDOW_HAZARD = /[\r\n][^\S\r\n]{8}/u;

/**
 * countTokens(text), and whether that count may be ADDED to a neighbour's (joinsCleanly): the text
 * had no pre-token over MAX_PIECE (so its count is the library's own, a sum over the tokenizer's
 * pre-tokens) and no WINDOW_HAZARD (so joining it into a longer text cannot move a window edge onto
 * a different split).
 */
export function countTokensJoinable(text: string, tokenizer: TokenizerName = "o200k"): { tokens: number; joinable: boolean } {
  if (text.length === 0) return { tokens: 0, joinable: true };
  const enc = ENCODINGS[tokenizer];
  if (text.length <= MAX_PIECE) return { tokens: enc.count(text), joinable: !WINDOW_HAZARD.test(text) };
  const hazard = WINDOW_HAZARD.test(text);
  let total = 0;
  let pieces = 0; // the pre-tokens' memoised counts, summed: the library's count when no pre-token is long
  let from = 0; // start of the text not yet counted
  let long = false;
  forEachPiece(text, enc.split, (start, end) => {
    if (end - start <= MAX_PIECE) {
      if (!long && !hazard) pieces += pieceCount(enc, tokenizer, text.slice(start, end));
      return;
    }
    long = true;
    if (start > from) total += enc.count(text.slice(from, start));
    for (let i = start; i < end; ) {
      const e = sliceEnd(text, i, MAX_PIECE);
      total += enc.count(text.slice(i, Math.min(e, end)));
      i = Math.min(e, end);
    }
    from = end;
  });
  // With a window hazard forEachPiece may split differently from the tokenizer: the library counts.
  if (!long) return { tokens: hazard ? enc.count(text) : pieces, joinable: !hazard };
  if (from < text.length) total += enc.count(text.slice(from));
  return { tokens: total, joinable: false };
}

/**
 * Whether countTokens(left + right) = countTokens(left) + countTokens(right) when both counts are
 * joinable: `left` ends with a line break and `right` starts with neither whitespace nor `/`. Why:
 * both tokenizers' split regexes (o200k, cl100k) look only forward, and the only pre-tokens that can
 * hold a line break are whitespace runs (which stop at the non-whitespace `right[0]` and end on the
 * same line break with or without `right`: `\s*[\r\n]+`, cl100k's `\s+$` / `\s*[\r\n]`) and a
 * punctuation run's `[\r\n/]*` tail (which stops at `right[0]`). So the pre-tokens of the joined
 * text are those of `left` followed by those of `right`, and BPE counts each pre-token on its own.
 * tests/models/tokensJoin.test.ts checks it on random texts built to break it.
 */
export function joinsCleanly(left: string, right: string): boolean {
  return left.endsWith("\n") && right.length > 0 && !/^[\s/]/u.test(right);
}

/** Per-message framing overhead of chat formats (role markers); a small constant, as OpenAI documents. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function countMessageTokens(messages: readonly ChatMessage[], tokenizer: TokenizerName = "o200k"): number {
  return messages.reduce((n, m) => n + MESSAGE_OVERHEAD_TOKENS + countTokens(m.content, tokenizer), 3);
}
