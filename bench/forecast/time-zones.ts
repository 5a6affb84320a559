/**
 * Wall-clock time in an IANA zone ↔ UTC instants, through `Intl` (Node ships full ICU), so the
 * benchmark needs no time-zone package. Offsets are cached per UTC hour: a year of 15-minute
 * rows asks `Intl` a few thousand times, not a hundred thousand. A zone may also be a fixed
 * offset written `UTC+05:30` (what a file whose stamps carry offsets is read in by default).
 */

const HOUR_MS = 3_600_000;
const FIXED_OFFSET = /^UTC([+-])(\d{2}):(\d{2})$/;

/** `UTC+01:00` for +60 min: a zone name every function here accepts. */
export function fixedOffsetZone(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMinutes);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `UTC${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

function fixedOffsetMs(timeZone: string): number | null {
  const match = FIXED_OFFSET.exec(timeZone);
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return (match[1] === '-' ? -minutes : minutes) * 60_000;
}

/** Whether the name is an IANA zone `Intl` knows, or a fixed offset `UTC±hh:mm`. */
export function isKnownTimeZone(timeZone: string): boolean {
  if (fixedOffsetMs(timeZone) !== null) return true;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** Local time minus UTC at an instant, ms (America/Denver: −7 h in winter, −6 h in summer). */
export function zoneOffsetMs(utcMs: number, timeZone: string): number {
  const fixed = fixedOffsetMs(timeZone);
  if (fixed !== null) return fixed;
  const bucket = Math.floor(utcMs / HOUR_MS);
  const key = `${timeZone}|${bucket}`;
  const cached = offsets.get(key);
  if (cached !== undefined) return cached;
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(bucket * HOUR_MS))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  const offset = wall - bucket * HOUR_MS;
  offsets.set(key, offset);
  return offset;
}

/**
 * The UTC instant of a wall-clock time (given as if it were UTC). In the repeated hour of autumn
 * the first (summer-time) instant is taken; a wall time skipped in spring is read with the
 * offset before the change, so it lands an hour on (02:30 → 03:30 summer time).
 */
export function wallTimeToUtc(wallMs: number, timeZone: string): number {
  const valid = wallTimeInstants(wallMs, timeZone);
  return valid.length > 0 ? valid[0] : wallMs - zoneOffsetMs(wallMs - 86_400_000, timeZone);
}

/**
 * Every UTC instant showing this wall-clock time, earliest first: one, two in the repeated hour
 * of autumn, none in the hour skipped in spring.
 */
export function wallTimeInstants(wallMs: number, timeZone: string): number[] {
  const before = wallMs - zoneOffsetMs(wallMs - 86_400_000, timeZone);
  const after = wallMs - zoneOffsetMs(wallMs + 86_400_000, timeZone);
  const candidates = before === after ? [before] : [Math.min(before, after), Math.max(before, after)];
  return candidates.filter((utc) => utc + zoneOffsetMs(utc, timeZone) === wallMs);
}

/** Local midnight starting the calendar day that contains `utcMs`, as a UTC instant. */
export function localMidnight(utcMs: number, timeZone: string): number {
  const wall = utcMs + zoneOffsetMs(utcMs, timeZone);
  const wallMidnight = wall - (((wall % 86_400_000) + 86_400_000) % 86_400_000);
  return wallTimeToUtc(wallMidnight, timeZone);
}

/** Local midnight of a `YYYY-MM-DD` local date, as a UTC instant. */
export function localDateStart(date: string, timeZone: string): number {
  return wallTimeToUtc(Date.parse(`${date}T00:00:00Z`), timeZone);
}

/** The `YYYY-MM-DD` date `days` days after `date` (before it when negative). */
export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The local `YYYY-MM-DD` date of a UTC instant. */
export function localDate(utcMs: number, timeZone: string): string {
  return new Date(utcMs + zoneOffsetMs(utcMs, timeZone)).toISOString().slice(0, 10);
}

/** The UTC instants [start, end) of the local days `from` to `to`, both included. */
export function localDaysSpan([from, to]: readonly [string, string], timeZone: string): [number, number] {
  return [localDateStart(from, timeZone), localDateStart(shiftDate(to, 1), timeZone)];
}

/**
 * Whether year, month, day, hour and minute name a time the calendar has: `Date.UTC` rolls
 * 2011-02-29 over into March and month 13 into the next year.
 */
export function isCalendarTime([year, month, day, hour, minute]: readonly number[]): boolean {
  const time = new Date(Date.UTC(year, month - 1, day, hour, minute));
  return (
    time.getUTCFullYear() === year &&
    time.getUTCMonth() === month - 1 &&
    time.getUTCDate() === day &&
    time.getUTCHours() === hour &&
    time.getUTCMinutes() === minute
  );
}
