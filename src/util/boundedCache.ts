/**
 * A bounded memo: a Map that keeps at most `capacity` entries and drops the least recently used.
 * The built-in policies and the prompt readers decide from text only, so what they memoise is keyed
 * by the text it was computed from; the bound keeps a long-running server's memory flat.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  /**
   * The key last set or found, which is last in the Map's order: found again (a step's readers ask
   * for the same text in turn), it is already the most recent, so the move to the end is skipped.
   */
  private newest: K | undefined = undefined;
  private hasNewest = false;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`BoundedCache: capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined && !(this.hasNewest && key === this.newest)) {
      // Re-inserting moves the key to the end of the Map's order: the most recently used.
      this.map.delete(key);
      this.map.set(key, v);
      this.newest = key;
      this.hasNewest = true;
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.newest = key;
    this.hasNewest = true;
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }

  /** The cached value, or `make()`'s, cached. */
  getOrSet(key: K, make: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const v = make();
    this.set(key, v);
    return v;
  }
}
