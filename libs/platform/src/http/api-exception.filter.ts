import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { toErrorResponse } from './error-response';

/** The one global filter: every error leaves as SPEC.md §7 says; a 500 reveals nothing. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    sendError(exception, request, response, this.logger);
  }
}

export function sendError(exception: unknown, request: Request, response: Response, logger: Logger): void {
  const mapped = toErrorResponse(exception);
  if (response.headersSent) {
    logger.error({ err: exception, requestId: request.id }, 'error after the response started');
    response.end();
    return;
  }
  if (!mapped) {
    logger.error({ err: exception, requestId: request.id }, 'unhandled error');
    response.status(500).json({ message: 'Internal server error', requestId: request.id });
    return;
  }
  response.status(mapped.status).json(mapped.body);
}
