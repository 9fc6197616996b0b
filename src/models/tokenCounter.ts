/**
 * Memoised countTokens: pieces repeat across steps, episodes and checkpoints. A message that opens with
 * a recently rendered joined text (History's experience: it differs from the last one only in its
 * observation, i.e. at every episode's first step and at every cut) is counted from its parts, the
 * pieces' counts added, where tokens.ts's joinsCleanly proves the sum equals the whole text's count:
 * re-tokenising ~100k tokens of experience per episode was a quarter of a History run's CPU.
 */
import { countTokensJoinable, joinsCleanly, MESSAGE_OVERHEAD_TOKENS, type TokenizerName } from "./tokens.js";
import type { ChatMessage } from "./types.js";

/**
 * The joined texts rendered lately (a message opening `open`, then `text`, then a line break and the
 * rest), each with its non-empty pieces (joined by "\n\n" they are the text). A few suffice: the
 * concurrent episodes of a run sit at one or two cuts of one snapshot.
 */
const RECENT_JOINED = 8;
const recentJoined: { open: string; text: string; pieces: readonly string[] }[] = [];

/** Remembers a joined text and its pieces (the caller checked that the pieces are the text byte for byte). */
export function rememberJoinedText(open: string, text: string, pieces: readonly string[]): void {
  recentJoined.unshift({ open, text, pieces });
  if (recentJoined.length > RECENT_JOINED) recentJoined.pop();
}

export class TokenCounter {
  /** tokens * 2 + (1 when countTokensJoinable said joinable). */
  private readonly cache = new Map<string, number>();
  constructor(readonly tokenizer: TokenizerName) {}

  count(text: string): number {
    return Math.floor(this.entry(text) / 2);
  }

  private entry(text: string): number {
    let v = this.cache.get(text);
    if (v === undefined) {
      const joined = this.joinedMessage(text);
      if (joined !== undefined) v = joined * 2;
      else {
        const c = countTokensJoinable(text, this.tokenizer);
        v = c.tokens * 2 + (c.joinable ? 1 : 0);
      }
      // Bounded: long runs must not keep every observation forever.
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(text, v);
    }
    return v;
  }

  /**
   * countTokens(text) as the sum of its parts' counts, when `text` is a remembered opening, then its
   * joined text, then a line break and the rest; undefined when it is not, or when a join is not
   * provably exact (then the caller counts the whole text).
   */
  private joinedMessage(text: string): number | undefined {
    for (const e of recentJoined) {
      if (!text.startsWith(e.open)) continue;
      const at = e.open.length;
      const n = e.text.length;
      if (text.length <= at + n + 1 || text.charCodeAt(at + n) !== 10 || !text.startsWith(e.text, at)) continue;
      const last = e.pieces.length - 1;
      const segments = [e.open, ...e.pieces.map((p, i) => (i < last ? `${p}\n\n` : `${p}\n`)), text.slice(at + n + 1)];
      let total = 0;
      for (let i = 0; i < segments.length; i++) {
        const v = this.entry(segments[i]!);
        if (v % 2 === 0 || (i > 0 && !joinsCleanly(segments[i - 1]!, segments[i]!))) return undefined;
        total += Math.floor(v / 2);
      }
      return total;
    }
    return undefined;
  }

  private readonly numberedCounts: number[] = [];
  /**
   * count(textOf(n)), memoised by n: for one family of numbered texts per counter (History's
   * "[... n later steps omitted]" marker, which the fit loop asks for at every step).
   */
  numbered(n: number, textOf: (n: number) => string): number {
    let c = this.numberedCounts[n];
    if (c === undefined) {
      c = this.count(textOf(n));
      if (Number.isInteger(n) && n >= 0 && n < 1_000_000) this.numberedCounts[n] = c;
    }
    return c;
  }

  /**
   * Counts by message object (checked against its content): the runner's prompts reuse one object per
   * earlier turn (stepPrompt.ts buildStepMessages), which this finds without hashing its text.
   */
  private readonly byMessage = new WeakMap<ChatMessage, { content: string; tokens: number }>();

  /** Same formula as models/tokens.ts countMessageTokens, with per-message memoisation. */
  messages(messages: readonly ChatMessage[]): number {
    let n = 3;
    for (const m of messages) {
      const hit = this.byMessage.get(m);
      let tokens: number;
      if (hit !== undefined && hit.content === m.content) tokens = hit.tokens;
      else {
        tokens = this.count(m.content);
        this.byMessage.set(m, { content: m.content, tokens });
      }
      n += MESSAGE_OVERHEAD_TOKENS + tokens;
    }
    return n;
  }
}
