import { plainToInstance } from 'class-transformer';
import { IsOptional, validateSync } from 'class-validator';
import { flattenValidationErrors } from '@solar/platform';
import { ClampedInt, CurrencyCode, IsoDateTime, MaxChars, MaxDecimals } from './dto-decorators';

class Query {
  @ClampedInt({ min: 1, max: 100, default: 20 })
  pageSize = 20;
}

describe('ClampedInt', () => {
  it.each([
    [undefined, 20],
    ['', 20],
    ['0', 1],
    ['1', 1],
    ['100', 100],
    ['101', 100],
    ['-5', 1],
    [55, 55],
  ])('reads %p as %p', (raw, expected) => {
    const query = plainToInstance(Query, raw === undefined ? {} : { pageSize: raw });
    expect(validateSync(query)).toEqual([]);
    expect(query.pageSize).toBe(expected);
  });

  it.each(['abc', '1.5', '1e3', '99999999999999999999'])('rejects %p', (raw) => {
    const errors = validateSync(plainToInstance(Query, { pageSize: raw }));
    expect(flattenValidationErrors(errors)).toEqual({ pageSize: ['pageSize must be an integer'] });
  });
});

class Limits {
  @MaxChars(3)
  name?: string;

  @MaxDecimals(2)
  amount?: number;

  @IsOptional()
  @IsoDateTime()
  at?: Date;

  @IsOptional()
  @CurrencyCode()
  currency?: string;
}

describe('column-safe validators', () => {
  const check = (plain: object) => {
    const instance = plainToInstance(Limits, plain);
    return { instance, errors: flattenValidationErrors(validateSync(instance)) };
  };

  it.each([
    ['abc', true],
    ['abcd', false],
    ['\u2764\uFE0F\u2764', true],
    ['\u2764\uFE0F\u2764\uFE0F', false],
    ['😀😀😀', true],
  ])('MaxChars(3) counts code points: %p is %s', (name, valid) => {
    expect(Object.keys(check({ name }).errors)).toEqual(valid ? [] : ['name']);
  });

  it.each([
    [12000.5, true],
    [0.29, true],
    [1.234, false],
    [1e-7, false],
    [1e-9, false],
    [5e-324, false],
    [1.5e-1, true],
    [1e21, true],
    [-0.01, true],
    [0, true],
    [0.1 + 0.07, true],
  ])('MaxDecimals(2): %p is %s', (amount, valid) => {
    expect(Object.keys(check({ amount }).errors)).toEqual(valid ? [] : ['amount']);
  });

  it.each([
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01T10:00', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00+02:00', '2024-05-01T08:00:00.000Z'],
  ])('IsoDateTime reads %p as %p, never in local time', (at, iso) => {
    const { instance, errors } = check({ at });
    expect(errors).toEqual({});
    expect(instance.at?.toISOString()).toBe(iso);
  });

  it('IsoDateTime refuses what is not ISO 8601', () => {
    expect(check({ at: 'yesterday' }).errors).toEqual({ at: ['at must be an ISO 8601 date or date-time'] });
  });

  it('CurrencyCode upper-cases and checks ISO 4217', () => {
    expect(check({ currency: 'usd' }).instance.currency).toBe('USD');
    expect(Object.keys(check({ currency: 'EURO' }).errors)).toEqual(['currency']);
  });
});
