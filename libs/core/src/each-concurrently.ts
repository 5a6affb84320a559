/**
 * Runs `work` on every item, at most `limit` at a time, in the items' order, and resolves when
 * all are done. `work` handles its own failures: one that rejects rejects the whole run.
 */
export async function eachConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
