/**
 * Insertion-ordered set and map that forget their oldest entries past a capacity, so a
 * mapper's dedupe memory stays bounded on a 3 GB transcript. Both serialize to plain
 * arrays, so a reader can checkpoint a parser's state next to its byte cursor.
 */

export class RecentSet {
  private readonly items: Set<string>;

  constructor(
    readonly capacity: number,
    initial: Iterable<string> = [],
  ) {
    this.items = new Set();
    for (const item of initial) this.add(item);
  }

  has(item: string): boolean {
    return this.items.has(item);
  }

  add(item: string): void {
    if (this.items.has(item)) this.items.delete(item);
    this.items.add(item);
    while (this.items.size > this.capacity) {
      const oldest = this.items.values().next();
      if (oldest.done) break;
      this.items.delete(oldest.value);
    }
  }

  delete(item: string): boolean {
    return this.items.delete(item);
  }

  get size(): number {
    return this.items.size;
  }

  toJSON(): string[] {
    return [...this.items];
  }
}

export class RecentMap<V> {
  private readonly entries: Map<string, V>;

  constructor(
    readonly capacity: number,
    initial: Iterable<[string, V]> = [],
  ) {
    this.entries = new Map();
    for (const [key, value] of initial) this.set(key, value);
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  set(key: string, value: V): void {
    if (this.entries.has(key)) this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  toJSON(): [string, V][] {
    return [...this.entries];
  }
}
