import { normalizeTelemetry, NormalizeResult, TELEMETRY_REJECTION_MESSAGES } from './normalize';
import {
  CODE_FIELDS,
  emptyTelemetryValues,
  MAX_CODES,
  MAX_TEXT_LENGTH,
  NUMERIC_FIELDS,
  TEXT_FIELDS,
  TIMESTAMP_ALIASES,
} from './telemetry-fields';
import { seededRandom } from '@solar/testing';

const SEED = 20240601;
const now = new Date('2024-06-01T12:00:00.000Z');

const FIELD_NAMES = [...NUMERIC_FIELDS, ...TEXT_FIELDS, ...CODE_FIELDS].flatMap((field) => [
  field.name,
  ...field.aliases,
]);
const PROPERTY_NAMES = [
  ...FIELD_NAMES,
  ...FIELD_NAMES.map((name) => name.toUpperCase()),
  ...TIMESTAMP_ALIASES,
  'key',
  'KEY',
  'foo',
  '',
  ' soc',
  'soc ',
  'battery',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];
const EXTREME_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.001,
  100,
  100.001,
  1e11,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  8.64e15,
  8.64e15 + 1,
  NaN,
  Infinity,
  -Infinity,
];

class RandomTelemetry {
  constructor(private readonly random: () => number) {}

  integer(below: number): number {
    return Math.floor(this.random() * below);
  }

  choose<T>(items: readonly T[]): T {
    return items[this.integer(items.length)];
  }

  document(depth = 0): Record<string, unknown> {
    const document: Record<string, unknown> = {};
    const size = this.integer(depth === 0 ? 16 : 5);
    for (let index = 0; index < size; index++) {
      // defineProperty, as JSON.parse does: `__proto__` becomes an own property, not the prototype.
      Object.defineProperty(document, this.propertyName(), {
        value: this.value(depth),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    // Timestamp names are few among the property names; give them a fair share of documents.
    if (depth === 0 && this.random() < 0.4) document[this.choose(TIMESTAMP_ALIASES)] = this.timestampValue();
    return document;
  }

  propertyName(): string {
    return this.random() < 0.9 ? this.choose(PROPERTY_NAMES) : this.junkString(20);
  }

  value(depth: number): unknown {
    const kind = this.integer(12);
    switch (kind) {
      case 0:
      case 1:
        return (this.random() - 0.3) * 10 ** this.integer(7);
      case 2:
        return this.choose(EXTREME_NUMBERS);
      case 3:
        return this.numericString();
      case 4:
        return this.timestampValue();
      case 5:
        return this.junkString(this.random() < 0.1 ? 10_000 : 30);
      case 6:
        return this.random() < 0.5;
      case 7:
        return null;
      case 8:
        return this.codes();
      case 9:
        return depth < 5 ? Array.from({ length: this.integer(4) }, () => this.value(depth + 1)) : [];
      case 10:
        return depth < 5 ? this.document(depth + 1) : {};
      default:
        return this.choose(['Line Mode', ' Battery ', '', 'E1,E2', '1,5', 'NaN', 'Infinity', '0x10', '1e2']);
    }
  }

  numericString(): string {
    const number = (this.random() - 0.5) * 10 ** this.integer(8);
    const text = this.random() < 0.3 ? number.toExponential() : String(number);
    return this.random() < 0.3 ? ` ${text}\t` : text;
  }

  timestampValue(): unknown {
    const epochMs = now.getTime() + (this.random() - 0.9) * 40 * 365 * 86_400_000;
    switch (this.integer(5)) {
      case 0:
        return new Date(epochMs).toISOString();
      case 1:
        return epochMs;
      case 2:
        return Math.floor(epochMs / 1000);
      case 3:
        return String(Math.floor(epochMs / 1000));
      default:
        return this.choose([
          'yesterday',
          'March 7',
          '2024-13-45T00:00:00Z',
          '2024-05-31',
          '2024-05-31 10:00',
        ]);
    }
  }

  codes(): unknown {
    const codes = Array.from({ length: this.integer(this.random() < 0.1 ? 300 : 5) }, () =>
      this.choose<unknown>(['E1', ' W2 ', '', 7, null, true, {}, [], 'x'.repeat(150), NaN]),
    );
    return this.random() < 0.5 ? codes : codes.filter((code) => typeof code === 'string').join(',');
  }

  junkString(maxLength: number): string {
    const alphabet = [
      'a',
      'Z',
      '0',
      '9',
      ' ',
      ',',
      '.',
      '-',
      'e',
      '\u0000',
      '\n',
      'é',
      '\ud83d',
      '\ude00',
      '😀',
      '"',
      '\\',
    ];
    return Array.from({ length: this.integer(maxLength + 1) }, () => this.choose(alphabet)).join('');
  }

  nonObject(): unknown {
    switch (this.integer(6)) {
      case 0:
        return Array.from({ length: this.integer(4) }, () => this.document(4));
      case 1:
        return this.junkString(200);
      case 2:
        return this.choose(EXTREME_NUMBERS);
      case 3:
        return null;
      case 4:
        return this.random() < 0.5;
      default:
        return Array.from({ length: this.integer(4) }, () => this.value(3));
    }
  }
}

const VALUE_FIELDS = Object.keys(emptyTelemetryValues()).sort();

/** Everything a caller may rely on in a result, as a list of broken promises (empty when sound). */
function problemsWith(payload: unknown, result: NormalizeResult): string[] {
  const problems: string[] = [];
  if (!result.ok) {
    if (result.message !== TELEMETRY_REJECTION_MESSAGES[result.reason])
      problems.push(`message ${result.message}`);
    return problems;
  }

  const { timestamp, values, raw } = result.telemetry;
  if (timestamp !== null) {
    const time = timestamp.getTime();
    if (!(time >= Date.UTC(2000, 0, 1) && time <= now.getTime() + 5 * 60_000))
      problems.push(`timestamp ${time}`);
  }
  if (JSON.stringify(Object.keys(values).sort()) !== JSON.stringify(VALUE_FIELDS))
    problems.push('value fields');
  for (const field of NUMERIC_FIELDS) {
    const value = values[field.name];
    if (value !== null && !(Number.isFinite(value) && value >= field.min && value <= field.max)) {
      problems.push(`${field.name} = ${value}`);
    }
  }
  for (const field of TEXT_FIELDS) {
    const text = values[field.name];
    if (text !== null && !isCleanText(text)) problems.push(`${field.name} = ${JSON.stringify(text)}`);
  }
  for (const field of CODE_FIELDS) {
    const codes = values[field.name];
    if (codes !== null && !(Array.isArray(codes) && codes.length <= MAX_CODES && codes.every(isCleanText))) {
      problems.push(`${field.name} = ${JSON.stringify(codes)}`);
    }
  }
  if (Object.values(values).every((value) => value === null)) problems.push('accepted without a value');

  const expectedRawKeys = Object.keys(payload as object).filter((name) => name !== 'key');
  if (JSON.stringify(Object.keys(raw)) !== JSON.stringify(expectedRawKeys)) problems.push('raw keys');
  if (Object.getPrototypeOf(raw) !== Object.prototype) problems.push('raw prototype');
  return problems;
}

function isCleanText(text: unknown): boolean {
  return (
    typeof text === 'string' &&
    text.length > 0 &&
    text.length <= MAX_TEXT_LENGTH &&
    text === text.trim() &&
    !text.includes('\u0000')
  );
}

describe('normalizeTelemetry under random input', () => {
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

  afterAll(() => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
  });

  it(`never throws and keeps every promise for 1,000 random documents (seed ${SEED})`, () => {
    const random = new RandomTelemetry(seededRandom(SEED));
    const problems: string[] = [];
    const outcomes = new Map<string, number>();

    for (let index = 0; index < 1000; index++) {
      const payload = random.document();
      let result: NormalizeResult;
      try {
        result = normalizeTelemetry(payload, now);
      } catch (error) {
        problems.push(`#${index} threw ${String(error)}`);
        continue;
      }
      const outcome = result.ok ? 'ok' : result.reason;
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      problems.push(...problemsWith(payload, result).map((problem) => `#${index}: ${problem}`));
    }

    expect(problems).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The generator must reach every outcome, or the test proves less than it claims.
    expect([...outcomes.keys()].sort()).toEqual([
      'future_timestamp',
      'invalid_timestamp',
      'no_valid_fields',
      'ok',
    ]);
    expect(outcomes.get('ok')).toBeGreaterThan(200);
  });

  it(`refuses 1,000 random non-objects (seed ${SEED + 1})`, () => {
    const random = new RandomTelemetry(seededRandom(SEED + 1));
    const unexpected: unknown[] = [];
    for (let index = 0; index < 1000; index++) {
      const payload = random.nonObject();
      const result = normalizeTelemetry(payload, now);
      if (result.ok || result.reason !== 'not_an_object') unexpected.push(payload);
    }
    expect(unexpected).toEqual([]);
  });
});
