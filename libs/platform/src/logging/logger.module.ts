import { DynamicModule, Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule as PinoLoggerModule } from 'nestjs-pino';
import { AppConfig } from '@solar/config';

const REQUEST_ID = /^[\w.:-]{1,64}$/;

/** The caller's `X-Request-Id` when it is sane, a new UUID otherwise. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** A request's log line: info when it went well, warn for the caller's mistakes, error for ours. */
export function logLevelForStatus(statusCode: number, error?: unknown): 'info' | 'warn' | 'error' {
  return error || statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info';
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

/** JSON logs on stdout with one request id per HTTP request (taken from `X-Request-Id` if sane). */
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig, app: string): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        PinoLoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            base: { app },
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            genReqId: (request: IncomingMessage, response: ServerResponse) => {
              const id = requestIdOf(request);
              response.setHeader('X-Request-Id', id);
              return id;
            },
            customLogLevel: (_request, response, error) => logLevelForStatus(response.statusCode, error),
            autoLogging: { ignore: (request) => request.url === '/api/health' },
            serializers: {
              req: (request: { id: string; method: string; url: string }) => ({
                id: request.id,
                method: request.method,
                url: request.url,
              }),
              res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
            },
          },
        }),
      ],
    };
  }
}
