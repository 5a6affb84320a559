import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { IncomingHttpHeaders } from 'node:http';
import {
  BadRequestError,
  ConflictError,
  DomainError,
  NotFoundError,
  TooManyRequestsError,
} from '@solar/core';
import { SUN_SOURCE_NOT_FOUND } from '@solar/domain';
import {
  countLost,
  IntakeOutcome,
  messageReceived,
  messageSettled,
  SOURCE_OVER_BUDGET,
  TelemetryIntake,
  webhookCredentialsOf,
} from '@solar/telemetry';

export class WebhookAcceptedDto {
  @ApiProperty({ example: 'Data accepted' }) message!: string;
  @ApiProperty({ description: 'false when throttled (one stored message per source per 10 s)' })
  stored!: boolean;
  @ApiPropertyOptional({ enum: ['throttled'] }) reason?: 'throttled';
}

const STORED: WebhookAcceptedDto = { message: 'Data accepted', stored: true };
const THROTTLED: WebhookAcceptedDto = { message: 'Data accepted', stored: false, reason: 'throttled' };
const EMPTY = Buffer.alloc(0);

/**
 * The webhook's answer to a device's message: 200 with this body, or the error thrown (answered
 * by the error filter's table). Both entry points of the webhook, the devices' route ahead of
 * Express and the controller, answer through here and nowhere else.
 * `body`: the raw body as read (a Buffer; anything else is an empty body).
 */
export async function answerWebhook(
  intake: TelemetryIntake,
  sunSourceId: string,
  body: unknown,
  headers: IncomingHttpHeaders,
  receivedAt: Date,
): Promise<WebhookAcceptedDto> {
  const raw = Buffer.isBuffer(body) ? body : EMPTY;
  let outcome: IntakeOutcome;
  messageReceived('webhook');
  try {
    outcome = await intake.receive(sunSourceId, 'Webhook', raw, receivedAt, webhookCredentialsOf(headers));
  } catch (error) {
    countLost('webhook'); // 503 (or 500): nothing stored, the device is to send it again
    throw error;
  } finally {
    messageSettled('webhook');
  }
  return webhookReply(outcome);
}

/** An intake outcome as HTTP: 200 with its body, or the domain error whose status answers it. */
export function webhookReply(outcome: IntakeOutcome): WebhookAcceptedDto {
  switch (outcome.status) {
    case 'stored':
      return STORED;
    case 'throttled':
      return THROTTLED;
    case 'duplicate':
      throw new ConflictError('Duplicate message');
    case 'overBudget':
      throw new TooManyRequestsError(SOURCE_OVER_BUDGET, outcome.retryAfterSeconds);
    case 'rejected':
      if (outcome.reason === 'oversize') throw new DomainError('payload_too_large', outcome.message);
      throw new BadRequestError(outcome.message);
    case 'unknown':
    case 'refused':
      throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
  }
}
