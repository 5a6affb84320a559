/**
 * CONNECTs whose credentials are being checked, at most `concurrent` at once, and those waiting
 * their turn, first come first served. A CONNECT waits rather than being refused: a refusal
 * ("server unavailable") is final for clients that do not retry after one (mqtt.js by default),
 * and those that do come back with a new connection, so during a reconnect storm refusing cost
 * more than waiting. Only past `waitingAtMost` is a CONNECT refused.
 */
export class CheckLine {
  private checking = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrent: number,
    private readonly waitingAtMost: number,
  ) {}

  /**
   * A turn: resolves when this check may start (call `done` when it ends); undefined when the
   * line is full and the CONNECT is to be refused.
   */
  take(): Promise<void> | undefined {
    if (this.checking < this.concurrent) {
      this.checking += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.waitingAtMost) return undefined;
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A check ended: its turn goes to the next in line. */
  done(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.checking -= 1;
  }

  get size(): { checking: number; waiting: number } {
    return { checking: this.checking, waiting: this.waiting.length };
  }
}
