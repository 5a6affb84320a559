import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { CurrencyCode, IsoDateTime, MaxChars, MaxDecimals, OptionalNonNull } from '@solar/platform';
import { MAX_MONEY, URL_OPTIONS } from './create-sun-source.dto';

const FINITE = { allowNaN: false, allowInfinity: false };

/** Every field optional; the nullable ones can be set to null (SPEC.md §4.2). */
export class UpdateSunSourceDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @OptionalNonNull()
  @IsString()
  @IsNotEmpty()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxChars(200)
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxChars(2000)
  description?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @MaxChars(500)
  @IsUrl(URL_OPTIONS, { message: 'iconUrl must be an http(s) URL' })
  iconUrl?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'null takes the source out of its group',
  })
  @IsOptional()
  @IsUUID()
  powerGroupId?: string | null;

  @ApiPropertyOptional()
  @OptionalNonNull()
  @IsBoolean()
  isActive?: boolean;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @IsOptional()
  @IsNumber(FINITE)
  latitude?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @IsOptional()
  @IsNumber(FINITE)
  longitude?: number | null;

  @ApiPropertyOptional({ description: 'true issues a new MQTT key (returned in connectionDetails)' })
  @OptionalNonNull()
  @IsBoolean()
  regenerateMqttApiKey?: boolean;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 0 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  installedCapacityWatts?: number | null;

  @ApiPropertyOptional({ description: 'ISO 4217 code' })
  @OptionalNonNull()
  @CurrencyCode()
  currency?: string;

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
