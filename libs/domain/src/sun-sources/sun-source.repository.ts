import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { LONG_STATEMENT_TIMEOUT, PreparedQueries } from '@solar/database';
import { SunSourceEntity } from './sun-source.entity';

/** Who owns a source, its heading and how its devices authenticate, nothing more (SourceAccessCache). */
export type SourceAccess = Pick<
  SunSourceEntity,
  | 'id'
  | 'userId'
  | 'name'
  | 'iconUrl'
  | 'connectionType'
  | 'isActive'
  | 'mqttApiKeyEncrypted'
  | 'webhookSecretEncrypted'
  | 'mqttApiKeyDigest'
  | 'webhookSecretDigest'
>;

export type SourceHeading = Pick<SunSourceEntity, 'name' | 'iconUrl'>;

/** What the scheduler's jobs need of a source to decide and to run. */
export type ScheduledSource = Pick<SunSourceEntity, 'id' | 'userId' | 'isActive' | 'latitude' | 'longitude'>;

export type SunSourceFields = Omit<
  SunSourceEntity,
  'id' | 'userId' | 'powerGroup' | 'createdAt' | 'updatedAt'
>;

@Injectable()
export class SunSourceRepository {
  constructor(
    @InjectRepository(SunSourceEntity) private readonly sources: Repository<SunSourceEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedQueries,
  ) {}

  /** One statement: `findOne` with a relation sends two (a DISTINCT probe for its LIMIT 1, then the row). */
  findOwned(ownerId: string, id: string): Promise<SunSourceEntity | null> {
    return this.sources
      .createQueryBuilder('source')
      .leftJoinAndSelect('source.powerGroup', 'powerGroup')
      .where('source.id = :id AND source.userId = :ownerId', { id, ownerId })
      .getOne();
  }

  findById(id: string): Promise<SunSourceEntity | null> {
    return this.sources.findOneBy({ id });
  }

  /**
   * Any owner's sources, behind SourceAccessCache, many in one prepared statement: those found,
   * in no order (an id that is no source's is absent). Every id must be a UUID, or PostgreSQL
   * refuses the whole statement.
   */
  findAccessMany(ids: readonly string[]): Promise<SourceAccess[]> {
    return this.prepared.query<SourceAccess>(
      `SELECT id, user_id AS "userId", name, icon_url AS "iconUrl",
              connection_type AS "connectionType", is_active AS "isActive",
              mqtt_api_key_encrypted AS "mqttApiKeyEncrypted", webhook_secret_encrypted AS "webhookSecretEncrypted",
              mqtt_api_key_digest AS "mqttApiKeyDigest", webhook_secret_digest AS "webhookSecretDigest"
         FROM sun_sources WHERE id = ANY($1::uuid[])`,
      [ids],
    );
  }

  async idsOwnedBy(ownerId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM sun_sources WHERE user_id = $1`,
      [ownerId],
    );
    return rows.map((row) => row.id);
  }

  /** Every source of every user who turned the on/off setting `settingType` on, in a stable order. */
  sourcesOfUsersWithEnabled(settingType: number): Promise<ScheduledSource[]> {
    return this.dataSource.query(
      `SELECT s.id, s.user_id AS "userId", s.is_active AS "isActive", s.latitude, s.longitude
         FROM sun_sources s
         JOIN user_settings u ON u.user_id = s.user_id AND u.setting_type = $1 AND u.value = '1'
        ORDER BY s.user_id, s.created_at, s.id`,
      [settingType],
    );
  }

  listOwned(ownerId: string, powerGroupId?: string): Promise<SunSourceEntity[]> {
    return this.sources.find({
      where: { userId: ownerId, ...(powerGroupId ? { powerGroupId } : {}) },
      relations: { powerGroup: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** The source and, when given, its first kWh price, together or not at all. */
  async insert(
    ownerId: string,
    id: string,
    fields: SunSourceFields,
    initialPrice?: { pricePerKwh: number; effectiveFrom: Date },
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(SunSourceEntity, { ...fields, id, userId: ownerId });
      // The first price belongs to the creation: both or neither (the prices' own table).
      if (initialPrice) {
        await manager.query(
          'INSERT INTO kwh_prices (sun_source_id, price_per_kwh, effective_from) VALUES ($1, $2, $3)',
          [id, initialPrice.pricePerKwh, initialPrice.effectiveFrom],
        );
      }
    });
  }

  async update(ownerId: string, id: string, changes: Partial<SunSourceFields>): Promise<boolean> {
    if (Object.keys(changes).length === 0) return this.sources.existsBy({ id, userId: ownerId });
    const result = await this.sources.update({ id, userId: ownerId }, changes);
    return (result.affected ?? 0) > 0;
  }

  /** Removes the source and, through the foreign keys, everything it owns. */
  async delete(ownerId: string, id: string): Promise<boolean> {
    // All its telemetry goes too: longer than the pool's default statement_timeout allows.
    const result = await this.dataSource.transaction(async (manager) => {
      await manager.query(LONG_STATEMENT_TIMEOUT);
      return manager.delete(SunSourceEntity, { id, userId: ownerId });
    });
    return (result.affected ?? 0) > 0;
  }
}
