import { readFileSync } from 'node:fs';
import { DataError } from './data-error';

/**
 * What the readers of the input layouts share (plain-csv.ts, pvdaq.ts, psm3.ts, opsd.ts): each
 * turns its file into UTC hourly series keyed by the start of the hour (ms), correcting what is
 * known to be off in its layout's clock, as its comment says, and nothing else.
 */

/** Hour start (ms) → value. */
export type HourlySeries = Map<number, number>;

export function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** The non-empty lines of a text, without a byte-order mark. */
export function lines(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.length > 0);
}

export function header(line: string): string[] {
  return line.split(',').map((name) => name.trim());
}

export function column(names: string[], wanted: string, source: string): number {
  const index = names.indexOf(wanted);
  if (index < 0) throw new DataError(`${source}: no column ${wanted} (have ${names.join(', ')})`);
  return index;
}

export function numberOrNull(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** The most frequent step between consecutive instants (ms), to the second, the shorter on a tie; 0 without any. */
export function mostCommonStep(instants: readonly number[]): number {
  const counts = new Map<number, number>();
  for (let index = 1; index < instants.length; index++) {
    const step = Math.round((instants[index] - instants[index - 1]) / 1000) * 1000;
    if (step > 0) counts.set(step, (counts.get(step) ?? 0) + 1);
  }
  let best = 0;
  let bestCount = 0;
  for (const [step, count] of counts) {
    if (count > bestCount || (count === bestCount && step < best)) {
      best = step;
      bestCount = count;
    }
  }
  return best;
}
