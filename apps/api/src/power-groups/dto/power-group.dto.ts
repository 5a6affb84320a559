import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { PowerGroupView } from '@solar/domain';
import { HttpUrl, MaxChars, NonBlankText, OptionalNonNull } from '../../dto-decorators';

export class PowerGroupDto implements PowerGroupView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: String, nullable: true }) logoUrl!: string | null;
  @ApiProperty({ type: 'integer' }) sunSourceCount!: number;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

/** Power group text: name 100, description 500, logoUrl 500 characters (an http(s) URL, as a source's icon). */
export class CreatePowerGroupDto {
  @ApiProperty({ maxLength: 100 })
  @NonBlankText(100)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxChars(500)
  description?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxChars(500)
  @HttpUrl()
  logoUrl?: string | null;
}

/** Every field optional; description and logoUrl can be cleared with null, the name cannot. */
export class UpdatePowerGroupDto extends PartialType(OmitType(CreatePowerGroupDto, ['name'] as const)) {
  @ApiPropertyOptional({ maxLength: 100 })
  @OptionalNonNull()
  @NonBlankText(100)
  name?: string;
}
