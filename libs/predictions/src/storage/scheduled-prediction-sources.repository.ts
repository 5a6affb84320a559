import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SettingType } from '@solar/domain';

/** A source the scheduled prediction job considers. */
export interface ScheduledSource {
  id: string;
  userId: string;
  isActive: boolean;
  latitude: number | null;
  longitude: number | null;
}

/**
 * The scheduled prediction job's question in one query: every source of every user who turned
 * setting 1 (AutoRunPredictions) on, in a stable order.
 */
@Injectable()
export class ScheduledPredictionSourcesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  sourcesOfUsersWithAutoRun(): Promise<ScheduledSource[]> {
    return this.dataSource.query(
      `SELECT s.id, s.user_id AS "userId", s.is_active AS "isActive", s.latitude, s.longitude
         FROM sun_sources s
         JOIN user_settings u ON u.user_id = s.user_id AND u.setting_type = $1 AND u.value = '1'
        ORDER BY s.user_id, s.created_at, s.id`,
      [SettingType.AutoRunPredictions],
    );
  }
}
