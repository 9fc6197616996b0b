/**
 * A simulated automatic prefix cache (endpoints.md, "Prefix caching"), vLLM-style: a prompt is cut
 * into blocks of `blockTokens` (16) tokens; a block is identified by its tokens AND everything before
 * it (a chained hash), so a prompt is served from the cache for its longest run of leading blocks
 * already cached. Only full blocks are cached, and at least the prompt's last token is computed
 * (as vLLM does), so a prompt of n tokens has at most floor((n - 1) / 16) * 16 cached tokens.
 * Capacity is in tokens; the least recently used blocks go first. A prompt's blocks are touched
 * from its last to its first, so a shared prefix is always more recent than what follows it and a
 * chain is evicted from its tail (vLLM frees a request's blocks in reverse order for the same reason).
 *
 * A prompt is given as PIECES: a key (any text) and its token count. A piece of n tokens stands for
 * n tokens that are the same in two prompts exactly when the pieces' keys are the same; with one
 * token per piece this is a token-level cache. The kit's callers use one piece per counting
 * segment (about one line, `forEachCountingSegment`), whose counts add up to the prompt's exact
 * count; the only approximation is that a line that differs somewhere gives no credit for its
 * first tokens (a few tokens per prompt at most).
 *
 * `physicalLimit` is the share no cache can beat: tokens equal to a prefix some earlier prompt
 * had, at piece level, with unbounded capacity and no block rounding.
 */

export const PREFIX_BLOCK_TOKENS = 16;
/** `s3gym serve --prefix-cache` capacity when `--cache-tokens` is not given (65,536 blocks of 16). */
export const DEFAULT_CACHE_TOKENS = 1_048_576;

export interface PromptPiece {
  /** The piece's text (or any key that is equal exactly when the text is). */
  key: string;
  /** Its token count (>= 0). */
  tokens: number;
}

export interface PrefixCacheOptions {
  /** Capacity in tokens (blocks x block size); at least one block. */
  capacityTokens: number;
  /** Tokens per block (default 16). */
  blockTokens?: number;
}

export interface PrefixLookup {
  promptTokens: number;
  /** Tokens served from the cache. */
  cachedTokens: number;
}

/** Mixes `x` (an integer below 2^53) into the chained key `h` (same range): two 32-bit lanes that feed each other. */
function mix(h: number, x: number): number {
  const hl = h >>> 0;
  const hh = Math.floor(h / 0x100000000);
  const xl = x >>> 0;
  const xh = Math.floor(x / 0x100000000);
  let lo = Math.imul(hl ^ xl, 0x01000193);
  lo = (lo ^ (lo >>> 15)) >>> 0;
  let hi = Math.imul(hh ^ xh ^ lo, 0x5bd1e995);
  hi = hi ^ (hi >>> 13);
  lo = (Math.imul(lo ^ hi, 0x85ebca6b) ^ (lo >>> 16)) >>> 0;
  return (hi & 0x1fffff) * 0x100000000 + lo;
}

/**
 * A 53-bit hash of a piece's text: two FNV-1a lanes over its UTF-16 code units (no encoding pass:
 * the server hashes every line of every prompt), memoised since lines repeat from call to call.
 */
class PieceHasher {
  private readonly memo = new Map<string, number>();
  hash(key: string): number {
    let h = this.memo.get(key);
    if (h === undefined) {
      let a = 0x811c9dc5;
      let b = 0x9747b28c ^ key.length;
      for (let i = 0; i < key.length; i++) {
        const c = key.charCodeAt(i);
        a = Math.imul(a ^ c, 0x01000193);
        b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
      }
      h = (b & 0x1fffff) * 0x100000000 + (a >>> 0);
      // Bounded: a long-lived server must not keep every line forever.
      if (this.memo.size > 200_000) this.memo.clear();
      this.memo.set(key, h);
    }
    return h;
  }
}

/** Per prompt: the chained key of each full block, in order. */
function blockKeys(pieces: readonly PromptPiece[], blockTokens: number, pieceHash: (key: string) => number): { keys: number[]; total: number } {
  const keys: number[] = [];
  let total = 0;
  let chain = 0x811c9dc5;
  let filled = 0; // tokens of the current block so far
  for (const p of pieces) {
    if (!(p.tokens > 0)) continue;
    const h = pieceHash(p.key);
    let offset = 0;
    while (offset < p.tokens) {
      const take = Math.min(p.tokens - offset, blockTokens - filled);
      // The block's content: this piece, from `offset`, `take` tokens.
      chain = mix(mix(mix(chain, h), offset), take);
      offset += take;
      filled += take;
      if (filled === blockTokens) {
        keys.push(chain);
        filled = 0;
      }
    }
    total += p.tokens;
  }
  return { keys, total };
}

export class PrefixCache {
  private readonly blockTokens: number;
  private readonly capacityBlocks: number;
  /** Block key -> true, in least-recently-used-first order (a Map keeps insertion order). */
  private readonly blocks = new Map<number, true>();
  private readonly hasher = new PieceHasher();
  /** Totals over every lookup. */
  readonly totals = { calls: 0, promptTokens: 0, cachedTokens: 0 };

  constructor(o: PrefixCacheOptions) {
    this.blockTokens = o.blockTokens ?? PREFIX_BLOCK_TOKENS;
    if (!Number.isInteger(this.blockTokens) || this.blockTokens < 1) throw new Error(`prefix cache: blockTokens must be a positive integer (got ${this.blockTokens})`);
    this.capacityBlocks = Math.floor(o.capacityTokens / this.blockTokens);
    if (!(this.capacityBlocks >= 1)) throw new Error(`prefix cache: capacity ${o.capacityTokens} tokens holds no block of ${this.blockTokens}`);
  }

  /** Tokens held (full blocks x block size). */
  get heldTokens(): number {
    return this.blocks.size * this.blockTokens;
  }

  private pieceHash = (key: string): number => this.hasher.hash(key);

  /** Serves one prompt: how many of its tokens were cached; then caches its full blocks. */
  lookup(pieces: readonly PromptPiece[]): PrefixLookup {
    const { keys, total } = blockKeys(pieces, this.blockTokens, this.pieceHash);
    let hits = 0;
    while (hits < keys.length && this.blocks.has(keys[hits]!)) hits++;
    const cap = total > 0 ? Math.floor((total - 1) / this.blockTokens) * this.blockTokens : 0;
    const cachedTokens = Math.min(hits * this.blockTokens, cap);
    // Touch (or insert) last to first: the prefix ends up the most recently used.
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      this.blocks.delete(k);
      this.blocks.set(k, true);
    }
    while (this.blocks.size > this.capacityBlocks) this.blocks.delete(this.blocks.keys().next().value!);
    this.totals.calls++;
    this.totals.promptTokens += total;
    this.totals.cachedTokens += cachedTokens;
    return { promptTokens: total, cachedTokens };
  }
}

/**
 * The physical limit of prefix caching over a sequence of prompts: per prompt, the tokens of its
 * longest piece-prefix that some earlier prompt also began with (unbounded memory, no blocks).
 * `1 - new / prompt` over the sequence is the best share any prefix cache can serve.
 */
export class PrefixLimit {
  /** Chained keys of every piece-prefix seen. */
  private readonly seen = new Set<number>();
  private readonly hasher = new PieceHasher();
  readonly totals = { calls: 0, promptTokens: 0, reusableTokens: 0 };

  /** The tokens of `pieces` that an earlier prompt's prefix covers; then remembers its prefixes. */
  observe(pieces: readonly PromptPiece[]): number {
    let chain = 0x811c9dc5;
    let reusable = 0;
    let matching = true;
    let total = 0;
    for (const p of pieces) {
      if (!(p.tokens > 0)) continue;
      chain = mix(mix(chain, this.hasher.hash(p.key)), p.tokens);
      if (matching && this.seen.has(chain)) reusable += p.tokens;
      else {
        matching = false;
        this.seen.add(chain);
      }
      total += p.tokens;
    }
    this.totals.calls++;
    this.totals.promptTokens += total;
    this.totals.reusableTokens += reusable;
    return reusable;
  }

  /** 1 - new tokens / prompt tokens over every prompt observed (0 when none). */
  get share(): number {
    return this.totals.promptTokens > 0 ? this.totals.reusableTokens / this.totals.promptTokens : 0;
  }
}
