import busboy from 'busboy';
import type { Request } from 'express';
import { Readable } from 'node:stream';
import { UnsupportedMediaTypeException } from '@nestjs/common';
import { BadRequestError } from '@solar/core';
import { ImportTooLargeError } from '@solar/telemetry-import';

export const CSV_MEDIA_TYPES = ['text/csv', 'application/csv', 'text/plain'];
export const UPLOAD_FIELD = 'file';
export const UploadMessages = {
  mediaType: 'Content-Type must be text/csv or multipart/form-data',
  noFile: `The form needs the CSV file as field "${UPLOAD_FIELD}"`,
} as const;

/**
 * The bytes of the CSV a request carries, as a stream: the body itself (`text/csv`), or the
 * form's `file` part (`multipart/form-data`, read with busboy as it arrives; other parts are
 * skipped). Nothing is buffered here; the size limit is counted where the stream is written.
 */
export function csvUploadOf(request: Request, maxBytes: number): Promise<Readable> {
  if (request.is(CSV_MEDIA_TYPES)) {
    // Said up front: refused before a byte is read.
    if (Number(request.headers['content-length'] ?? 0) > maxBytes) throw new ImportTooLargeError(maxBytes);
    return Promise.resolve(request);
  }
  if (!request.is('multipart/form-data')) throw new UnsupportedMediaTypeException(UploadMessages.mediaType);
  return new Promise((resolve, reject) => {
    let file: Readable | undefined;
    let form: busboy.Busboy;
    try {
      form = busboy({ headers: request.headers, limits: { files: 1, fields: 20 } });
    } catch (error) {
      // A multipart type without a boundary.
      reject(new BadRequestError((error as Error).message));
      return;
    }
    form.on('file', (name, stream) => {
      if (name !== UPLOAD_FIELD || file) {
        stream.resume();
        return;
      }
      file = stream;
      resolve(stream);
    });
    form.on('error', (error: Error) => {
      if (file) file.destroy(error);
      else reject(new BadRequestError(error.message));
    });
    form.on('close', () => {
      if (!file) reject(new BadRequestError(UploadMessages.noFile));
    });
    request.pipe(form);
  });
}
