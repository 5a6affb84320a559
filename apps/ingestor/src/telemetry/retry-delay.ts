export const FIRST_RETRY_DELAY_MS = 100;
export const MAX_RETRY_DELAY_MS = 5000;

/** Wait before retry number `attempt` (0-based): 100 ms, doubling, at most 5 s. */
export function retryDelay(attempt: number): number {
  return Math.min(FIRST_RETRY_DELAY_MS * 2 ** Math.min(attempt, 32), MAX_RETRY_DELAY_MS);
}
