/**
 * A least-recently-used cache bounded by an estimate of the bytes its entries hold, not by their
 * number. Keys that arrive with the data (a submission's regex or FHIRPath expression) can be
 * many and large: a count alone let 2,000 patterns of 1 KB hold ~14 GB of RE2 programs; a byte
 * bound holds whatever mix the data brings to the same memory.
 */
export class ByteBoundedCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private held = 0;

  constructor(
    /** What all entries may hold together. */
    readonly maxBytes: number,
    /** The estimated size of an entry. */
    private readonly sizeOf: (key: string, value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // most recent last: Map keeps insertion order
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` unless it alone is larger than the bound; evicts the least recently used until it fits. */
  set(key: string, value: V): void {
    const bytes = this.sizeOf(key, value);
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= old.bytes;
    }
    if (bytes > this.maxBytes) return;
    while (this.held + bytes > this.maxBytes) {
      const first = this.entries.entries().next();
      if (first.done) break; // not reached: what is held is in the entries
      const [oldestKey, oldest] = first.value;
      this.entries.delete(oldestKey);
      this.held -= oldest.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.held += bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The estimated bytes held. */
  get bytes(): number {
    return this.held;
  }
}
