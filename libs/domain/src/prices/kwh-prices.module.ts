import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { KwhPriceEntity } from './kwh-price.entity';
import { KwhPriceRepository } from './kwh-price.repository';
import { KwhPricesService } from './kwh-prices.service';

/** kWh price history. A source's first price is written with the source (its repository). */
@Module({
  imports: [TypeOrmModule.forFeature([KwhPriceEntity]), SunSourcesModule],
  providers: [KwhPriceRepository, KwhPricesService],
  exports: [KwhPriceRepository, KwhPricesService],
})
export class KwhPricesModule {}
