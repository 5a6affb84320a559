import {
  buildPropertyIndex,
  normalizeTelemetry,
  NormalizeResult,
  parseCodes,
  parseNumber,
  parseText,
  parseTimestamp,
  withoutKey,
} from './normalize';
import { CODE_FIELDS, NUMERIC_FIELDS, NumericField, TelemetryValues, TEXT_FIELDS } from './telemetry-fields';

const now = new Date('2024-06-01T12:00:00.000Z');

function accepted(result: NormalizeResult) {
  if (!result.ok) throw new Error(`expected the payload to be accepted, got ${result.reason}`);
  return result.telemetry;
}

/**
 * The value `field` gets from `{ [property]: value }`. Another field rides along so that a
 * payload whose only field is null is not rejected as meaningless.
 */
function read(field: keyof TelemetryValues, property: string, value: unknown) {
  const companion = field === 'deviceStatus' ? { stateOfCharge: 50 } : { deviceStatus: 'companion' };
  return accepted(normalizeTelemetry({ ...companion, [property]: value }, now)).values[field];
}

const namesOf = (field: { name: string; aliases: readonly string[] }) => [field.name, ...field.aliases];
/** Every accepted spelling: canonical name and aliases, as written and upper-cased. */
const spellingsOf = (field: { name: string; aliases: readonly string[] }) =>
  namesOf(field).flatMap((name) => [name, name.toUpperCase()]);

describe('normalizeTelemetry: property names', () => {
  it.each(
    NUMERIC_FIELDS.flatMap((field) =>
      spellingsOf(field).map((property): [NumericField, string, number] => [
        field.name,
        property,
        (field.min + field.max) / 2 + 0.25,
      ]),
    ),
  )('reads %s from "%s"', (field, property, value) => {
    expect(read(field, property, value)).toBe(value);
  });

  it.each(
    TEXT_FIELDS.flatMap((field) => spellingsOf(field).map((property) => [field.name, property] as const)),
  )('reads %s from "%s"', (field, property) => {
    expect(read(field, property, 'Line Mode')).toBe('Line Mode');
  });

  it.each(
    CODE_FIELDS.flatMap((field) => spellingsOf(field).map((property) => [field.name, property] as const)),
  )('reads %s from "%s"', (field, property) => {
    expect(read(field, property, ['E01'])).toEqual(['E01']);
  });

  it('ignores nested properties and unknown names', () => {
    const telemetry = accepted(
      normalizeTelemetry({ battery: { soc: 40 }, socket: 5, stateOfCharge_: 1, loadPower: 10 }, now),
    );
    expect(telemetry.values.stateOfCharge).toBeNull();
    expect(telemetry.values.loadPower).toBe(10);
  });
});

describe('normalizeTelemetry: precedence between properties of one field', () => {
  it.each([
    ['canonical beats alias, whatever the order', { soc: 10, stateOfCharge: 20 }, 20],
    ['canonical beats alias in any case', { soc: 10, STATEOFCHARGE: 20 }, 20],
    ['aliases in table order', { batteryPercent: 30, soc: 10, batteryLevel: 20 }, 10],
    ['later alias beats earlier one', { battery_level: 40, batteryLevel: 20 }, 20],
    ['first non-null wins', { soc: 'junk', batteryLevel: 55 }, 55],
    ['out of range counts as null', { stateOfCharge: 150, soc: 60 }, 60],
    ['equal rank keeps payload order', { SOC: 70, soc: 80 }, 70],
    ['all junk is null', { stateOfCharge: 'x', soc: true, batteryLevel: 101 }, null],
  ])('%s', (_case, payload, expected) => {
    expect(accepted(normalizeTelemetry({ ...payload, deviceStatus: 'ok' }, now)).values.stateOfCharge).toBe(
      expected,
    );
  });

  it('applies the same rule to text and codes', () => {
    const values = accepted(
      normalizeTelemetry({ mode: 'Battery', operatingMode: '  ', faults: 'E2', fault_codes: 42 }, now),
    ).values;
    expect(values.operatingMode).toBe('Battery');
    expect(values.faultCodes).toEqual(['E2']);
  });
});

describe('normalizeTelemetry: numeric ranges', () => {
  const step = 0.001;

  it.each(NUMERIC_FIELDS.map((field) => [field.name, field.min, field.max] as const))(
    '%s accepts %p..%p inclusive and nothing beyond',
    (name, min, max) => {
      expect(max + step).not.toBe(max); // the step is representable at this magnitude
      expect(read(name, name, min)).toBe(min);
      expect(read(name, name, max)).toBe(max);
      expect(read(name, name, min - step)).toBeNull();
      expect(read(name, name, max + step)).toBeNull();
      expect(read(name, name, String(max))).toBe(max);
      expect(read(name, name, `${max + step}`)).toBeNull();
    },
  );

  it.each(
    NUMERIC_FIELDS.flatMap((field) =>
      [' 12.5 ', '1e2', '-0.5'].map((text): [NumericField, string, number | null] => {
        const value = Number(text);
        return [field.name, text, value >= field.min && value <= field.max ? value : null];
      }),
    ),
  )('%s reads the string %p as %p', (name, text, expected) => {
    expect(read(name, name, text)).toBe(expected);
  });

  const junk: unknown[] = ['1,5', 'abc', '', true, {}, [], 'NaN', 'Infinity', '0x10', '1 000', '12V', null];
  it.each(
    NUMERIC_FIELDS.flatMap((field) => junk.map((value): [NumericField, unknown] => [field.name, value])),
  )('%s reads %p as null', (name, value) => {
    expect(read(name, name, value)).toBeNull();
  });
});

describe('parseNumber', () => {
  it.each([
    [12, 12],
    [-3.25, -3.25],
    [-0, 0],
    ['12.5', 12.5],
    ['  7 ', 7],
    ['\t-0.5\n', -0.5],
    ['+3', 3],
    ['1.', 1],
    ['.5', 0.5],
    ['1E3', 1000],
    ['2.5e-3', 0.0025],
    ['-0', 0],
    ['007', 7],
    // Under a billionth: 0, so that no float arithmetic of the rollup underflows.
    [5e-324, 0],
    ['-1e-320', 0],
    [9.99e-10, 0],
    [1e-9, 1e-9],
    [1e-7, 1e-7],
  ])('reads %p as %p', (value, expected) => {
    expect(parseNumber(value)).toBe(expected);
  });

  it.each([
    '1,5',
    '1.000,5',
    '1_000',
    '0x10',
    '0b1',
    'Infinity',
    '-Infinity',
    'NaN',
    '1e400',
    '.',
    '-',
    'e5',
    '1e',
    '1.2.3',
    '',
    '   ',
    Infinity,
    NaN,
    true,
    false,
    null,
    undefined,
    {},
    [],
    [5],
    BigInt(5),
  ])('reads %p as null', (value) => {
    expect(parseNumber(value)).toBeNull();
  });
});

describe('normalizeTelemetry: text fields', () => {
  it.each([
    ['Line Mode', 'Line Mode'],
    ['  Battery  ', 'Battery'],
    [3, '3'],
    [2.5, '2.5'],
    ['', null],
    ['   ', null],
    [true, null],
    [null, null],
    [{ mode: 'x' }, null],
    [['x'], null],
    ['a\u0000b', 'ab'],
    ['x'.repeat(150), 'x'.repeat(100)],
    [`${'x'.repeat(99)}😀`, 'x'.repeat(99)],
    [`${'x'.repeat(98)}😀`, `${'x'.repeat(98)}😀`],
  ])('reads %j as %j', (value, expected) => {
    expect(parseText(value)).toBe(expected);
    expect(read('operatingMode', 'operatingMode', value)).toBe(expected);
  });
});

describe('normalizeTelemetry: fault and warning codes', () => {
  it.each([
    ['an array of strings', ['E01', 'E02'], ['E01', 'E02']],
    ['a comma-separated string', 'E01, E02 ,E03', ['E01', 'E02', 'E03']],
    ['one code', 'E01', ['E01']],
    ['numbers', [1, 2.5, -3], ['1', '2.5', '-3']],
    ['mixed junk dropped', ['E01', null, true, {}, [], ' ', '', 'E02', 7], ['E01', 'E02', '7']],
    ['blank entries dropped', ',E01,,  ,', ['E01']],
    ['an empty array: no faults', [], []],
    ['an empty string: no faults', '', []],
    ['a blank string: no faults', '  ,  ', []],
    ['only unusable elements', [null, {}, false], null],
    ['a number', 12, null],
    ['an object', { code: 'E01' }, null],
    ['a boolean', true, null],
    ['null', null, null],
    ['a long code, cut', ['x'.repeat(150)], ['x'.repeat(100)]],
  ])('%s: %p → %p', (_case, value, expected) => {
    expect(parseCodes(value)).toEqual(expected);
    expect(read('faultCodes', 'faultCodes', value)).toEqual(expected);
    expect(read('warningCodes', 'warnings', value)).toEqual(expected);
  });

  it('keeps the first 100 of 101 codes, from an array or a string', () => {
    const codes = Array.from({ length: 101 }, (_, index) => `E${index}`);
    expect(read('faultCodes', 'faultCodes', codes)).toEqual(codes.slice(0, 100));
    expect(read('faultCodes', 'faultCodes', codes.join(','))).toEqual(codes.slice(0, 100));
  });
});

describe('normalizeTelemetry: timestamp', () => {
  const instant = new Date('2024-05-31T10:20:30.000Z');
  const seconds = instant.getTime() / 1000;

  it.each([
    ['ISO with Z', '2024-05-31T10:20:30Z'],
    ['ISO with lower-case z', '2024-05-31t10:20:30z'],
    ['ISO with milliseconds', '2024-05-31T10:20:30.000Z'],
    ['ISO with offset', '2024-05-31T12:20:30+02:00'],
    ['ISO with compact offset', '2024-05-31T05:20:30-0500'],
    ['ISO with hour offset', '2024-05-31T11:20:30+01'],
    ['ISO without offset (UTC)', '2024-05-31T10:20:30'],
    ['ISO with a space', '2024-05-31 10:20:30'],
    ['ISO with padding', '  2024-05-31T10:20:30Z '],
    ['epoch seconds', seconds],
    ['epoch milliseconds', instant.getTime()],
    ['epoch seconds as a string', String(seconds)],
    ['epoch milliseconds as a string', String(instant.getTime())],
  ])('reads %s', (_case, value) => {
    expect(accepted(normalizeTelemetry({ timestamp: value, soc: 50 }, now)).timestamp).toEqual(instant);
  });

  it.each([
    ['2024-05-31', '2024-05-31T00:00:00.000Z'],
    ['2024-05-31T10:20', '2024-05-31T10:20:00.000Z'],
    ['2024-05-31T10:20:30.5Z', '2024-05-31T10:20:30.500Z'],
    ['2024-05-31T10:20:30.123456789Z', '2024-05-31T10:20:30.123Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    [1717150830.25, '2024-05-31T10:20:30.250Z'],
  ])('reads %p as %s', (value, iso) => {
    expect(parseTimestamp(value)).toEqual(new Date(iso));
  });

  it.each(['timestamp', 'ts', 'time', 'dateTime', 'datetime', 'TS', 'DateTime'])(
    'reads the timestamp from "%s"',
    (property) => {
      expect(accepted(normalizeTelemetry({ [property]: seconds, soc: 50 }, now)).timestamp).toEqual(instant);
    },
  );

  it('prefers timestamp, then ts, time, dateTime; a null one counts as absent', () => {
    const timestampOf = (payload: Record<string, unknown>) =>
      accepted(normalizeTelemetry({ ...payload, soc: 50 }, now)).timestamp?.toISOString();
    expect(timestampOf({ time: '2024-01-03', ts: '2024-01-02', timestamp: '2024-01-01' })).toBe(
      '2024-01-01T00:00:00.000Z',
    );
    expect(timestampOf({ datetime: '2024-01-04', time: '2024-01-03' })).toBe('2024-01-03T00:00:00.000Z');
    expect(timestampOf({ timestamp: null, ts: '2024-01-02' })).toBe('2024-01-02T00:00:00.000Z');
    expect(timestampOf({ timestamp: null })).toBeUndefined();
  });

  it('does not fall back to another property when the first present one is invalid', () => {
    expect(normalizeTelemetry({ timestamp: 'junk', ts: seconds, soc: 50 }, now)).toMatchObject({
      ok: false,
      reason: 'invalid_timestamp',
    });
  });

  it('is null when absent (the caller uses the arrival time)', () => {
    expect(accepted(normalizeTelemetry({ soc: 50 }, now)).timestamp).toBeNull();
  });

  it.each([
    ['2000-01-01T00:00:00Z', true],
    ['2000-01-01', true],
    [946684800, true],
    [946684800000, true],
    ['1999-12-31T23:59:59.999Z', false],
    ['2000-01-01T00:30:00+01:00', false],
    [946684799, false],
    [0, false],
    [-1, false],
    ['0', false],
  ])('accepts %p from 2000-01-01 on: %p', (value, ok) => {
    const result = normalizeTelemetry({ timestamp: value, soc: 50 }, now);
    expect(result.ok ? 'ok' : result.reason).toBe(ok ? 'ok' : 'invalid_timestamp');
  });

  it.each([
    [now.getTime() + 5 * 60_000, 'ok'],
    [now.getTime() + 5 * 60_000 + 1, 'future_timestamp'],
    [now.getTime() + 86_400_000, 'future_timestamp'],
    [now.getTime() - 365 * 86_400_000, 'ok'],
  ])('checks %p against now + 5 minutes: %s', (epochMs, expected) => {
    const iso = new Date(epochMs).toISOString();
    for (const value of [epochMs, iso]) {
      const result = normalizeTelemetry({ timestamp: value, soc: 50 }, now);
      expect(result.ok ? 'ok' : result.reason).toBe(expected);
    }
  });

  it('says why a future timestamp is refused', () => {
    expect(normalizeTelemetry({ timestamp: '2030-01-01T00:00:00Z', soc: 50 }, now)).toEqual({
      ok: false,
      reason: 'future_timestamp',
      message: 'Timestamp is more than 5 minutes in the future',
    });
  });

  it.each<unknown>([
    'yesterday',
    'March 7',
    'March 7, 2024',
    'Fri, 31 May 2024 10:20:30 GMT',
    '2024-13-45T00:00:00Z',
    '2024-02-30',
    '2023-02-29',
    '2024-05-31T24:00:00Z',
    '2024-05-31T10:60:00Z',
    '2024-05-31T10:20:60Z',
    '2024-05-31T10:20:30+24:00',
    '2024-5-31',
    '2024-05-31T10',
    '2024-05-31T10:20:30ZZ',
    '31/05/2024',
    '',
    ' ',
    '1,717,150,830',
    'NaN',
    'Infinity',
    1e300,
    Infinity,
    {},
    [],
    [seconds],
    true,
    false,
  ])('refuses %p as invalid', (value) => {
    expect(parseTimestamp(value)).toBe('invalid');
    expect(normalizeTelemetry({ timestamp: value, soc: 50 }, now)).toEqual({
      ok: false,
      reason: 'invalid_timestamp',
      message: 'Invalid timestamp',
    });
  });
});

describe('normalizeTelemetry: rejections', () => {
  it.each<unknown>([
    null,
    undefined,
    [],
    [{ soc: 50 }],
    'soc=50',
    '{"soc":50}',
    50,
    true,
    Buffer.from('{}'),
    now,
  ])('refuses %p as not an object', (payload) => {
    expect(normalizeTelemetry(payload, now)).toEqual({
      ok: false,
      reason: 'not_an_object',
      message: 'Payload must be a JSON object',
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['an empty object', {}],
    ['unknown properties only', { foo: 1 }],
    ['a timestamp only', { timestamp: '2024-05-31T10:20:30Z' }],
    ['an out-of-range value only', { stateOfCharge: 150 }],
    ['junk values only', { soc: 'full', mode: '', faults: [null] }],
    ['the secret only', { key: 'x' }],
  ])('refuses %s as meaningless', (_case, payload) => {
    expect(normalizeTelemetry(payload, now)).toEqual({
      ok: false,
      reason: 'no_valid_fields',
      message: 'No valid telemetry fields',
    });
  });

  it('accepts an empty codes array alone: "no faults" is a reading', () => {
    expect(accepted(normalizeTelemetry({ faultCodes: [] }, now)).values.faultCodes).toEqual([]);
  });

  it('checks the timestamp before meaningfulness', () => {
    expect(normalizeTelemetry({ timestamp: 'junk' }, now)).toMatchObject({ reason: 'invalid_timestamp' });
    expect(normalizeTelemetry({ timestamp: '2030-01-01' }, now)).toMatchObject({
      reason: 'future_timestamp',
    });
  });
});

describe('normalizeTelemetry: result', () => {
  it('fills every field, null where nothing usable came', () => {
    const telemetry = accepted(
      normalizeTelemetry(
        {
          key: 'secret',
          ts: 1717150830,
          soc: '85.5',
          pvPower: 1200,
          mode: 'Solar',
          faults: 'F1,F2',
          extra: { a: 1 },
        },
        now,
      ),
    );
    expect(telemetry.timestamp).toEqual(new Date('2024-05-31T10:20:30Z'));
    expect(telemetry.values).toEqual({
      ...Object.fromEntries(
        [...NUMERIC_FIELDS, ...TEXT_FIELDS, ...CODE_FIELDS].map((field) => [field.name, null]),
      ),
      stateOfCharge: 85.5,
      solarPower: 1200,
      operatingMode: 'Solar',
      faultCodes: ['F1', 'F2'],
    });
  });

  it('keeps the raw payload, unknown properties included, without `key` only', () => {
    const payload = { key: 'secret', KEY: 'kept', keys: 1, soc: 'junk', nested: { key: 'kept' }, list: [1] };
    const telemetry = accepted(normalizeTelemetry({ ...payload, loadPower: 5 }, now));
    expect(telemetry.raw).toEqual({
      KEY: 'kept',
      keys: 1,
      soc: 'junk',
      nested: { key: 'kept' },
      list: [1],
      loadPower: 5,
    });
    expect(payload.key).toBe('secret'); // the caller's object is not modified
  });

  it('withoutKey copies shallowly and leaves the payload alone', () => {
    const nested = { a: 1 };
    const payload = { key: 'x', nested };
    const raw = withoutKey(payload);
    expect(raw).toEqual({ nested });
    expect(raw.nested).toBe(nested);
    expect(payload).toEqual({ key: 'x', nested });
  });

  it('is not fooled by prototype-ish properties', () => {
    const payload = JSON.parse(
      '{"__proto__": {"polluted": true, "soc": 1}, "constructor": {"prototype": {"polluted": true}}, "toString": 5, "hasOwnProperty": 1, "soc": 42}',
    );
    const telemetry = accepted(normalizeTelemetry(payload, now));
    expect(telemetry.values.stateOfCharge).toBe(42);
    expect(Object.getPrototypeOf(telemetry.raw)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(telemetry.values)).toBe(Object.prototype);
    expect(Object.keys(telemetry.raw)).toEqual([
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'soc',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads only own properties', () => {
    const payload = Object.create({ soc: 50 }) as Record<string, unknown>;
    payload.loadPower = 5;
    expect(accepted(normalizeTelemetry(payload, now)).values.stateOfCharge).toBeNull();
    expect(
      accepted(normalizeTelemetry(Object.assign(Object.create(null), { soc: 5 }), now)).values.stateOfCharge,
    ).toBe(5);
  });
});

describe('buildPropertyIndex', () => {
  it('fails loudly when two fields claim one name, even in another case', () => {
    expect(() =>
      buildPropertyIndex([
        { name: 'stateOfCharge', names: ['stateOfCharge', 'soc'] },
        { name: 'stateOfHealth', names: ['stateOfHealth', 'SOC'] },
      ]),
    ).toThrow('Telemetry property name "SOC" is claimed by both stateOfCharge and stateOfHealth');
  });

  it('allows one field to spell a name twice', () => {
    const index = buildPropertyIndex([{ name: 'timestamp', names: ['timestamp', 'dateTime', 'datetime'] }]);
    expect(index.get('datetime')).toEqual({ field: 'timestamp', rank: 1 });
  });
});
