import { KwhPriceEntity } from './kwh-price.entity';

/** KwhPriceHistoryDto: a source's price of electricity per kWh, in effect from a date on. */
export interface KwhPriceView {
  id: string;
  sunSourceId: string;
  pricePerKwh: number;
  effectiveFrom: string;
  createdAt: string;
}

export function toKwhPriceView(price: KwhPriceEntity): KwhPriceView {
  return {
    id: price.id,
    sunSourceId: price.sunSourceId,
    pricePerKwh: price.pricePerKwh,
    effectiveFrom: price.effectiveFrom.toISOString(),
    createdAt: price.createdAt.toISOString(),
  };
}
