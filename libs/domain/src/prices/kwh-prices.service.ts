import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { BadRequestError, NotFoundError } from '@solar/core';
import { SourceAccessCache, SUN_SOURCE_NOT_FOUND } from '../sun-sources/source-access-cache';
import { KwhPriceView, toKwhPriceView } from './kwh-price-view';
import { KwhPriceFields, KwhPriceRepository } from './kwh-price.repository';

export const KWH_PRICE_NOT_FOUND = 'Price not found';

/** The kWh price history of a source, always through the source's owner. */
@Injectable()
export class KwhPricesService {
  constructor(
    private readonly prices: KwhPriceRepository,
    private readonly access: SourceAccessCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Ordered by `effectiveFrom`, then by entry. */
  async list(ownerId: string, sunSourceId: string): Promise<KwhPriceView[]> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    return (await this.prices.listForOwnedSource(ownerId, sunSourceId)).map(toKwhPriceView);
  }

  async create(ownerId: string, sunSourceId: string, fields: KwhPriceFields): Promise<KwhPriceView> {
    // Bounded, so that a source's ROI (public when shared) costs a bounded amount to compute.
    const cap = this.config.limits.pricesPerSource;
    const inserted = await this.prices.insertForOwnedSource(ownerId, sunSourceId, fields, cap);
    if (!inserted) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    if (inserted === 'full') throw new BadRequestError(`A source can have at most ${cap} prices`);
    return this.get(ownerId, inserted.id);
  }

  async update(ownerId: string, id: string, fields: KwhPriceFields): Promise<KwhPriceView> {
    if (!(await this.prices.updateOwned(ownerId, id, fields))) throw new NotFoundError(KWH_PRICE_NOT_FOUND);
    return this.get(ownerId, id);
  }

  async delete(ownerId: string, id: string): Promise<void> {
    if (!(await this.prices.deleteOwned(ownerId, id))) throw new NotFoundError(KWH_PRICE_NOT_FOUND);
  }

  private async get(ownerId: string, id: string): Promise<KwhPriceView> {
    const price = await this.prices.findOwned(ownerId, id);
    if (!price) throw new NotFoundError(KWH_PRICE_NOT_FOUND);
    return toKwhPriceView(price);
  }
}
