/**
 * Normalization and validation of one telemetry message, shared by the webhook and the MQTT
 * ingestor. Pure: no I/O, no clock (the caller passes `now`), and it never throws for any JSON
 * input, because a device must not be able to crash the ingestor with a payload.
 */
import {
  CODE_FIELDS,
  emptyTelemetryValues,
  MAX_CODES,
  MAX_TEXT_LENGTH,
  NUMERIC_FIELDS,
  NumericFieldDefinition,
  TelemetryValues,
  TEXT_FIELDS,
  TIMESTAMP_ALIASES,
} from './telemetry-fields';

export interface NormalizedTelemetry {
  /** The device's timestamp, or null when the payload had none (the caller uses arrival time). */
  timestamp: Date | null;
  values: TelemetryValues;
  /** The payload as received, minus its top-level `key` property (the webhook secret). */
  raw: Record<string, unknown>;
}

export type TelemetryRejection =
  'not_an_object' | 'invalid_timestamp' | 'future_timestamp' | 'no_valid_fields';

export type NormalizeResult =
  { ok: true; telemetry: NormalizedTelemetry } | { ok: false; reason: TelemetryRejection; message: string };

export const TELEMETRY_REJECTION_MESSAGES: Readonly<Record<TelemetryRejection, string>> = {
  not_an_object: 'Payload must be a JSON object',
  invalid_timestamp: 'Invalid timestamp',
  future_timestamp: 'Timestamp is more than 5 minutes in the future',
  no_valid_fields: 'No valid telemetry fields',
};

/** How far ahead of our clock a device's clock may run before its message is refused. */
export const MAX_CLOCK_AHEAD_MS = 5 * 60 * 1000;
/** Nothing real predates this; earlier timestamps come from devices whose clock was never set. */
export const EARLIEST_TIMESTAMP_MS = Date.UTC(2000, 0, 1);
/** Epoch values from here up are milliseconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const EPOCH_MILLISECONDS_FROM = 1e11;
/** The largest instant a JavaScript Date can hold. */
const MAX_DATE_MS = 8.64e15;

/** Invariant-culture float: no thousands separators, no decimal comma, no hex, no Infinity/NaN. */
const INVARIANT_FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * ISO 8601 date-time (RFC 3339 profile) or a plain date. `Date.parse` alone is not used because
 * it accepts 'March 7' and friends. A space in place of `T` and hh:mm without seconds are
 * accepted because devices send them; no zone means UTC.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** The field a payload property feeds, and its precedence (0 = canonical name, then aliases). */
interface PropertyMatch {
  field: keyof TelemetryValues | 'timestamp';
  rank: number;
}

/**
 * Lower-cased property name → field, built once. Two fields claiming the same name
 * (case-insensitively) is a mistake in the field table; failing at module load makes it
 * impossible to ship rather than silently feeding one field with the other's data.
 */
export function buildPropertyIndex(
  fields: readonly { name: PropertyMatch['field']; names: readonly string[] }[],
): ReadonlyMap<string, PropertyMatch> {
  const index = new Map<string, PropertyMatch>();
  for (const { name: field, names } of fields) {
    names.forEach((name, rank) => {
      const lowerCased = name.toLowerCase();
      const claimed = index.get(lowerCased);
      if (claimed === undefined) {
        index.set(lowerCased, { field, rank });
      } else if (claimed.field !== field) {
        throw new Error(`Telemetry property name "${name}" is claimed by both ${claimed.field} and ${field}`);
      }
      // The same field spelling a name twice ('dateTime', 'datetime') keeps the earlier rank.
    });
  }
  return index;
}

const PROPERTY_INDEX = buildPropertyIndex([
  ...[...NUMERIC_FIELDS, ...TEXT_FIELDS, ...CODE_FIELDS].map((field) => ({
    name: field.name,
    names: [field.name, ...field.aliases],
  })),
  { name: 'timestamp', names: TIMESTAMP_ALIASES },
]);

/**
 * The table's own spellings, each with the match of its lower-cased form: most devices send these
 * exactly, and a property found here needs no lower-cased copy to be looked up.
 */
const SPELLED_AS_LISTED: ReadonlyMap<string, PropertyMatch> = new Map(
  [...NUMERIC_FIELDS, ...TEXT_FIELDS, ...CODE_FIELDS]
    .flatMap((field) => [field.name, ...field.aliases])
    .concat(TIMESTAMP_ALIASES)
    .map((name) => [name, PROPERTY_INDEX.get(name.toLowerCase())!]),
);

function matchOf(property: string): PropertyMatch | undefined {
  return SPELLED_AS_LISTED.get(property) ?? PROPERTY_INDEX.get(property.toLowerCase());
}

/**
 * The field a property (or a CSV column) of this name feeds, matched as messages are: canonical
 * names and aliases, case-insensitively; undefined for a name no field knows.
 */
export function telemetryFieldOf(property: string): PropertyMatch['field'] | undefined {
  return matchOf(property)?.field;
}

export function normalizeTelemetry(payload: unknown, now: Date): NormalizeResult {
  if (!isJsonObject(payload)) return reject('not_an_object');

  const properties = matchProperties(payload);

  // A null timestamp property counts as absent, so the next alias (or arrival time) is used.
  const timestamp = parseTimestamp(pick(payload, properties.get('timestamp'), presentOrNull, undefined));
  if (timestamp === 'invalid') return reject('invalid_timestamp');
  if (timestamp !== null && timestamp.getTime() - now.getTime() > MAX_CLOCK_AHEAD_MS) {
    return reject('future_timestamp');
  }

  // Readers are passed with their field rather than wrapped in a closure per field and message.
  const values = emptyTelemetryValues();
  let anyValue = false;
  for (const field of NUMERIC_FIELDS) {
    const value = pick(payload, properties.get(field.name), parseInRange, field);
    values[field.name] = value;
    anyValue ||= value !== null;
  }
  for (const field of TEXT_FIELDS) {
    const value = pick(payload, properties.get(field.name), parseText, undefined);
    values[field.name] = value;
    anyValue ||= value !== null;
  }
  for (const field of CODE_FIELDS) {
    const value = pick(payload, properties.get(field.name), parseCodes, undefined);
    values[field.name] = value;
    // An empty codes array is a value: the device says "no faults".
    anyValue ||= value !== null;
  }
  if (!anyValue) return reject('no_valid_fields');

  return { ok: true, telemetry: { timestamp, values, raw: withoutKey(payload) } };
}

/** Below a billionth of a field's unit, a reading is 0 (see `parseNumber`). */
const NEGLIGIBLE = 1e-9;

/**
 * A JSON number, or a string in invariant-culture float syntax (surrounding whitespace allowed);
 * anything else, and anything not finite, is null. A magnitude under `NEGLIGIBLE` is 0: no meter
 * resolves it, and PostgreSQL refuses float arithmetic whose result underflows to 0 (the hourly
 * energy of 5e-324 W), which would fail the row. -0 becomes 0 so equal readings compare equal.
 */
export function parseNumber(value: unknown): number | null {
  let parsed: number;
  if (typeof value === 'number') {
    parsed = value;
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (!INVARIANT_FLOAT.test(text)) return null;
    parsed = Number(text);
  } else {
    return null;
  }
  if (!Number.isFinite(parsed)) return null;
  return Math.abs(parsed) < NEGLIGIBLE ? 0 : parsed;
}

/**
 * Free text (operating mode, device status): a string, or a number written as one. Trimmed,
 * empty is null, cut to MAX_TEXT_LENGTH.
 */
export function parseText(value: unknown): string | null {
  if (typeof value === 'string') return cleanText(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * Fault or warning codes: an array of strings and numbers, or one comma-separated string. Each
 * code is trimmed and cut to MAX_TEXT_LENGTH, blanks are dropped, at most MAX_CODES are kept.
 * An empty array or blank string is `[]`: the device says there are none. An array of nothing
 * but unusable elements (objects, booleans, null) says nothing, so it is null rather than `[]`,
 * which would be a false "no faults".
 */
export function parseCodes(value: unknown): string[] | null {
  let items: readonly unknown[];
  if (typeof value === 'string') items = value.split(',');
  else if (Array.isArray(value)) items = value;
  else return null;

  const codes: string[] = [];
  let unusable = 0;
  for (const item of items) {
    if (codes.length === MAX_CODES) break;
    if (typeof item === 'string') {
      const code = cleanText(item);
      if (code !== null) codes.push(code);
    } else if (typeof item === 'number' && Number.isFinite(item)) {
      codes.push(String(item));
    } else {
      unusable++;
    }
  }
  return codes.length === 0 && unusable > 0 ? null : codes;
}

/**
 * The device's timestamp: ISO 8601 (see ISO_8601) or Unix epoch seconds or milliseconds, as a
 * number or a numeric string. null/undefined → null (no timestamp: the caller uses arrival
 * time). Unparseable, or before 2000-01-01 (an unset device clock) → 'invalid'. Whether it is
 * too far in the future depends on `now`, so normalizeTelemetry checks that.
 */
export function parseTimestamp(value: unknown): Date | null | 'invalid' {
  if (value === null || value === undefined) return null;

  let epochMs: number;
  if (typeof value === 'number') {
    epochMs = epochToMilliseconds(value);
  } else if (typeof value === 'string') {
    const text = value.trim();
    epochMs = INVARIANT_FLOAT.test(text) ? epochToMilliseconds(Number(text)) : parseIso8601(text);
  } else {
    return 'invalid';
  }

  if (!Number.isFinite(epochMs) || epochMs < EARLIEST_TIMESTAMP_MS || epochMs > MAX_DATE_MS) return 'invalid';
  return new Date(epochMs);
}

/** A shallow copy without the webhook secret; nothing else is changed. */
export function withoutKey(payload: Record<string, unknown>): Record<string, unknown> {
  // Rest properties are defined, not assigned, so an own `__proto__` property stays a plain
  // property instead of replacing the copy's prototype.
  const { key: _secret, ...raw } = payload;
  return raw;
}

function reject(reason: TelemetryRejection): NormalizeResult {
  return { ok: false, reason, message: TELEMETRY_REJECTION_MESSAGES[reason] };
}

/**
 * Only a plain object: arrays, null, primitives, and objects such as Buffer or Date are not a
 * telemetry document. The tag test rather than a prototype comparison also accepts objects
 * parsed in another realm (a Jest sandbox, a worker) and null-prototype objects.
 */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object Object]'
  );
}

/**
 * The payload's own top-level property names per field, best first: canonical name, then aliases
 * in table order; properties of equal rank (differing only in case) keep payload order.
 */
function matchProperties(payload: Record<string, unknown>): Map<PropertyMatch['field'], string[]> {
  const properties = new Map<PropertyMatch['field'], string[]>();
  for (const property of Object.keys(payload)) {
    const match = matchOf(property);
    if (match === undefined) continue;
    const candidates = properties.get(match.field);
    if (candidates === undefined) {
      properties.set(match.field, [property]);
      continue;
    }
    // Rare: several spellings of one field. Insert after every candidate of equal or better rank.
    const worse = candidates.findIndex((candidate) => rankOf(candidate) > match.rank);
    candidates.splice(worse === -1 ? candidates.length : worse, 0, property);
  }
  return properties;
}

function rankOf(property: string): number {
  return matchOf(property)?.rank ?? Infinity;
}

/**
 * The first candidate property whose value reads as non-null: a device that sends
 * `{ soc: 'junk', batteryLevel: 55 }` still reports 55.
 */
function pick<T, C>(
  payload: Record<string, unknown>,
  properties: readonly string[] | undefined,
  read: (value: unknown, context: C) => T | null,
  context: C,
): T | null {
  if (properties === undefined) return null;
  for (const property of properties) {
    const value = read(payload[property], context);
    if (value !== null) return value;
  }
  return null;
}

function presentOrNull(value: unknown): unknown {
  return value ?? null;
}

function parseInRange(value: unknown, field: NumericFieldDefinition): number | null {
  const parsed = parseNumber(value);
  // Out of range is null, not a rejection: one broken sensor must not cost the other readings.
  return parsed !== null && parsed >= field.min && parsed <= field.max ? parsed : null;
}

function cleanText(value: string): string | null {
  // PostgreSQL text cannot hold U+0000; a stray NUL from a C string must not fail the insert.
  const text = truncate(value.replace(/\u0000/g, '').trim()).trimEnd();
  return text === '' ? null : text;
}

/** Cut to MAX_TEXT_LENGTH UTF-16 units without splitting a surrogate pair into invalid text. */
function truncate(text: string): string {
  if (text.length <= MAX_TEXT_LENGTH) return text;
  const lastKept = text.charCodeAt(MAX_TEXT_LENGTH - 1);
  const splitsPair = lastKept >= 0xd800 && lastKept <= 0xdbff;
  return text.slice(0, splitsPair ? MAX_TEXT_LENGTH - 1 : MAX_TEXT_LENGTH);
}

function epochToMilliseconds(epoch: number): number {
  return epoch >= EPOCH_MILLISECONDS_FROM ? epoch : epoch * 1000;
}

/** Milliseconds since the epoch, or NaN when the text is not a real ISO 8601 date (time). */
function parseIso8601(text: string): number {
  const match = ISO_8601.exec(text);
  if (match === null) return NaN;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] = match;

  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  // 2024-13-45 or 25:00 must not roll over into another date, as Date.UTC would.
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return NaN;

  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const offsetHours = Number(digits.slice(0, 2));
    const offsetRest = Number(digits.slice(2) || '0');
    if (offsetHours > 23 || offsetRest > 59) return NaN;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetRest);
  }

  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  // Date.UTC reads years 0-99 as 1900-1999; both are before 2000 and rejected by the caller.
  return Date.UTC(y, mo - 1, d, h, mi, s, milliseconds) - offsetMinutes * 60_000;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
