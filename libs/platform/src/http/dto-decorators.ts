import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsDate, IsInt, isISO8601, IsOptional, ValidateIf } from 'class-validator';

/**
 * An optional integer query parameter clamped into [min, max] (SPEC.md clamps rather than
 * rejects). A value that is not an integer at all is still a 400.
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

/** An ISO 8601 date or date-time string, handed to the service as a `Date`. */
export function IsoDateTime() {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && isISO8601(value, { strict: true }) ? new Date(value) : value,
    ),
    IsDate({ message: '$property must be an ISO 8601 date or date-time' }),
  );
}

/** A query-string boolean: `true` or `false`, nothing else. */
export function BooleanQuery(options: { default: boolean; description?: string }) {
  return applyDecorators(
    ApiPropertyOptional({ type: Boolean, default: options.default, description: options.description }),
    IsOptional(),
    Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value)),
    IsBoolean({ message: '$property must be true or false' }),
  );
}
