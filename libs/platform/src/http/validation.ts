import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

/** A 400 whose body is `{ errors: { field: [messages] } }`. */
export class ValidationFailedException extends BadRequestException {
  constructor(readonly errors: Record<string, string[]>) {
    super('Validation failed');
  }
}

export function flattenValidationErrors(errors: ValidationError[], parent = ''): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) result[path] = Object.values(error.constraints);
    Object.assign(result, flattenValidationErrors(error.children ?? [], path));
  }
  return result;
}

/** Whitelisted, transformed DTOs; unknown properties are an error, not silently dropped. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    exceptionFactory: (errors) => new ValidationFailedException(flattenValidationErrors(errors)),
  });
}
