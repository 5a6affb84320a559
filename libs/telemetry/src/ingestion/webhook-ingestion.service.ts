import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import {
  BadRequestError,
  NotFoundError,
  secretsEqual,
  SourceAccessCache,
  SourceCredentials,
  SUN_SOURCE_NOT_FOUND,
} from '@solar/domain';
import { IngestOutcome, TelemetryIngestion } from './telemetry-ingestion.service';

export const WebhookMessages = {
  malformed: 'Malformed JSON body',
  badSecret: 'Missing or invalid webhook secret',
  badSignature: 'Invalid webhook signature',
} as const;

/**
 * `POST /api/webhook/sunsource/{id}` (SPEC.md §4.13): only an active Webhook source accepts
 * data (checked from the announced cache, and again by the write itself), authenticated by its secret, either as the body's `key` or as `X-Webhook-Secret`, the
 * hex HMAC-SHA256 of the raw body. Both are compared in constant time.
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
    signature: string | undefined,
    receivedAt: Date,
  ): Promise<IngestOutcome> {
    const source = await this.sourceAccess.lookup(sunSourceId);
    if (!source || source.connectionType !== 'Webhook' || !source.isActive) {
      throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    }
    const payload = parseJson(body);
    const secret = this.credentials.webhookSecretOf(source);
    if (!secret) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);

    if (signature !== undefined) {
      const expected = createHmac('sha256', secret).update(body).digest('hex');
      if (!secretsEqual(signature.trim().toLowerCase(), expected))
        throw new BadRequestError(WebhookMessages.badSignature);
    } else {
      const key = isObject(payload) ? payload.key : undefined;
      if (typeof key !== 'string' || !secretsEqual(key, secret))
        throw new BadRequestError(WebhookMessages.badSecret);
    }
    const outcome = await this.ingestion.ingest(source.id, payload, receivedAt, 'Webhook');
    // Switched off, deleted or made an MQTT source since the lookup above: as if it had been then.
    if (outcome.status === 'refused') throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    return outcome;
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new BadRequestError(WebhookMessages.malformed);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
