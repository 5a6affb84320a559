import { createHmac } from 'node:crypto';
import { BadRequestError, secretsEqual } from '@solar/core';

export const WebhookMessages = {
  malformed: 'Malformed JSON body',
  badSecret: 'Missing or invalid webhook secret',
  badSignature: 'Invalid webhook signature',
  badTimestamp: 'X-Webhook-Timestamp must be Unix seconds',
  timestampWithoutSignature: 'X-Webhook-Timestamp needs an X-Webhook-Secret signature',
  staleTimestamp: 'Webhook timestamp outside the allowed window',
} as const;

/** How far a signed timestamp may be from the server's clock, either way. */
export const WEBHOOK_TIMESTAMP_TOLERANCE_MS = 5 * 60_000;

/** What a device may send to prove it holds the source's secret, besides the body's `key`. */
export interface WebhookCredentials {
  /** `X-Webhook-Secret`: hex HMAC-SHA256. */
  signature?: string;
  /** `X-Webhook-Timestamp`: Unix seconds, covered by the signature. */
  timestamp?: string;
}

/** The two headers, read the same way on every route that takes device messages. */
export function webhookCredentialsOf(
  headers: Record<string, string | string[] | undefined>,
): WebhookCredentials {
  const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);
  return { signature: one(headers['x-webhook-secret']), timestamp: one(headers['x-webhook-timestamp']) };
}

const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * A source's webhook secret as the check needs it: a body's `key` is checked against its stored
 * digest, an HMAC is computed with the secret itself, opened only then.
 */
export interface WebhookSecret {
  matches(key: string): boolean;
  value(): string;
}

/**
 * The one check of a webhook message's secret (throws a 400 otherwise), in constant time:
 * - `X-Webhook-Secret` with `X-Webhook-Timestamp`: the HMAC-SHA256 of `{timestamp}.{raw body}`
 *   (the timestamp exactly as sent, a dot, the body's bytes), and the timestamp within ±5
 *   minutes of `receivedAt`, so a captured request cannot be replayed later;
 * - `X-Webhook-Secret` alone: the HMAC-SHA256 of the raw body (devices made before the
 *   timestamp existed);
 * - neither: the body's `key` equals the secret.
 * A timestamp without a signature is refused rather than ignored: the device asked for replay
 * protection that a plain `key` cannot give.
 */
export function verifyWebhookSecret(
  secret: WebhookSecret,
  body: Buffer,
  payload: unknown,
  credentials: WebhookCredentials,
  receivedAt: Date,
): void {
  const { signature, timestamp } = credentials;
  if (timestamp !== undefined && !UNIX_SECONDS.test(timestamp)) {
    throw new BadRequestError(WebhookMessages.badTimestamp);
  }
  if (signature === undefined) {
    if (timestamp !== undefined) throw new BadRequestError(WebhookMessages.timestampWithoutSignature);
    const key = isObject(payload) ? payload.key : undefined;
    if (typeof key !== 'string' || !secret.matches(key)) {
      throw new BadRequestError(WebhookMessages.badSecret);
    }
    return;
  }
  const hmac = createHmac('sha256', secret.value());
  if (timestamp !== undefined) hmac.update(`${timestamp}.`, 'utf8');
  const expected = hmac.update(body).digest('hex');
  if (!secretsEqual(signature.trim().toLowerCase(), expected)) {
    throw new BadRequestError(WebhookMessages.badSignature);
  }
  if (
    timestamp !== undefined &&
    Math.abs(receivedAt.getTime() - Number(timestamp) * 1000) > WEBHOOK_TIMESTAMP_TOLERANCE_MS
  ) {
    throw new BadRequestError(WebhookMessages.staleTimestamp);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
