import { Logger } from '@nestjs/common';
import express, { ErrorRequestHandler, RequestHandler } from 'express';
import { sendError } from '@solar/platform';
import { MAX_TELEMETRY_BYTES } from '@solar/telemetry';

export const WEBHOOK_PATH = '/api/webhook';
/** Devices' messages, whichever way in they take (the route ahead of Express, or the controller). */
export const WEBHOOK_DEVICE_PATH = new RegExp(`^${WEBHOOK_PATH}/sunsource/`);

/**
 * The webhook reads its body raw, whatever the content type devices send: the HMAC signature is
 * computed over the exact bytes, and JSON is parsed afterwards. Over the intake's limit (64 KB)
 * the read stops at once: 413, as the intake itself would answer.
 */
export function webhookBodyParser(): RequestHandler {
  return express.raw({ type: () => true, limit: MAX_TELEMETRY_BYTES });
}

/** The body parser for requests that take the middleware chain, its errors answered at once. */
export function webhookBodyHandlers(): Array<RequestHandler | ErrorRequestHandler> {
  const logger = new Logger('WebhookBody');
  const errors: ErrorRequestHandler = (error, request, response, _next) =>
    sendError(error, request, response, logger);
  return [webhookBodyParser(), errors];
}
