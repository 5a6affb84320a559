import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flag `setHeapGrowth` sets: how far V8 lets the old generation grow past what survived
 * the last full collection before it starts the next. By 300 %, so the next comes at four times
 * that. Left to itself V8 picks the factor from its recent collections, and under a fleet's
 * steady traffic the api's settled near 1.5: a full collection every few seconds, and each one
 * takes a marking thread's worth of CPU for 100-150 ms, which on a small machine holds up the
 * requests in flight as long. At four times, about 100 MB surviving with 50,000 sources cached,
 * the heap reaches ~400 MB before a collection, every half minute or more (docs/performance.md,
 * "Full collections in the api").
 */
export const HEAP_GROWTH_FLAG = '--heap-growing-percent=300';

/**
 * Sets the factor for this process, first thing at start. Node refuses V8 flags in NODE_OPTIONS,
 * so it is set here rather than in the image; V8 reads it whenever a full collection ends, so
 * setting it at run time takes effect. On a Node upgrade, its spec checks that V8 still knows it.
 */
export function setHeapGrowth(): void {
  setFlagsFromString(HEAP_GROWTH_FLAG);
}
