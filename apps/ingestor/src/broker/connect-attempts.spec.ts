import { ConnectAttempts } from './connect-attempts';

describe('ConnectAttempts', () => {
  let now: number;
  const attempts = (limit: number, windowMs: number) => new ConnectAttempts(limit, windowMs, () => now);

  beforeEach(() => {
    now = 1_000_000;
  });

  it('admits `limit` attempts of a client id per window, then refuses until the window has passed', () => {
    const limiter = attempts(3, 10_000);
    expect([1, 2, 3, 4, 5].map(() => limiter.admit('src-a'))).toEqual([true, true, true, false, false]);
    now += 9_999;
    expect(limiter.admit('src-a')).toBe(false);
    now += 1;
    expect(limiter.admit('src-a')).toBe(true);
  });

  it('counts each client id on its own', () => {
    const limiter = attempts(1, 10_000);
    expect(limiter.admit('src-a')).toBe(true);
    expect(limiter.admit('src-a')).toBe(false);
    expect(limiter.admit('src-b')).toBe(true);
  });

  it('opens a window at the first attempt, not on a fixed clock', () => {
    const limiter = attempts(2, 10_000);
    expect(limiter.admit('src-a')).toBe(true);
    now += 8_000;
    expect(limiter.admit('src-b')).toBe(true);
    expect(limiter.admit('src-b')).toBe(true);
    now += 2_000; // a's window is over, b's is not
    expect(limiter.admit('src-a')).toBe(true);
    expect(limiter.admit('src-b')).toBe(false);
  });

  it('forgets client ids whose window has run out', () => {
    const limiter = attempts(5, 10_000);
    for (let i = 0; i < 1000; i++) limiter.admit(`src-${i}`);
    expect(limiter.tracked).toBe(1000);
    now += 10_000;
    limiter.admit('src-late');
    expect(limiter.tracked).toBe(1);
  });
});
