import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { DataError } from './data-error';

/**
 * What the readers of the input layouts share (plain-csv.ts, pvdaq.ts, psm3.ts, opsd.ts): each
 * turns its file into UTC hourly series keyed by the start of the hour (ms), correcting what is
 * known to be off in its layout's clock, as its comment says, and nothing else.
 */

/** Hour start (ms) → value. */
export type HourlySeries = Map<number, number>;

/**
 * A layout's input: a whole text (the specs' inline files), or its lines one by one
 * (`fileLines`). Lines carry no line break and the first no byte-order mark; blank ones are kept,
 * so that a line's number is its place in the file.
 */
export type TextLines = string | Iterable<string>;

export function linesOf(input: TextLines): Iterable<string> {
  return typeof input === 'string' ? input.replace(/^\uFEFF/, '').split(/\r?\n/) : input;
}

/**
 * Calls `parse` with an input's first line and the lines after it, and closes the file however
 * the parse ends (at the last line, at a line it stops at, or at an error). The lines after it
 * pass once: a line taken from them (a second header row) is not seen again.
 */
export function parseLines<T>(input: TextLines, parse: (first: string, rest: Iterable<string>) => T): T {
  const lines = linesOf(input)[Symbol.iterator]();
  try {
    const first = lines.next();
    return parse(first.done ? '' : first.value, { [Symbol.iterator]: () => lines });
  } finally {
    lines.return?.();
  }
}

const CHUNK_BYTES = 1 << 20;
/** Longer than any row of a CSV file: a "line" this long is a file of another kind. */
const MAX_LINE_CHARS = 1 << 24;

/**
 * The lines of a file, read a chunk at a time: a file is never held whole in memory, so one larger
 * than the longest string V8 can make (about 512 MB; a 1-minute export of many meters over years)
 * is read as any other. Each iteration reads the file anew, so a reader may pass over it twice.
 * The text is UTF-8, or UTF-16 little-endian when it starts with that byte-order mark, as
 * spreadsheets save "Unicode text".
 */
export function fileLines(path: string, chunkBytes = CHUNK_BYTES): Iterable<string> {
  return { [Symbol.iterator]: () => readLines(path, chunkBytes) };
}

function* readLines(path: string, chunkBytes: number): Generator<string> {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const buffer = Buffer.alloc(chunkBytes);
    const decoder = new StringDecoder(textEncoding(descriptor, path));
    let pending = '';
    let first = true;
    for (;;) {
      const bytes = readBytes(descriptor, buffer, chunkBytes, null, path);
      pending += bytes === 0 ? decoder.end() : decoder.write(buffer.subarray(0, bytes));
      if (first && pending.length > 0) {
        pending = pending.replace(/^\uFEFF/, '');
        first = false;
      }
      const parts = pending.split('\n');
      pending = bytes === 0 ? '' : parts.pop()!;
      if (pending.length > MAX_LINE_CHARS)
        throw new DataError(
          `cannot read ${path}: a line longer than ${MAX_LINE_CHARS} characters; not a CSV file`,
        );
      for (const part of parts) yield part.endsWith('\r') ? part.slice(0, -1) : part;
      if (bytes === 0) return;
    }
  } finally {
    closeSync(descriptor);
  }
}

/** Reads at `position`, or on from the last read with null. */
function readBytes(
  descriptor: number,
  buffer: Buffer,
  length: number,
  position: number | null,
  path: string,
): number {
  try {
    return readSync(descriptor, buffer, 0, length, position);
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** How many of the file's first bytes tell UTF-16 without a byte-order mark. */
const SNIFF_BYTES = 64;

/**
 * The encoding the file's first bytes tell: a UTF-16 byte-order mark, else UTF-8. UTF-16 without
 * the mark is refused: read as UTF-8, its every other byte is a NUL in the cells.
 */
function textEncoding(descriptor: number, path: string): 'utf8' | 'utf16le' {
  const start = Buffer.alloc(SNIFF_BYTES);
  const bytes = readBytes(descriptor, start, SNIFF_BYTES, 0, path);
  if (bytes >= 2 && start[0] === 0xff && start[1] === 0xfe) return 'utf16le';
  if (bytes >= 2 && start[0] === 0xfe && start[1] === 0xff)
    throw new DataError(`cannot read ${path}: UTF-16 big-endian text; save it as UTF-8`);
  const order = utf16ByteOrder(start.subarray(0, bytes));
  if (order)
    throw new DataError(
      `cannot read ${path}: UTF-16 ${order} text without a byte-order mark; ` +
        `save it as UTF-8 (or as UTF-16 with its byte-order mark)`,
    );
  return 'utf8';
}

/**
 * UTF-16 text's byte order, told by its NUL bytes: the high byte of every Latin character is 0, so
 * NULs fill one side of the byte pairs and never the other. Null for text with no such pattern.
 */
function utf16ByteOrder(bytes: Buffer): 'little-endian' | 'big-endian' | null {
  const pairs = Math.floor(bytes.length / 2);
  if (pairs < 2) return null;
  let firstNul = 0;
  let secondNul = 0;
  for (let pair = 0; pair < pairs; pair++) {
    if (bytes[2 * pair] === 0) firstNul++;
    if (bytes[2 * pair + 1] === 0) secondNul++;
  }
  if (firstNul === 0 && secondNul >= pairs / 2) return 'little-endian';
  if (secondNul === 0 && firstNul >= pairs / 2) return 'big-endian';
  return null;
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
