import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppConfig } from '@solar/config';
import { ApiModule } from './api.module';
import { API_APP_OPTIONS, apiHttpAdapter } from './create-api-app';
import { createOpenApiDocument } from './openapi';

/**
 * The document `/api/docs-json` serves, without a database, Redis or a listening server: Nest's
 * preview mode reads the modules, controllers and DTOs but creates no provider.
 */
export async function buildOpenApiDocument(config: AppConfig): Promise<OpenAPIObject> {
  const app = await NestFactory.create(ApiModule.forRoot(config), apiHttpAdapter(), {
    ...API_APP_OPTIONS,
    preview: true,
    logger: false,
  });
  try {
    return createOpenApiDocument(app, config);
  } finally {
    await app.close();
  }
}

/** Placeholders for the secrets `loadConfig` needs: the document depends on none of them. */
export const OPENAPI_PLACEHOLDER_SECRETS = {
  INTERNAL_API_KEY: 'x'.repeat(32),
  SESSION_SECRET: 'x'.repeat(32),
  SECRETS_KEY: '0'.repeat(64),
} as const;
