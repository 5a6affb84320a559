import { ApiProperty } from '@nestjs/swagger';
import { IsNumber, IsPositive, Max } from 'class-validator';
import { KwhPriceView } from '@solar/domain';
import { IsoDateTime, MaxDecimals } from '../../dto-decorators';
import { MAX_KWH_PRICE } from '../../sun-sources/dto/create-sun-source.dto';

/** One entry of a source's kWh price history. */
export class KwhPriceHistoryDto implements KwhPriceView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) sunSourceId!: string;
  @ApiProperty({ description: 'Per kWh, in the currency of the source' }) pricePerKwh!: number;
  @ApiProperty({ format: 'date-time' }) effectiveFrom!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

/** A price and the moment it takes effect; it fits the `numeric(12, 6)` column. */
export class CreateKwhPriceDto {
  @ApiProperty({
    exclusiveMinimum: true,
    minimum: 0,
    maximum: MAX_KWH_PRICE,
    description: 'Greater than 0, at most 6 decimals',
  })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @MaxDecimals(6)
  @Max(MAX_KWH_PRICE)
  pricePerKwh!: number;

  @ApiProperty({ type: String, format: 'date-time', description: 'ISO 8601; without an offset, UTC' })
  @IsoDateTime()
  effectiveFrom!: Date;
}

/** Replaces both fields of a price. */
export class UpdateKwhPriceDto extends CreateKwhPriceDto {}
