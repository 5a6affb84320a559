import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { BadRequestError, DomainError } from '@solar/core';

export class ImportTooLargeError extends DomainError {
  constructor(maxBytes: number) {
    super('payload_too_large', `The file exceeds the import limit of ${maxBytes} bytes`);
  }
}

/** An upload written out: its name in the spool and its size. */
export interface SpooledImport {
  name: string;
  bytes: number;
}

/**
 * Uploads on their way to an import, as files under `{DATA_DIR}/imports`: the api writes them,
 * the scheduler's worker reads them (DATA_DIR is shared by the apps of one installation), and
 * each is removed once its import has ended. An upload is never held in memory.
 */
@Injectable()
export class ImportSpool {
  private readonly dir: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.dir = join(config.dataDir, 'imports');
  }

  /**
   * Writes `upload` out, up to `maxBytes` (`ImportTooLargeError` beyond, nothing kept). The rest
   * of a refused upload is read and discarded, so its sender gets the answer rather than a reset.
   * An upload that fails or is cut off (a form without its end, a client gone) is a
   * `BadRequestError`, and nothing is kept either.
   */
  async write(upload: Readable, maxBytes: number): Promise<SpooledImport> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const name = `${randomUUID()}.csv`;
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) done(new ImportTooLargeError(maxBytes));
        else done(null, chunk);
      },
    });
    const spooled = pipeline(counter, createWriteStream(this.pathOf(name), { flags: 'wx', mode: 0o600 }));
    // The upload can fail or stop at any moment, even before it got here (`finished` tells that
    // too); the spooling must end then, or the file and this request would wait forever.
    finished(upload, { writable: false }, (error) => {
      if (error) counter.destroy(error instanceof DomainError ? error : new BadRequestError(error.message));
    });
    upload.pipe(counter);
    try {
      await spooled;
    } catch (error) {
      upload.unpipe(counter);
      upload.resume();
      await this.remove(name);
      throw error;
    }
    return { name, bytes };
  }

  open(name: string): Readable {
    return createReadStream(this.pathOf(name));
  }

  async remove(name: string): Promise<void> {
    await rm(this.pathOf(name), { force: true });
  }

  private pathOf(name: string): string {
    // Names are ours (a UUID), but a job's data comes back from Redis: never leave the directory.
    if (!/^[0-9a-f-]{36}\.csv$/.test(name)) throw new Error(`not a spooled import: ${name}`);
    return join(this.dir, name);
  }
}
