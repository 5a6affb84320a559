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

  /** Adds a price to a source of the owner; null when the source is not among theirs. */
  async insertForOwnedSource(
    ownerId: string,
    sunSourceId: string,
    fields: KwhPriceFields,
  ): Promise<string | null> {
    const rows: Array<{ id: string }> = await this.prices.query(
      `INSERT INTO kwh_prices (sun_source_id, price_per_kwh, effective_from)
       SELECT s.id, $3, $4 FROM sun_sources s WHERE s.id = $1 AND s.user_id = $2
       RETURNING id`,
      [sunSourceId, ownerId, fields.pricePerKwh, fields.effectiveFrom],
    );
    return rows[0]?.id ?? null;
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
