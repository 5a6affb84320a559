import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional } from 'class-validator';

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
