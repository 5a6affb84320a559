interface Entry<T> {
  version: string;
  expiresAt: number;
  value: Promise<T>;
}

/**
 * Values kept for `ttlMs` per key, in this process. A value is reused only while its `version`
 * is the one asked for, so a change the caller can see cheaply (a sharing flag, a name) takes
 * effect at once. Callers arriving while a value is being produced share that production; a
 * failed production is forgotten. At most `maxEntries` are kept: the oldest goes first.
 */
export class ShortLivedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  get(key: string, version: string, produce: () => Promise<T>): Promise<T> {
    const now = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.version === version && cached.expiresAt > now) return cached.value;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const entry: Entry<T> = { version, expiresAt: now + this.ttlMs, value: produce() };
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.value;
  }

  get size(): number {
    return this.entries.size;
  }
}
