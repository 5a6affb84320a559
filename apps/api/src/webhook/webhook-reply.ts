import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  SUN_SOURCE_NOT_FOUND,
  TooManyRequestsError,
} from '@solar/domain';
import { IngestOutcome, SOURCE_OVER_BUDGET } from '@solar/telemetry';

export class WebhookAcceptedDto {
  @ApiProperty({ example: 'Data accepted' }) message!: string;
  @ApiProperty({ description: 'false when throttled (one stored message per source per 10 s)' })
  stored!: boolean;
  @ApiPropertyOptional({ enum: ['throttled'] }) reason?: 'throttled';
}

const STORED: WebhookAcceptedDto = { message: 'Data accepted', stored: true };
const THROTTLED: WebhookAcceptedDto = { message: 'Data accepted', stored: false, reason: 'throttled' };

/**
 * SPEC.md §4.13's answer to an ingestion outcome: 200 with this body, or the error thrown. Both
 * entry points of the webhook (the devices' route ahead of Express and the controller) answer
 * through here.
 */
export function webhookReply(outcome: IngestOutcome): WebhookAcceptedDto {
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
      throw new BadRequestError(outcome.message);
    case 'refused':
      throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
  }
}
