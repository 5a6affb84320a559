import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { PinoLogger } from 'nestjs-pino';
import { AppConfig } from '@solar/config';
import { Clock } from '@solar/core';
import {
  errorReply,
  logRequestCompleted,
  observeHttpRequest,
  requestIdOf,
  securityHeaderList,
} from '@solar/platform';
import { TelemetryIntake } from '@solar/telemetry';
import { WEBHOOK_PATH, webhookBodyParser } from './webhook-body';
import { answerWebhook } from './webhook-reply';

/** The source id and nothing else: no query string, no trailing segment. */
const DEVICE_URL = new RegExp(
  `^${WEBHOOK_PATH}/sunsource/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$`,
  'i',
);
const JSON_TYPE = 'application/json; charset=utf-8';
/** The controller's route template: both ways in are one series of the HTTP metrics. */
export const WEBHOOK_ROUTE_TEMPLATE = `${WEBHOOK_PATH}/sunsource/:sunSourceId`;

type DeviceRequest = IncomingMessage & { body?: unknown };
type BodyReader = (request: DeviceRequest, response: ServerResponse, done: (error?: unknown) => void) => void;

/**
 * Puts `webhookDeviceRoute` in front of the server's request listener (Express, Nest's routes
 * behind it). Call once the app is configured, before it listens.
 */
export function answerWebhookDevicesFirst(app: INestApplication, config: AppConfig): void {
  const server = app.getHttpServer() as Server;
  const [chain] = server.listeners('request') as RequestListener[];
  server.removeListener('request', chain);
  server.on('request', webhookDeviceRoute(app, config, chain));
}

/**
 * Devices' `POST /api/webhook/sunsource/{id}`, answered before Express sees the request.
 *
 * It is the one route called thousands of times a second, and it needs nothing the chain
 * offers: no session, no JSON parser, no guard, pipe or interceptor. Through Express and Nest
 * a message cost the api ~0.4 ms of CPU; here ~0.12 ms (Express alone, re-prototyping every
 * request and response, cost a third of that). Its answer is `WebhookController`'s, computed by
 * the same function (`answerWebhook`); only the sending is its own, with the api's error
 * bodies, the same headers, log line (`logRequestCompleted`, routine traffic: debug when
 * accepted) and HTTP metrics (`observeHttpRequest`, under the controller's route template).
 * What it does not take goes on to the controller: a browser's request (it carries `Origin`,
 * which CORS must answer), an id that is not a UUID, a query string.
 */
function webhookDeviceRoute(
  app: INestApplication,
  config: AppConfig,
  chain: RequestListener,
): RequestListener {
  const intake = app.get(TelemetryIntake);
  const clock = app.get(Clock);
  // The chain's headers: helmet's, and `Vary: Origin` from CORS (its origins are a list).
  const fixedHeaders = [...securityHeaderList(config), 'Vary', 'Origin'];
  // Express's own raw parser: the same limit, inflation and errors as the controller's path.
  const readBody = webhookBodyParser() as unknown as BodyReader;

  return (request: DeviceRequest, response: ServerResponse) => {
    const match =
      request.method === 'POST' && request.headers.origin === undefined && DEVICE_URL.exec(request.url ?? '');
    if (!match) return chain(request, response);

    const startedAt = performance.now();
    const requestId = requestIdOf(request);
    request.id = requestId;
    const completed = (error?: unknown): void => {
      const elapsed = performance.now() - startedAt;
      observeHttpRequest(request, response, elapsed, WEBHOOK_ROUTE_TEMPLATE);
      logRequestCompleted(PinoLogger.root, request, response, elapsed, error, true);
    };
    const send = (
      status: number,
      body: unknown,
      error?: unknown,
      headers: Record<string, string> = {},
    ): void => {
      const json = JSON.stringify(body);
      response.writeHead(status, [
        ...fixedHeaders,
        ...Object.entries(headers).flat(),
        'X-Request-Id',
        requestId,
        'Content-Type',
        JSON_TYPE,
        'Content-Length',
        String(Buffer.byteLength(json)),
      ]);
      response.end(json);
      completed(error);
    };
    const fail = (error: unknown): void => {
      if (response.headersSent) {
        // Failed while answering: nothing more can be said on this response.
        completed(error);
        response.destroy();
        return;
      }
      const reply = errorReply(error, requestId);
      send(reply.status, reply.body, reply.unexpected ? error : undefined, reply.headers);
    };

    readBody(request, response, (bodyError) => {
      if (bodyError) return fail(bodyError);
      answerWebhook(intake, match[1], request.body, request.headers, clock.now())
        .then((reply) => send(200, reply))
        .catch(fail);
    });
  };
}
