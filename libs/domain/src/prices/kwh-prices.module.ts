import { Module } from '@nestjs/common';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { KwhPricesService } from './kwh-prices.service';

/** kWh price history; the repository comes from the sources' module, which writes the first price. */
@Module({
  imports: [SunSourcesModule],
  providers: [KwhPricesService],
  exports: [KwhPricesService],
})
export class KwhPricesModule {}
