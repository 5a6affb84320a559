import { Injectable } from '@nestjs/common';
import { BadRequestError, ServiceUnavailableError } from '@solar/core';
import { ConnectionType, SourceAccess, SourceAccessCache, SourceCredentials } from '@solar/domain';
import { TelemetryRejection } from '../normalize';
import { channelOf, countIntakeOutcome, stageTook } from './intake-metrics';
import { IngestOutcome, NOT_STORED, TelemetryIngestion } from './telemetry-ingestion.service';
import { verifyWebhookSecret, WebhookCredentials, WebhookMessages, WebhookSecret } from './webhook-signature';

/** The most a device's message may weigh, whichever transport brought it. */
export const MAX_TELEMETRY_BYTES = 64 * 1024;
/** Worded as the HTTP body parser words its own refusal, so the webhook answers alike either way. */
export const TELEMETRY_TOO_LARGE = 'Request body too large';

/** Why a message was refused as it stands: sending it again will not help. */
export type IntakeRejection =
  'oversize' | 'malformed' | 'unauthenticated' | TelemetryRejection | 'unstorable';

export type IntakeOutcome =
  | Exclude<IngestOutcome, { status: 'rejected' }>
  | { status: 'rejected'; reason: IntakeRejection; message: string }
  /** No such source, switched off, or not of the transport the message came by. */
  | { status: 'unknown' };

const UNKNOWN: IntakeOutcome = Object.freeze({ status: 'unknown' });
const OVERSIZE: IntakeOutcome = Object.freeze({
  status: 'rejected',
  reason: 'oversize',
  message: TELEMETRY_TOO_LARGE,
});
const MALFORMED: IntakeOutcome = Object.freeze({
  status: 'rejected',
  reason: 'malformed',
  message: WebhookMessages.malformed,
});
const NO_HEADERS: WebhookCredentials = Object.freeze({});
const NOT_JSON = Symbol('not JSON');

/**
 * Where every device message enters, by MQTT or by the webhook: the size limit, the source
 * check (it exists, is active and takes this transport, answered by the announced cache so a
 * revocation holds at once), JSON, the transport's authentication, then the shared ingestion
 * path. A transport keeps only what is its own: reading the message and how it answers or
 * acknowledges the outcome. Throws only `ServiceUnavailableError` (nothing was stored: retry).
 */
@Injectable()
export class TelemetryIntake {
  constructor(
    private readonly sources: SourceAccessCache,
    private readonly credentials: SourceCredentials,
    private readonly ingestion: TelemetryIngestion,
  ) {}

  /**
   * `credentials`: the webhook's signature headers (none: the secret is the body's `key`). The
   * outcome is counted in the telemetry metrics; a failure (nothing stored) is the channel's to
   * count, as only the channel knows whether it retries.
   */
  async receive(
    sunSourceId: string,
    via: ConnectionType,
    body: Buffer,
    receivedAt: Date,
    credentials: WebhookCredentials = NO_HEADERS,
  ): Promise<IntakeOutcome> {
    const outcome = await this.take(sunSourceId, via, body, receivedAt, credentials);
    countIntakeOutcome(channelOf(via), outcome);
    return outcome;
  }

  private async take(
    sunSourceId: string,
    via: ConnectionType,
    body: Buffer,
    receivedAt: Date,
    credentials: WebhookCredentials,
  ): Promise<IntakeOutcome> {
    if (body.length > MAX_TELEMETRY_BYTES) return OVERSIZE;
    let source: SourceAccess | null;
    try {
      const startedAt = performance.now();
      source = await this.sources.admitted(sunSourceId, via);
      stageTook('source', startedAt);
    } catch (error) {
      throw new ServiceUnavailableError(NOT_STORED, { cause: error });
    }
    if (!source) return UNKNOWN;
    const payload = parseTelemetryJson(body);
    if (payload === NOT_JSON) return MALFORMED;
    const refusal = this.authenticate(source, via, body, payload, credentials, receivedAt);
    if (refusal) return refusal;
    // The write itself refuses the row should the source have been switched off, deleted or
    // moved to the other transport since the check above (`refused`).
    return this.ingestion.ingest(source.id, payload, receivedAt, via);
  }

  /**
   * MQTT: nothing more, the broker let the device connect and publish on its source's topic
   * only. Webhook: the source's secret, as the body's `key` or an HMAC signature, optionally
   * over a timestamp.
   */
  private authenticate(
    source: SourceAccess,
    via: ConnectionType,
    body: Buffer,
    payload: unknown,
    credentials: WebhookCredentials,
    receivedAt: Date,
  ): IntakeOutcome | undefined {
    if (via === 'MQTT') return undefined;
    if (!source.webhookSecretEncrypted) return UNKNOWN;
    const secret: WebhookSecret = {
      matches: (key) => this.credentials.webhookSecretMatches(source, key),
      value: () => this.credentials.webhookSecretOf(source)!,
    };
    try {
      verifyWebhookSecret(secret, body, payload, credentials, receivedAt);
      return undefined;
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      return { status: 'rejected', reason: 'unauthenticated', message: error.message };
    }
  }
}

function parseTelemetryJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return NOT_JSON;
  }
}
