import { Clock } from '@solar/core';

/** A clock that stands still until the test moves it. */
export class FakeClock extends Clock {
  private current: number;

  constructor(start: Date = new Date()) {
    super();
    this.current = start.getTime();
  }

  override now(): Date {
    return new Date(this.current);
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}
