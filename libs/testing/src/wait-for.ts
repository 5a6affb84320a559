/** Polls `condition` every `everyMs` until it holds; throws after `timeoutMs`, naming `what`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Reads `read` every `everyMs` until `done` holds of what it read or `timeoutMs` has passed, and
 * answers the last value read either way: for a change that arrives through another process,
 * the test then asserts on that value, and a timeout fails with what was seen instead.
 */
export async function lastReadUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 2000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
