import { Injectable } from '@nestjs/common';
import {
  BadRequestError,
  NotFoundError,
  SourceAccessCache,
  SourceCredentials,
  SUN_SOURCE_NOT_FOUND,
} from '@solar/domain';
import { IngestOutcome, TelemetryIngestion } from './telemetry-ingestion.service';
import { verifyWebhookSecret, WebhookCredentials, WebhookMessages } from './webhook-signature';

/**
 * `POST /api/webhook/sunsource/{id}` (SPEC.md §4.13): only an active Webhook source accepts
 * data, authenticated by its secret: the body's `key` or an HMAC signature, optionally over a
 * timestamp (`verifyWebhookSecret`, the one check every device route goes through).
 */
@Injectable()
export class WebhookIngestion {
  constructor(
    private readonly sourceAccess: SourceAccessCache,
    private readonly credentials: SourceCredentials,
    private readonly ingestion: TelemetryIngestion,
  ) {}

  async receive(
    sunSourceId: string,
    body: Buffer,
    credentials: WebhookCredentials,
    receivedAt: Date,
  ): Promise<IngestOutcome> {
    const source = await this.sourceAccess.lookup(sunSourceId);
    if (!source || source.connectionType !== 'Webhook' || !source.isActive) {
      throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    }
    const payload = parseJson(body);
    const secret = this.credentials.webhookSecretOf(source);
    if (!secret) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);

    verifyWebhookSecret(secret, body, payload, credentials, receivedAt);
    // The write itself refuses the row should the source have been switched off, deleted or made
    // an MQTT source since the lookup above (`refused`, answered as if it had been then).
    return this.ingestion.ingest(source.id, payload, receivedAt, 'Webhook');
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new BadRequestError(WebhookMessages.malformed);
  }
}
