import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SyntheticStartState } from './synthetic-device';

interface LatestRow {
  ts: Date;
  state_of_charge: number | null;
  total_energy_produced: number | null;
  total_energy_consumed: number | null;
  daily_energy_produced: number | null;
  daily_energy_consumed: number | null;
}

/** The source's most recent stored battery state and counters, so a live generator continues them. */
@Injectable()
export class LatestReadingRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async find(sunSourceId: string): Promise<SyntheticStartState | null> {
    const rows: LatestRow[] = await this.dataSource.query(
      `SELECT ts, state_of_charge, total_energy_produced, total_energy_consumed,
              daily_energy_produced, daily_energy_consumed
         FROM telemetry
        WHERE sun_source_id = $1
        ORDER BY ts DESC
        LIMIT 1`,
      [sunSourceId],
    );
    const [row] = rows;
    if (!row) return null;
    return {
      at: row.ts,
      stateOfCharge: row.state_of_charge,
      totalEnergyProduced: row.total_energy_produced,
      totalEnergyConsumed: row.total_energy_consumed,
      dailyEnergyProduced: row.daily_energy_produced,
      dailyEnergyConsumed: row.daily_energy_consumed,
    };
  }
}
