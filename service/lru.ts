// A bounded cache that keeps what is used. Two generations of Maps: entries are set in the recent
// one; when it fills, it becomes the older one and the previous older one is dropped; an entry read
// from the older one moves back to the recent one. A hit in the recent one is a plain Map lookup:
// moving the entry on every hit (delete + set) left tombstones that made V8 rehash the whole table
// again and again, microseconds per read of a hot key.
export class Lru<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();
  private readonly generation: number;

  /** Holds at most `max` entries; an entry read or set stays for at least `max / 2` further sets. */
  constructor(max: number) {
    this.generation = Math.max(1, Math.floor(max / 2));
  }

  get(key: K): V | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.addRecent(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    if (this.recent.has(key)) {
      this.recent.set(key, value);
      return;
    }
    this.older.delete(key);
    this.addRecent(key, value);
  }

  private addRecent(key: K, value: V): void {
    this.recent.set(key, value);
    if (this.recent.size >= this.generation) {
      this.older = this.recent;
      this.recent = new Map();
    }
  }

  clear(): void {
    this.recent.clear();
    this.older.clear();
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }
}
