import { getSchemaPath } from '@nestjs/swagger';
import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';

/** Component names of the error bodies in the OpenAPI document. */
export const ERROR_BODY_SCHEMA = 'ErrorBody';
export const VALIDATION_ERROR_BODY_SCHEMA = 'ValidationErrorBody';

const ref = (name: string) => ({ $ref: getSchemaPath(name) });

const ERROR_BODY_SCHEMAS: Record<string, SchemaObject> = {
  [ERROR_BODY_SCHEMA]: {
    type: 'object',
    required: ['message'],
    properties: { message: { type: 'string', example: 'Sun source not found' } },
  },
  [VALIDATION_ERROR_BODY_SCHEMA]: {
    type: 'object',
    required: ['errors'],
    properties: {
      errors: {
        type: 'object',
        description: 'Messages by field (a nested field as `parent.child`)',
        additionalProperties: { type: 'array', items: { type: 'string' } },
        example: { email: ['email must be an email'] },
      },
    },
  },
};

/**
 * Every error answer of an app comes from one filter (`ApiExceptionFilter`, through
 * `toErrorResponse`) in one of two shapes: `{ message }`, or for a 400 also `{ errors }`. So the
 * document gives each error response that declares no body of its own those shapes, in one place
 * rather than on every route. Returns the document, changed.
 */
export function describeErrorBodies(document: OpenAPIObject): OpenAPIObject {
  document.components = document.components ?? {};
  document.components.schemas = { ...document.components.schemas, ...ERROR_BODY_SCHEMAS };
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem)) {
      const responses = (operation as { responses?: Record<string, { content?: object }> }).responses;
      for (const [status, response] of Object.entries(responses ?? {})) {
        if (Number(status) < 400 || response.content) continue;
        const schema =
          status === '400'
            ? { oneOf: [ref(ERROR_BODY_SCHEMA), ref(VALIDATION_ERROR_BODY_SCHEMA)] }
            : ref(ERROR_BODY_SCHEMA);
        response.content = { 'application/json': { schema } };
      }
    }
  }
  return document;
}
