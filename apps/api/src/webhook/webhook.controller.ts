import { Controller, HttpCode, Param, ParseUUIDPipe, Post, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiSecurity,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@solar/auth';
import { Clock, NotFoundError } from '@solar/core';
import { SUN_SOURCE_NOT_FOUND } from '@solar/domain';
import { TelemetryIntake } from '@solar/telemetry';
import { answerWebhook, WebhookAcceptedDto } from './webhook-reply';

/** The OpenAPI security scheme of the `X-Webhook-Secret` signature (the api's document defines it). */
export const WEBHOOK_SIGNATURE_SCHEME = 'webhookSignature';

const sourceIdPipe = new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError(SUN_SOURCE_NOT_FOUND) });

@ApiTags('webhook')
@Controller('api/webhook')
export class WebhookController {
  constructor(
    private readonly intake: TelemetryIntake,
    private readonly clock: Clock,
  ) {}

  @Public()
  @Post('sunsource/:sunSourceId')
  @ApiOperation({ summary: "Receive a Webhook source's telemetry" })
  @HttpCode(200)
  @ApiBody({
    description: 'Telemetry JSON (telemetry field names or aliases) with the secret as `key`, at most 64 KB',
  })
  @ApiSecurity(WEBHOOK_SIGNATURE_SCHEME)
  @ApiHeader({
    name: 'X-Webhook-Timestamp',
    required: false,
    description: 'Unix seconds, signed with the body; refused more than 5 minutes from the server clock',
  })
  @ApiOkResponse({ type: WebhookAcceptedDto })
  @ApiBadRequestResponse({
    description:
      'Malformed JSON, missing or wrong secret or signature, signed timestamp malformed or outside ±5 minutes, no valid telemetry, bad timestamp',
  })
  @ApiNotFoundResponse({ description: 'No such source, not a Webhook source, or inactive' })
  @ApiConflictResponse({ description: 'Duplicate message' })
  @ApiPayloadTooLargeResponse({ description: 'Over 64 KB' })
  @ApiTooManyRequestsResponse({
    description:
      'The source sent more messages than its budget per window; `Retry-After` says when to resume',
  })
  @ApiServiceUnavailableResponse({ description: 'Not stored: retry' })
  receive(
    @Param('sunSourceId', sourceIdPipe) sunSourceId: string,
    @Req() request: Request,
  ): Promise<WebhookAcceptedDto> {
    return answerWebhook(this.intake, sunSourceId, request.body, request.headers, this.clock.now());
  }
}
