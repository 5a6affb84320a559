import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { SESSION_COOKIE } from '@solar/auth';

/** Swagger UI at `/api/docs`, the document at `/api/docs-json`, generated from controllers and DTOs. */
export function setupOpenApi(app: INestApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Solar installations API')
      .setDescription(
        'Accounts, Sun Sources, telemetry, weather, forecasts, ROI and public sharing. ' +
          'Errors: `{ message }`, or `{ errors: { field: [messages] } }` for validation.',
      )
      .setVersion('1')
      .addCookieAuth(SESSION_COOKIE)
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
}
