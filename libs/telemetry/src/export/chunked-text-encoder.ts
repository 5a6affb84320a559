import { Transform, TransformCallback } from 'node:stream';

/** About this many characters go on at a time: few large writes, not one per record. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Records in (object mode), text out in chunks of about 64 K characters: what comes `before`
 * the records (also when there are none), each record as `encode` writes it, then `after`.
 */
export abstract class ChunkedTextEncoder<Record> extends Transform {
  private pending: string;

  protected constructor(
    before: string,
    private readonly after: string,
  ) {
    super({ writableObjectMode: true });
    this.pending = before;
  }

  protected abstract encode(record: Record): string;

  override _transform(record: Record, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending += this.encode(record);
    if (this.pending.length >= CHUNK_CHARS) {
      this.push(this.pending, 'utf8');
      this.pending = '';
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    const rest = this.pending + this.after;
    if (rest !== '') this.push(rest, 'utf8');
    this.pending = '';
    callback();
  }
}
