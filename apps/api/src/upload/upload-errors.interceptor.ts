import {
  CallHandler,
  ExecutionContext,
  HttpException,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import type { Request } from 'express';
import { catchError, Observable, throwError } from 'rxjs';
import { BadRequestError, DomainError } from '@solar/core';
import { ImageTooLargeError } from '@solar/domain';

export const UPLOAD_CUT_SHORT = 'The upload ended before the whole request was received';

/**
 * What multer throws, named for the client. Bound before the FileInterceptor, so that it sees it:
 * - at the size limit multer stops reading and reports "File too large"; this names the rule
 *   instead (an image may be at most 5 MB);
 * - a client gone before its form's end makes multer fail with a plain error ("Request
 *   aborted", "Request closed"), a 500 logged as the server's fault; it is the client's, a 400.
 */
@Injectable()
export class UploadErrorsInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (error instanceof PayloadTooLargeException) return throwError(() => new ImageTooLargeError());
        const named = error instanceof HttpException || error instanceof DomainError;
        if (!named && !request.complete) return throwError(() => new BadRequestError(UPLOAD_CUT_SHORT));
        return throwError(() => error);
      }),
    );
  }
}
