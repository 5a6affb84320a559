import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TotalEnergyReadings } from './daily-energy';

/** The cumulative production counter of a source's telemetry, per UTC day. */
@Injectable()
export class TotalEnergyReadingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Days with a `totalEnergyProduced` reading, oldest first; [] for a source the owner does not have. */
  ofOwnedSource(ownerId: string, sunSourceId: string): Promise<TotalEnergyReadings[]> {
    return this.dataSource.query(
      `SELECT date_trunc('day', t.ts, 'UTC') AS "day",
              min(t.total_energy_produced)::float8 AS "minTotalEnergyKwh",
              max(t.total_energy_produced)::float8 AS "maxTotalEnergyKwh"
         FROM telemetry t
         JOIN sun_sources s ON s.id = t.sun_source_id AND s.user_id = $2
        WHERE t.sun_source_id = $1 AND t.total_energy_produced IS NOT NULL
        GROUP BY 1 ORDER BY 1`,
      [sunSourceId, ownerId],
    );
  }
}
