import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import { catchError, Observable, throwError } from 'rxjs';
import { ImageTooLargeError } from '@solar/domain';

/**
 * multer stops reading at the size limit and reports "File too large"; this names the rule
 * instead (an image may be at most 5 MB). Bound before the FileInterceptor, so that it sees what
 * multer throws.
 */
@Injectable()
export class ImageSizeLimitInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next
      .handle()
      .pipe(
        catchError((error: unknown) =>
          throwError(() => (error instanceof PayloadTooLargeException ? new ImageTooLargeError() : error)),
        ),
      );
  }
}
