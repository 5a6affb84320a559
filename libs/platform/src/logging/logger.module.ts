import { DynamicModule, Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LoggerModule as PinoLoggerModule } from 'nestjs-pino';
import type { LoggerOptions } from 'pino';
import { AppConfig } from '@solar/config';

const REQUEST_ID = /^[\w.:-]{1,64}$/;

/** The caller's `X-Request-Id` when it is sane, a new UUID otherwise. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * A request's log line: info when it went well (debug for routine traffic: a device's accepted
 * message), warn for the caller's mistakes, error for ours.
 */
export function logLevelForStatus(
  statusCode: number,
  error?: unknown,
  routine = false,
): 'debug' | 'info' | 'warn' | 'error' {
  if (error || statusCode >= 500) return 'error';
  if (statusCode >= 400) return 'warn';
  return routine ? 'debug' : 'info';
}

/** Never written to a log, whatever level: credentials travel in these. */
export const REDACTED_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-internal-api-key"]',
  'req.headers["x-webhook-secret"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.code',
  '*.key',
];

/** pino's options: level, the app's name on every line, secrets redacted, requests and answers cut short. */
export function loggerOptions(config: Pick<AppConfig, 'logLevel'>, app: string): LoggerOptions {
  return {
    level: config.logLevel,
    base: { app },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request: { id: string; method: string; url: string }) => ({
        id: request.id,
        method: request.method,
        url: request.url,
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
  };
}

/** JSON logs on stdout; the HTTP apps add `requestLogging` (a request id and one line per request). */
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig, app: string): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        PinoLoggerModule.forRoot({
          // pino-http's logger (the root of Nest's logs), without its middleware: `requestLogging`
          // writes the request lines.
          forRoutes: [],
          pinoHttp: loggerOptions(config, app),
        }),
      ],
    };
  }
}
