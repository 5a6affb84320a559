/** A row that could not be stored as it stands, by its line in the file (the header is line 1). */
export interface ImportRejection {
  line: number;
  reason: string;
}

/** What became of an import's rows; `rejections` lists the first 100 by line. */
export interface ImportReport {
  rowsRead: number;
  stored: number;
  /** A row of that source at that very timestamp was stored already (a re-import). */
  duplicate: number;
  /** Within 10 s of device time of a stored row or of an earlier row of the file. */
  throttled: number;
  rejected: number;
  rejections: ImportRejection[];
}

export const MAX_LISTED_REJECTIONS = 100;

/** The report of an import that has read nothing yet. */
export function emptyImportReport(): ImportReport {
  return { rowsRead: 0, stored: 0, duplicate: 0, throttled: 0, rejected: 0, rejections: [] };
}

export type RowOutcome = 'stored' | 'duplicate' | 'throttled';

/** The counts as an import goes, keeping the rejections of the lowest lines only. */
export class ImportTally {
  private readonly report: ImportReport = emptyImportReport();

  read(): void {
    this.report.rowsRead++;
  }

  count(outcome: RowOutcome): void {
    this.report[outcome]++;
  }

  /** Rows are settled out of order now and then (a parse error is seen ahead of the rows before it). */
  reject(line: number, reason: string): void {
    this.report.rejected++;
    const { rejections } = this.report;
    if (rejections.length === MAX_LISTED_REJECTIONS && rejections[rejections.length - 1].line < line) return;
    let at = rejections.length;
    while (at > 0 && rejections[at - 1].line > line) at--;
    rejections.splice(at, 0, { line, reason });
    if (rejections.length > MAX_LISTED_REJECTIONS) rejections.pop();
  }

  snapshot(): ImportReport {
    return { ...this.report, rejections: [...this.report.rejections] };
  }
}
