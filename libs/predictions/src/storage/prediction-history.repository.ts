import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HourlyObservation } from '@solar/forecast';

interface ObservationRow {
  hour: Date;
  solarPower: number | null;
  loadPower: number | null;
  stateOfCharge: number | null;
}

/**
 * The measured history a model learns from: hourly averages of the three series it forecasts.
 * The caller has checked the source (the worker reads on behalf of the job's owner).
 */
@Injectable()
export class PredictionHistoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * UTC hours in `[from, to)` that have at least one reading, from the hourly rollup (the means
   * of the hour's readings; a year is 8,760 rows where its readings are millions), oldest first.
   * A field with no value in an hour is null.
   */
  async measuredHours(sunSourceId: string, from: Date, to: Date): Promise<HourlyObservation[]> {
    const rows: ObservationRow[] = await this.dataSource.query(
      `SELECT hour,
              solar_power_sum / nullif(solar_power_count, 0) AS "solarPower",
              load_power_sum / nullif(load_power_count, 0) AS "loadPower",
              state_of_charge_sum / nullif(state_of_charge_count, 0) AS "stateOfCharge"
         FROM telemetry_hourly
        WHERE sun_source_id = $1 AND hour >= $2 AND hour < $3
        ORDER BY hour`,
      [sunSourceId, from, to],
    );
    return rows.map((row) => ({
      hour: row.hour,
      solarPower: row.solarPower,
      loadPower: row.loadPower,
      stateOfCharge: row.stateOfCharge,
    }));
  }
}
