import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { CONNECTION_TYPES, ConnectionType } from '@solar/domain';
import {
  CurrencyCode,
  HttpUrl,
  IsoDateTime,
  MaxChars,
  MaxDecimals,
  NonBlankText,
} from '../../dto-decorators';

const FINITE = { allowNaN: false, allowInfinity: false };
export const MAX_MONEY = 999_999_999_999.99;
/** The largest value of the `numeric(12, 6)` price column. */
export const MAX_KWH_PRICE = 999_999.999999;

/** The array as installed: both angles or none. */
export class ArrayOrientationDto {
  @ApiProperty({ minimum: 0, maximum: 90, description: 'Degrees from horizontal: 0 flat, 90 vertical' })
  @IsNumber(FINITE)
  @Min(0)
  @Max(90)
  tilt!: number;

  @ApiProperty({
    minimum: 0,
    maximum: 360,
    description: 'Degrees clockwise from north the array faces: 90 east, 180 south, 270 west',
  })
  @IsNumber(FINITE)
  @Min(0)
  @Max(360)
  azimuth!: number;
}

export class CreateSunSourceDto {
  @ApiProperty({ maxLength: 200 })
  @NonBlankText(200)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxChars(2000)
  description?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @MaxChars(500)
  @HttpUrl()
  iconUrl?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'One of your Power Groups',
  })
  @IsOptional()
  @IsUUID()
  powerGroupId?: string | null;

  @ApiProperty({ enum: CONNECTION_TYPES })
  @IsIn(CONNECTION_TYPES, { message: 'connectionType must be MQTT or Webhook' })
  connectionType!: ConnectionType;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Degrees; outside [-90, 90] it is stored as null',
  })
  @IsOptional()
  @IsNumber(FINITE)
  latitude?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Degrees; outside [-180, 180] it is stored as null',
  })
  @IsOptional()
  @IsNumber(FINITE)
  longitude?: number | null;

  @ApiPropertyOptional({
    type: String,
    minLength: 16,
    maxLength: 256,
    description: 'Webhook only; generated when absent',
  })
  @IsOptional()
  @IsString()
  @Length(16, 256)
  webhookSecret?: string | null;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 0 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  installedCapacityWatts?: number | null;

  @ApiPropertyOptional({
    type: ArrayOrientationDto,
    nullable: true,
    description:
      'The array as installed. Given, the forecast uses it; absent, the forecast infers the orientation from ' +
      'the history (or assumes 30° facing the equator). Returned only when set; null clears it.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ArrayOrientationDto)
  orientation?: ArrayOrientationDto | null;

  @ApiPropertyOptional({ default: 'EUR', description: 'ISO 4217 code' })
  @IsOptional()
  @CurrencyCode()
  currency?: string | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Greater than 0: the first price, effective now (up to 6 decimals)',
  })
  @IsOptional()
  @IsNumber(FINITE)
  @MaxDecimals(6)
  @Max(MAX_KWH_PRICE)
  initialKwhPrice?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 0 })
  @IsOptional()
  @IsNumber(FINITE)
  @MaxDecimals(2)
  @Min(0)
  @Max(MAX_MONEY)
  systemCost?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 0 })
  @IsOptional()
  @IsNumber(FINITE)
  @MaxDecimals(2)
  @Min(0)
  @Max(MAX_MONEY)
  maintenanceCostPerYear?: number | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsoDateTime()
  installationDate?: Date | null;
}
