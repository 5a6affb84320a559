import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { SharingConfiguration, SharingFlags } from '@solar/domain';

/** The whole configuration, as PUT replaces it. */
export class UpdateSharingDto implements SharingFlags {
  @ApiProperty({ description: 'Master switch: when false nothing is shared' })
  @IsBoolean()
  isEnabled!: boolean;
  @ApiProperty({ description: 'Latest and historical metrics' }) @IsBoolean() shareMonitor!: boolean;
  @ApiProperty({ description: 'Weather' }) @IsBoolean() shareWeather!: boolean;
  @ApiProperty({ description: 'ML predictions' }) @IsBoolean() shareForecast!: boolean;
  @ApiProperty({ description: 'ROI summary' }) @IsBoolean() shareReturns!: boolean;
}

export class SharingConfigurationDto extends UpdateSharingDto implements SharingConfiguration {
  @ApiProperty({ format: 'uuid' }) sunSourceId!: string;
}

/** What a stranger may see of a shared source: no credentials, owner, coordinates or other ids. */
export class PublicSourceDto {
  @ApiProperty({ format: 'uuid' }) sunSourceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: String, nullable: true }) iconUrl!: string | null;
  @ApiProperty({ type: Number, nullable: true }) installedCapacityWatts!: number | null;
  @ApiProperty() shareMonitor!: boolean;
  @ApiProperty() shareWeather!: boolean;
  @ApiProperty() shareForecast!: boolean;
  @ApiProperty() shareReturns!: boolean;
}
