import { ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { CurrencyCode, NonBlankText, OptionalNonNull } from '../../dto-decorators';
import { CreateSunSourceDto } from './create-sun-source.dto';

/**
 * Every field optional; the nullable ones can be set to null. The fields shared
 * with creation keep its rules; the connection type and creation-only inputs cannot be changed.
 */
export class UpdateSunSourceDto extends PartialType(
  OmitType(CreateSunSourceDto, [
    'name',
    'connectionType',
    'webhookSecret',
    'initialKwhPrice',
    'currency',
  ] as const),
) {
  @ApiPropertyOptional({ maxLength: 200 })
  @OptionalNonNull()
  @NonBlankText(200)
  name?: string;

  @ApiPropertyOptional()
  @OptionalNonNull()
  @IsBoolean()
  isActive?: boolean;

  @ApiPropertyOptional({ description: 'true issues a new MQTT key (returned in connectionDetails)' })
  @OptionalNonNull()
  @IsBoolean()
  regenerateMqttApiKey?: boolean;

  @ApiPropertyOptional({ description: 'ISO 4217 code' })
  @OptionalNonNull()
  @CurrencyCode()
  currency?: string;
}
