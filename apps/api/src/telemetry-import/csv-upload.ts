import busboy from 'busboy';
import type { Request } from 'express';
import { finished, PassThrough, Readable } from 'node:stream';
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
    let form: busboy.Busboy;
    try {
      form = busboy({ headers: request.headers, limits: { files: 1, fields: 20 } });
    } catch (error) {
      // A multipart type without a boundary.
      reject(new BadRequestError((error as Error).message));
      return;
    }
    let file: PassThrough | undefined;
    form.on('file', (name, part) => {
      // Busboy fails the part being read when the form breaks off; the form's 'error' says why.
      part.on('error', () => undefined);
      if (name !== UPLOAD_FIELD || file) {
        part.resume();
        return;
      }
      file = new PassThrough();
      // Its reader listens a few ticks after it is handed over, and a failure may come first:
      // an 'error' nobody listens to would end the process. The reader finds it as `errored`.
      file.on('error', () => undefined);
      part.pipe(file, { end: false });
      resolve(file);
    });
    form.on('error', (error: Error) => {
      if (file) file.destroy(new BadRequestError(error.message));
      else reject(new BadRequestError(error.message));
    });
    // Busboy finishes once every part has been read and the form has proved well formed; only
    // then does the file end, so a form that breaks off after it imports nothing.
    form.on('finish', () => file?.end());
    form.on('close', () => {
      if (!file) reject(new BadRequestError(UploadMessages.noFile));
    });
    // A client gone before the form's end ends the form there, and with it the file.
    finished(request, (error) => {
      if (error) form.destroy(error);
    });
    request.pipe(form);
  });
}
