import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { INTERNAL_KEY_SCHEME, SESSION_COOKIE, SESSION_SCHEME } from '@solar/auth';
import { AppConfig } from '@solar/config';
import { describeErrorBodies } from '@solar/platform';
import { WEBHOOK_SIGNATURE_SCHEME } from './webhook/webhook.controller';

/**
 * The OpenAPI document, generated from the controllers and DTOs. Every operation names how it is
 * authenticated (`@ApiSessionAuth()`, `@InternalKeyAuth()`, the webhook signature, or `{}` from
 * `@Public()`): there is no document-wide default, so the lint (`redocly.yaml`) catches an
 * operation that says nothing. See docs/openapi.md.
 */
export function createOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Solar installations API')
      .setDescription(
        'Accounts, Sun Sources, telemetry, weather, forecasts, ROI and public sharing. ' +
          'Errors: `{ message }`, or `{ errors: { field: [messages] } }` for validation.',
      )
      .setVersion('1')
      .setLicense('MIT', 'https://opensource.org/licenses/MIT')
      .addServer(config.publicBaseUrl, 'This deployment (PUBLIC_BASE_URL)')
      .addCookieAuth(
        SESSION_COOKIE,
        { type: 'apiKey', in: 'cookie', description: 'The session cookie set by POST /api/auth/login' },
        SESSION_SCHEME,
      )
      .addApiKey(
        {
          type: 'apiKey',
          in: 'header',
          name: 'X-Internal-API-Key',
          description: "INTERNAL_API_KEY: for the MQTT broker's callbacks only",
        },
        INTERNAL_KEY_SCHEME,
      )
      .addApiKey(
        {
          type: 'apiKey',
          in: 'header',
          name: 'X-Webhook-Secret',
          description:
            "Hex HMAC-SHA256 with the source's webhook secret: of the raw body, or with " +
            'X-Webhook-Timestamp of `{timestamp}.{raw body}`. Instead, the secret itself may travel ' +
            'in the body as `key`.',
        },
        WEBHOOK_SIGNATURE_SCHEME,
      )
      .build(),
  );
  return describeErrorBodies(document);
}

/** Swagger UI at `/api/docs`, the document at `/api/docs-json`. */
export function setupOpenApi(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup('api/docs', app, createOpenApiDocument(app, config), {
    jsonDocumentUrl: 'api/docs-json',
  });
}
