import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LONG_STATEMENT_TIMEOUT } from '@solar/database';

/** `YYYY-MM-01` of the UTC month holding `instant`. */
export function monthOf(instant: Date): string {
  return `${instant.toISOString().slice(0, 7)}-01`;
}

/**
 * Makes sure the monthly partitions of `telemetry` exist before rows are written to them.
 * Months known to exist are remembered, so the hot path costs nothing once a month is there.
 */
@Injectable()
export class TelemetryPartitions {
  private readonly known = new Set<string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async ensureFor(instants: Iterable<Date>): Promise<void> {
    const missing = new Set<string>();
    for (const instant of instants) {
      const month = monthOf(instant);
      if (!this.known.has(month)) missing.add(month);
    }
    for (const month of missing) {
      // Creating a partition waits for every transaction on the table (a downsampling included).
      await this.dataSource.transaction(async (manager) => {
        await manager.query(LONG_STATEMENT_TIMEOUT);
        await manager.query('SELECT ensure_telemetry_partition($1::date)', [month]);
      });
      this.known.add(month);
    }
  }

  /** The current month and the next `months`, so the first message of a month never waits. */
  async ensureAhead(now: Date, months = 2): Promise<void> {
    const instants = Array.from({ length: months + 1 }, (_, index) => {
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + index, 1));
    });
    await this.ensureFor(instants);
  }

  /** After a partition was dropped behind our back (retention), look again. */
  forget(): void {
    this.known.clear();
  }
}
