import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { KwhPriceEntity } from './kwh-price.entity';

@Injectable()
export class KwhPriceRepository {
  constructor(@InjectRepository(KwhPriceEntity) private readonly prices: Repository<KwhPriceEntity>) {}

  /** The price history of a source the caller owns, oldest first. */
  listForOwnedSource(ownerId: string, sunSourceId: string): Promise<KwhPriceEntity[]> {
    return this.prices
      .createQueryBuilder('p')
      .innerJoin('sun_sources', 's', 's.id = p.sun_source_id AND s.user_id = :ownerId', { ownerId })
      .where('p.sun_source_id = :sunSourceId', { sunSourceId })
      .orderBy('p.effective_from', 'ASC')
      .addOrderBy('p.created_at', 'ASC')
      .getMany();
  }
}
