import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DailyEnergyReadings } from './daily-energy';

/** The energy counters of a source's telemetry, per UTC day. */
@Injectable()
export class DailyEnergyReadingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Days with at least one energy counter, oldest first; [] for a source the owner does not have. */
  ofOwnedSource(ownerId: string, sunSourceId: string): Promise<DailyEnergyReadings[]> {
    return this.dataSource.query(
      `SELECT date_trunc('day', t.ts, 'UTC') AS "day",
              max(t.daily_energy_produced)::float8 AS "maxDailyEnergyKwh",
              min(t.total_energy_produced)::float8 AS "minTotalEnergyKwh",
              max(t.total_energy_produced)::float8 AS "maxTotalEnergyKwh"
         FROM telemetry t
         JOIN sun_sources s ON s.id = t.sun_source_id AND s.user_id = $2
        WHERE t.sun_source_id = $1
          AND (t.daily_energy_produced IS NOT NULL OR t.total_energy_produced IS NOT NULL)
        GROUP BY 1 ORDER BY 1`,
      [sunSourceId, ownerId],
    );
  }
}
