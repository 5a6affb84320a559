/**
 * CONNECT attempts counted per client id, in memory: at most `limit` within a window that opens
 * with the client id's first attempt. A device stuck in a reconnect loop, or two devices fighting
 * over one client id, are then refused without their credentials being looked up.
 *
 * Windows that have run out are swept once per window length, so the map holds at most the
 * client ids seen during the last two windows.
 */
export class ConnectAttempts {
  private readonly windows = new Map<string, { openedAt: number; attempts: number }>();
  private sweptAt: number;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweptAt = now();
  }

  /** Counts one attempt of `clientId`; false once its allowance for the current window is spent. */
  admit(clientId: string): boolean {
    const now = this.now();
    if (now - this.sweptAt >= this.windowMs) this.sweep(now);
    let window = this.windows.get(clientId);
    if (!window || now - window.openedAt >= this.windowMs) {
      window = { openedAt: now, attempts: 0 };
      this.windows.set(clientId, window);
    }
    window.attempts += 1;
    return window.attempts <= this.limit;
  }

  /** Client ids with an open window (for tests and health figures). */
  get tracked(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [clientId, window] of this.windows) {
      if (now - window.openedAt >= this.windowMs) this.windows.delete(clientId);
    }
    this.sweptAt = now;
  }
}
