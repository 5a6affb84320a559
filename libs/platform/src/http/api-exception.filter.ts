import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { errorReply } from './error-response';

/** The one global filter: every error leaves in the error format of docs/api.md, "Errors"; a 500 reveals nothing. */
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
  if (response.headersSent) {
    logger.error({ err: exception, requestId: request.id }, 'error after the response started');
    response.end();
    return;
  }
  const reply = errorReply(exception, request.id);
  if (reply.unexpected) logger.error({ err: exception, requestId: request.id }, 'unhandled error');
  if (reply.headers) response.set(reply.headers);
  response.status(reply.status).json(reply.body);
}
