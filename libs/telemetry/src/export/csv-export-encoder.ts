import { ChunkedTextEncoder } from './chunked-text-encoder';
import { csvHeader, csvRecord } from './csv-format';
import { ExportRow } from './export-columns';

/** ExportRows in, CSV out: the header row first (also when there are no rows), UTF-8 without BOM. */
export class CsvExportEncoder extends ChunkedTextEncoder<ExportRow> {
  constructor() {
    super(csvHeader(), '');
  }

  protected override encode(row: ExportRow): string {
    return csvRecord(row);
  }
}
