import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  buildMessage,
  IsBoolean,
  IsDate,
  IsInt,
  IsISO4217CurrencyCode,
  IsUrl,
  isISO8601,
  IsOptional,
  IsString,
  Matches,
  ValidateBy,
  ValidateIf,
} from 'class-validator';

/**
 * An optional integer query parameter clamped into [min, max] (out-of-range values are clamped,
 * not rejected). A value that is not an integer at all is still a 400.
 */
export function ClampedInt(options: { min: number; max: number; default: number; description?: string }) {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: options.min,
      maximum: options.max,
      default: options.default,
      description: options.description ?? `Clamped to ${options.min}..${options.max}`,
    }),
    IsOptional(),
    Transform(({ value }: { value: unknown }) => {
      if (value === undefined || value === '') return options.default;
      const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
      return typeof number === 'number' && Number.isSafeInteger(number)
        ? Math.min(Math.max(number, options.min), options.max)
        : value;
    }),
    IsInt({ message: '$property must be an integer' }),
  );
}

/** Optional, but `null` is not a value (for fields that cannot be cleared, e.g. a name). */
export function OptionalNonNull() {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

const WITHOUT_OFFSET = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * An ISO 8601 date or date-time string, handed to the service as a `Date`. A date-time without
 * an offset is UTC (as a plain date is), never the server's local time.
 */
export function IsoDateTime() {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && isISO8601(value, { strict: true })
        ? new Date(WITHOUT_OFFSET.test(value) ? `${value}Z` : value)
        : value,
    ),
    IsDate({ message: '$property must be an ISO 8601 date or date-time' }),
  );
}

/** A query-string boolean: `true` or `false`, nothing else. */
export function BooleanQuery(options: { default: boolean; description?: string }) {
  return applyDecorators(
    ApiPropertyOptional({ type: Boolean, default: options.default, description: options.description }),
    IsOptional(),
    Transform(({ value }: { value: unknown }) =>
      value === 'true' ? true : value === 'false' ? false : value,
    ),
    IsBoolean({ message: '$property must be true or false' }),
  );
}

/**
 * At most `max` characters as PostgreSQL counts them (code points). class-validator's MaxLength
 * discounts emoji variation selectors, so a value it accepts could overflow a varchar column.
 */
export function MaxChars(max: number) {
  return ValidateBy({
    name: 'maxChars',
    constraints: [max],
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || [...value].length <= max,
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be at most $constraint1 characters long`,
      ),
    },
  });
}

/**
 * An absolute http(s) URL, the only kind a browser may be given as an image address: no
 * `javascript:`, `data:` or relative value. Host names without a dot (`localhost`) are allowed.
 */
export function HttpUrl() {
  return IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: '$property must be an http(s) URL' },
  );
}

/** An ISO 4217 code, upper-cased first so that `usd` is stored as `USD`. */
export function CurrencyCode() {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? value.trim().toUpperCase() : value,
    ),
    IsISO4217CurrencyCode(),
  );
}

/**
 * At most `places` decimals, so the value fits a `numeric(p, places)` column without rounding.
 * Unlike class-validator's `maxDecimalPlaces`, this also reads numbers written in exponent form
 * (1e-7 has seven decimals, not none). A client's floating-point noise passes (0.1 + 0.07 is
 * 0.17000000000000001, two decimals for a person), but a value other than 0 that the column would
 * round to 0 does not (1e-13 for a price, which must stay above 0).
 */
export function MaxDecimals(places: number) {
  const scale = 10 ** places;
  return ValidateBy({
    name: 'maxDecimals',
    constraints: [places],
    validator: {
      validate: (value: unknown) => {
        if (typeof value !== 'number') return true;
        const scaled = value * scale;
        const rounded = Math.round(scaled);
        return Math.abs(scaled - rounded) < 1e-6 && (rounded !== 0 || value === 0);
      },
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must have at most $constraint1 decimal places`,
      ),
    },
  });
}

/** A required-looking text: a string with something other than spaces, at most `max` characters. */
export function NonBlankText(max: number) {
  return applyDecorators(
    IsString(),
    Matches(/\S/, { message: '$property must not be blank' }),
    MaxChars(max),
  );
}
