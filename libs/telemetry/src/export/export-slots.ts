export interface ExportSlotsOptions {
  /** Exports streaming at once. */
  capacity: number;
  /** Exports waiting for a slot; one more is turned away at once. */
  maxWaiting: number;
  /** Longest wait for a slot; then the export is turned away. */
  maxWaitMs: number;
}

/**
 * A counting semaphore for exports, with a bounded line. Each export holds a pooled database
 * connection for as long as its client takes to download, and the pool is shared with everything
 * else the app does (sessions aside, every request and every telemetry write needs one): without
 * a cap, a few slow downloads would starve the app of connections. Exports beyond the cap wait
 * their turn, but only so many and only so long: a request is better told to come back than
 * left hanging.
 */
export class ExportSlots {
  private used = 0;
  private readonly waiting: Array<(granted: boolean) => void> = [];

  constructor(private readonly options: ExportSlotsOptions) {}

  /**
   * Resolves with the function that gives the slot back (once; later calls do nothing), or with
   * undefined when the line is full or the wait ran out.
   */
  async acquire(): Promise<(() => void) | undefined> {
    if (this.used < this.options.capacity) this.used++;
    else if (this.waiting.length >= this.options.maxWaiting) return undefined;
    else if (!(await this.wait())) return undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, so `used` stays the same.
      if (next) next(true);
      else this.used--;
    };
  }

  private wait(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const turn = (granted: boolean) => {
        clearTimeout(timer);
        resolve(granted);
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(turn);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(false);
      }, this.options.maxWaitMs);
      timer.unref();
      this.waiting.push(turn);
    });
  }

  get inUse(): number {
    return this.used;
  }

  get inLine(): number {
    return this.waiting.length;
  }
}
