import { Transform, TransformCallback } from 'node:stream';
import { csvHeader, csvRecord } from './csv-format';
import { ExportRow } from './export-columns';

/** About this many characters go to the socket per write: few large writes, not one per row. */
const CHUNK_CHARS = 64 * 1024;

/** ExportRows in, CSV out: the header row first (also when there are no rows), UTF-8 without BOM. */
export class CsvExportEncoder extends Transform {
  private pending = csvHeader();

  constructor() {
    super({ writableObjectMode: true });
  }

  override _transform(row: ExportRow, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending += csvRecord(row);
    if (this.pending.length >= CHUNK_CHARS) {
      this.push(this.pending, 'utf8');
      this.pending = '';
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.pending !== '') this.push(this.pending, 'utf8');
    this.pending = '';
    callback();
  }
}
