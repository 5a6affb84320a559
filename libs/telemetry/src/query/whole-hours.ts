import type { TimeRange } from './telemetry-query.repository';

const HOUR = 3_600_000;

/**
 * The UTC hours lying entirely inside a range, as [from, to): these are read from the hourly
 * rollup, the rest of the range (before `from`, from `to` on) from the raw rows. The range
 * includes both ends, so an hour is whole when its last instant is at most `end`: the hour
 * ending exactly at `end` is, the hour starting at `end` is not. When no hour is whole, `to`
 * equals `from`, and the two raw parts cover the whole range.
 */
export function wholeHoursOf(range: TimeRange): { from: Date; to: Date } {
  const from = Math.ceil(range.start.getTime() / HOUR) * HOUR;
  // An hour is whole when hour + 1 h - 1 µs ≤ end (timestamps have microseconds); both sides
  // being whole milliseconds here, that is hour + 1 h ≤ end.
  const to = Math.floor(range.end.getTime() / HOUR) * HOUR;
  return { from: new Date(from), to: new Date(Math.max(from, to)) };
}
