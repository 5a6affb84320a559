import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface SystemStats {
  users: number;
  sunSources: number;
  telemetryRows: number;
  messagesLastHour: number;
}

/** The administrator's overview, counted in one round trip. */
@Injectable()
export class SystemStatsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async read(): Promise<SystemStats> {
    const [row]: Array<SystemStats> = await this.dataSource.query(`
      SELECT (SELECT count(*)::int FROM users) AS "users",
             (SELECT count(*)::int FROM sun_sources) AS "sunSources",
             (SELECT count(*)::bigint FROM telemetry)::float8 AS "telemetryRows",
             (SELECT count(*)::int FROM telemetry WHERE received_at > now() - interval '1 hour') AS "messagesLastHour"`);
    return row;
  }
}
