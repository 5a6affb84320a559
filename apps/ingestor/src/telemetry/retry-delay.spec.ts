import { retryDelay } from './retry-delay';

describe('retryDelay', () => {
  it.each([
    [0, 100],
    [1, 200],
    [2, 400],
    [5, 3200],
    [6, 5000],
    [7, 5000],
    [1000, 5000],
  ])('attempt %i waits %i ms', (attempt, expected) => {
    expect(retryDelay(attempt)).toBe(expected);
  });
});
