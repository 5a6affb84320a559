import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { KwhPriceEntity } from './kwh-price.entity';

export type KwhPriceFields = Pick<KwhPriceEntity, 'pricePerKwh' | 'effectiveFrom'>;

/** The sources of one owner: every price operation is confined to them. */
const OWNED_SOURCES = 'SELECT s.id FROM sun_sources s WHERE s.user_id = :ownerId';

@Injectable()
export class KwhPriceRepository {
  constructor(@InjectRepository(KwhPriceEntity) private readonly prices: Repository<KwhPriceEntity>) {}

  /** The price history of a source the caller owns, oldest first (ties: first entered first). */
  listForOwnedSource(ownerId: string, sunSourceId: string): Promise<KwhPriceEntity[]> {
    return this.prices
      .createQueryBuilder('p')
      .innerJoin('sun_sources', 's', 's.id = p.sun_source_id AND s.user_id = :ownerId', { ownerId })
      .where('p.sun_source_id = :sunSourceId', { sunSourceId })
      .orderBy('p.effective_from', 'ASC')
      .addOrderBy('p.created_at', 'ASC')
      .addOrderBy('p.id', 'ASC')
      .getMany();
  }

  findOwned(ownerId: string, id: string): Promise<KwhPriceEntity | null> {
    return this.prices
      .createQueryBuilder('p')
      .innerJoin('sun_sources', 's', 's.id = p.sun_source_id AND s.user_id = :ownerId', { ownerId })
      .where('p.id = :id', { id })
      .getOne();
  }

  /**
   * Adds a price to a source of the owner, unless the source already has `cap` prices: the new id,
   * `'full'`, or null when the source is not among theirs.
   *
   * Parallel adds to one source are serialized by a row lock on the source (FOR NO KEY UPDATE,
   * which does not block the foreign-key checks of telemetry inserts), and the count is read by
   * a later statement of the same transaction, so it sees every price committed before the lock
   * was granted: the cap cannot be overrun.
   */
  insertForOwnedSource(
    ownerId: string,
    sunSourceId: string,
    fields: KwhPriceFields,
    cap: number,
  ): Promise<{ id: string } | 'full' | null> {
    return this.prices.manager.transaction(async (manager) => {
      const owned: unknown[] = await manager.query(
        'SELECT 1 FROM sun_sources WHERE id = $1 AND user_id = $2 FOR NO KEY UPDATE',
        [sunSourceId, ownerId],
      );
      if (owned.length === 0) return null;
      const rows: Array<{ id: string }> = await manager.query(
        `INSERT INTO kwh_prices (sun_source_id, price_per_kwh, effective_from)
         SELECT $1, $2, $3 WHERE (SELECT count(*) FROM kwh_prices WHERE sun_source_id = $1) < $4
         RETURNING id`,
        [sunSourceId, fields.pricePerKwh, fields.effectiveFrom, cap],
      );
      return rows[0] ?? 'full';
    });
  }

  async updateOwned(ownerId: string, id: string, fields: KwhPriceFields): Promise<boolean> {
    const result = await this.prices
      .createQueryBuilder()
      .update(KwhPriceEntity)
      .set({ pricePerKwh: fields.pricePerKwh, effectiveFrom: fields.effectiveFrom })
      .where('id = :id', { id })
      .andWhere(`sun_source_id IN (${OWNED_SOURCES})`, { ownerId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async deleteOwned(ownerId: string, id: string): Promise<boolean> {
    const result = await this.prices
      .createQueryBuilder()
      .delete()
      .from(KwhPriceEntity)
      .where('id = :id', { id })
      .andWhere(`sun_source_id IN (${OWNED_SOURCES})`, { ownerId })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
