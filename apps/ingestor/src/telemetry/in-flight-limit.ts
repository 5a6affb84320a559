/**
 * A counting semaphore over the messages the ingestor holds unacknowledged. A message takes a
 * slot before it is processed and gives it back once it is stored or refused for good; at the
 * cap, intake stops (see `whenBelowCap`) instead of memory growing while storage is down.
 */
export class InFlightLimit {
  private held = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly belowCap: Array<() => void> = [];

  constructor(readonly max: number) {}

  get count(): number {
    return this.held;
  }

  get full(): boolean {
    return this.held >= this.max;
  }

  /** Takes a slot, waiting (in arrival order) while all are held. */
  acquire(): Promise<void> {
    if (this.held < this.max && this.waiting.length === 0) {
      this.held += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Gives a slot back: to the longest waiter if any, otherwise to the pool. */
  release(): void {
    const next = this.waiting.shift();
    if (next) return next();
    this.held -= 1;
    for (const resolve of this.belowCap.splice(0)) resolve();
  }

  /** Resolves as soon as a slot is free (at once if one is). */
  whenBelowCap(): Promise<void> {
    if (!this.full) return Promise.resolve();
    return new Promise((resolve) => this.belowCap.push(resolve));
  }
}
