/**
 * The kit's only source of randomness for games and policies.
 *
 * Generator: xoshiro128** (Blackman & Vigna), four uint32 words of state.
 * Seeding:   a key string (e.g. "minesweeper|eval|17") is hashed with 32-bit FNV-1a over its UTF-8
 *            bytes, and the hash seeds splitmix32, whose first four outputs are the generator state.
 *
 * The state is a plain `number[]` stored INSIDE the game state, so a game step is a pure function of
 * (state, action), a state survives JSON, and any episode can be regenerated alone from its key.
 */
export type RngState = [number, number, number, number];

/** 32-bit FNV-1a over the UTF-8 bytes of `key`. */
export function fnv1a32(key: string): number {
  let h = 0x811c9dc5;
  // ASCII keys (every key the kit builds: names, numbers, '|') are their own UTF-8 bytes: hashed from
  // the char codes without encoding a byte array per key; any other code unit takes the encoder.
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0x80) return fnv1a32Utf8(key);
    h ^= c;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function fnv1a32Utf8(key: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(key)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Expands a 32-bit seed into a generator state with splitmix32. Never all-zero. */
export function stateFromSeed32(seed: number): RngState {
  let x = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    out.push(z);
  }
  if (out.every((w): boolean => w === 0)) out[0] = 1;
  return out as RngState;
}

/** The generator state for a key: the documented derivation (FNV-1a 32 -> splitmix32). */
export function rngStateFromKey(key: string): RngState {
  return stateFromSeed32(fnv1a32(key));
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** A view over an RngState array; drawing mutates that array in place. */
export class Rng {
  constructor(readonly state: RngState) {}

  static fromKey(key: string): Rng {
    return new Rng(rngStateFromKey(key));
  }

  /** Next uint32 (xoshiro128**). */
  nextU32(): number {
    const s = this.state;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] = (s[2] ^ s[0]) >>> 0;
    s[3] = (s[3] ^ s[1]) >>> 0;
    s[1] = (s[1] ^ s[2]) >>> 0;
    s[0] = (s[0] ^ s[3]) >>> 0;
    s[2] = (s[2] ^ t) >>> 0;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Uniform float in [0, 1) with 32 bits of resolution. */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n), unbiased (rejection sampling). */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 4294967296) throw new RangeError(`Rng.int: n must be an integer in 1..2^32, got ${n}`);
    const limit = 4294967296 - (4294967296 % n);
    for (;;) {
      const x = this.nextU32();
      if (x < limit) return x % n;
    }
  }

  /** Uniform integer in [lo, hi] inclusive. */
  intBetween(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** One uniformly chosen element. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Rng.pick: empty list");
    return items[this.int(items.length)] as T;
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffled<T>(items: readonly T[]): T[] {
    const a = items.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [a[i], a[j]] = [a[j] as T, a[i] as T];
    }
    return a;
  }
}
