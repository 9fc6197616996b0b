/**
 * Memoised countTokens: pieces repeat across steps, episodes and checkpoints. A message that opens with
 * a recently rendered joined text (History's experience: it differs from the last one only in its
 * observation, i.e. at every episode's first step and at every cut) is counted from its parts, the
 * pieces' counts added, where tokens.ts's joinsCleanly proves the sum equals the whole text's count:
 * re-tokenising ~100k tokens of experience per episode was a quarter of a History run's CPU.
 */
import { countTokensJoinable, joinsCleanly, MESSAGE_OVERHEAD_TOKENS, type TokenizerName } from "./tokens.js";
import { MessagePrefix } from "./messagePrefix.js";
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

/** Texts at least this long are counted line by line (TokenCounter.byLines); shorter ones whole. */
const LINE_SPLIT_MIN = 128;

/**
 * Lines' entries (tokens * 2 + joinable), one table per tokenizer for the whole process: a line's
 * entry depends on its text and the tokenizer alone, and the runs of a matrix that play one game print
 * the same board rows (with a table per run, over half the lines tokenised were ones another run had done). Bounded: a long
 * process must not keep every line it printed.
 */
const LINE_ENTRIES: Record<TokenizerName, Map<string, number>> = { o200k: new Map(), cl100k: new Map() };

export class TokenCounter {
  /** tokens * 2 + (1 when countTokensJoinable said joinable). */
  private readonly cache = new Map<string, number>();
  constructor(readonly tokenizer: TokenizerName) {
    this.lines = LINE_ENTRIES[tokenizer];
  }

  count(text: string): number {
    return Math.floor(this.entry(text) / 2);
  }

  private entry(text: string): number {
    let v = this.cache.get(text);
    if (v === undefined) {
      const joined = this.joinedMessage(text);
      v = joined !== undefined ? joined * 2 : this.byLines(text);
      // Bounded: long runs must not keep every observation forever.
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(text, v);
    }
    return v;
  }

  /**
   * The entry (tokens * 2 + joinable) of a text not counted before, as the sum of its lines' entries
   * where tokens.ts's joinsCleanly proves the sum exact: the text is cut after a line break that the
   * next line does not open with whitespace or `/`, each line is counted once per run (board rows,
   * tags and the reminder repeat at every step; a prompt's new message is mostly such lines), and
   * the whole text is counted as before when any line is not joinable. The joined text of joinable
   * lines is joinable itself: its pre-tokens are the lines' own, and a clean join (a line break, then
   * no whitespace) cannot make a window hazard.
   */
  private byLines(text: string): number {
    if (text.length >= LINE_SPLIT_MIN) {
      let total = 0;
      let start = 0;
      for (let i = text.indexOf("\n"); i !== -1 && i + 1 < text.length; i = text.indexOf("\n", i + 1)) {
        const c = text.charCodeAt(i + 1);
        // ASCII other than whitespace (all at or below the space) and `/` joins cleanly; any other
        // character is asked of joinsCleanly itself (it reads only the first code point).
        if (!((c > 0x20 && c < 0x7f && c !== 0x2f) || joinsCleanly("\n", text.slice(i + 1, i + 3)))) continue;
        const v = this.line(text.slice(start, i + 1));
        if (v % 2 === 0) return this.whole(text);
        total += (v - 1) / 2;
        start = i + 1;
      }
      if (start > 0) {
        const v = this.line(text.slice(start));
        if (v % 2 === 0) return this.whole(text);
        return (total + (v - 1) / 2) * 2 + 1;
      }
    }
    return this.whole(text);
  }

  private whole(text: string): number {
    const c = countTokensJoinable(text, this.tokenizer);
    return c.tokens * 2 + (c.joinable ? 1 : 0);
  }

  /** Lines' entries: the process's table for this counter's tokenizer (LINE_ENTRIES). */
  private readonly lines: Map<string, number>;
  private line(text: string): number {
    const lines = this.lines;
    let v = lines.get(text);
    if (v === undefined) {
      v = this.whole(text);
      if (lines.size > 100_000) lines.clear();
      lines.set(text, v);
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
      // A slice compared with === (memcmp on the characters), not startsWith(e.text, at): that compares
      // ~100k tokens of text one character at a time, ~50 times slower, at every new first message.
      if (text.length <= at + n + 1 || text.charCodeAt(at + n) !== 10 || text.slice(at, at + n) !== e.text) continue;
      const opening = this.openingTokens(e);
      if (opening === null) return undefined;
      const rest = text.slice(at + n + 1);
      const v = this.entry(rest);
      // The segment before `rest` ends with the text's line break, so joinsCleanly reads only `rest`'s start.
      if (v % 2 === 0 || !joinsCleanly("\n", rest)) return undefined;
      return opening + Math.floor(v / 2);
    }
    return undefined;
  }

  /**
   * Per remembered joined text: the summed counts of its segments up to the text's line break (the
   * opening, every piece with its "\n\n" and the last with its "\n"), or null when a segment is not
   * joinable or a join not clean. The same for every message that opens with the text, so it is
   * summed once, not re-derived (building and hashing ~100k tokens of segment strings) per message.
   */
  private readonly openings = new WeakMap<object, number | null>();
  private openingTokens(e: (typeof recentJoined)[number]): number | null {
    let total = this.openings.get(e);
    if (total !== undefined) return total;
    const last = e.pieces.length - 1;
    const segments = [e.open, ...e.pieces.map((p, i) => (i < last ? `${p}\n\n` : `${p}\n`))];
    total = 0;
    for (let i = 0; i < segments.length; i++) {
      const v = this.entry(segments[i]!);
      if (v % 2 === 0 || (i > 0 && !joinsCleanly(segments[i - 1]!, segments[i]!))) {
        total = null;
        break;
      }
      total += Math.floor(v / 2);
    }
    this.openings.set(e, total);
    return total;
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

  private message(m: ChatMessage): number {
    const hit = this.byMessage.get(m);
    if (hit !== undefined && hit.content === m.content) return hit.tokens;
    const tokens = this.count(m.content);
    this.byMessage.set(m, { content: m.content, tokens });
    return tokens;
  }

  /**
   * The count of the last prompt counted, by its last message: a step's prompt is the previous step's
   * plus a reply and a new user turn, so it is that count plus the two new messages', when its other
   * messages are the same objects (frozen, or with the content they had: a message changed in place
   * is seen). The entry moves to the new last message; a prompt that extends none is counted whole.
   */
  private readonly promptAfter = new WeakMap<ChatMessage, CountedPrompt>();

  /** Same formula as models/tokens.ts countMessageTokens, with per-message memoisation. */
  messages(messages: readonly ChatMessage[]): number {
    const k = messages.length;
    if (k >= 3) {
      const prev = this.promptAfter.get(messages[k - 3]!);
      if (prev !== undefined && prev.messages.length === k - 2 && prev.messages.opens(messages)) {
        this.promptAfter.delete(messages[k - 3]!);
        const reply = messages[k - 2]!;
        const turn = messages[k - 1]!;
        prev.total += 2 * MESSAGE_OVERHEAD_TOKENS + this.message(reply) + this.message(turn);
        prev.messages.push([reply, turn]);
        this.promptAfter.set(turn, prev);
        return prev.total;
      }
    }
    let n = 3;
    for (const m of messages) n += MESSAGE_OVERHEAD_TOKENS + this.message(m);
    if (k > 0) {
      const counted: CountedPrompt = { total: n, messages: new MessagePrefix() };
      counted.messages.push(messages);
      this.promptAfter.set(messages[k - 1]!, counted);
    }
    return n;
  }
}

/** A counted prompt: its count and the messages it was counted from. */
interface CountedPrompt {
  total: number;
  messages: MessagePrefix;
}
