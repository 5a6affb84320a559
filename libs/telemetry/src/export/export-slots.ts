/**
 * A counting semaphore for exports. Each export holds a pooled database connection for as long
 * as its client takes to download, and the pool is shared with everything else the app does
 * (sessions aside, every request and every telemetry write needs one): without a cap, a few
 * slow downloads would starve the app of connections. Exports beyond the cap wait their turn.
 */
export class ExportSlots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly capacity: number) {}

  /** Resolves with the function that gives the slot back (once; later calls do nothing). */
  async acquire(): Promise<() => void> {
    if (this.used < this.capacity) this.used++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, so `used` stays the same.
      if (next) next();
      else this.used--;
    };
  }

  get inUse(): number {
    return this.used;
  }
}
