import { Logger } from '@nestjs/common';
import express, { ErrorRequestHandler, RequestHandler } from 'express';
import { sendError } from '@solar/platform';

export const WEBHOOK_PATH = '/api/webhook';
/** SPEC.md §8: a webhook payload is at most 64 KB. */
export const WEBHOOK_BODY_LIMIT = 64 * 1024;

/**
 * The webhook reads its body raw, whatever the content type devices send: the HMAC signature is
 * computed over the exact bytes, and JSON is parsed afterwards. Over 64 KB: 413.
 */
export function webhookBodyParser(): RequestHandler {
  return express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });
}

/** The body parser for requests that take the middleware chain, its errors answered at once. */
export function webhookBodyHandlers(): Array<RequestHandler | ErrorRequestHandler> {
  const logger = new Logger('WebhookBody');
  const errors: ErrorRequestHandler = (error, request, response, _next) =>
    sendError(error, request, response, logger);
  return [webhookBodyParser(), errors];
}
