import { ApiProperty } from '@nestjs/swagger';
import { WeatherRecord } from '@solar/domain';

/** Weather record: one day at the source, in its local calendar. */
export class WeatherRecordDto implements WeatherRecord {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) sunSourceId!: string;
  @ApiProperty({ format: 'date', example: '2026-06-10', description: 'Local date at the source' })
  date!: string;
  @ApiProperty({ type: Number, nullable: true, description: '°C' }) temperatureMax!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: '°C' }) temperatureMin!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'MJ/m² over the day' })
  shortwaveRadiationSum!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'WMO weather interpretation code (0-99)' })
  weatherCode!: number | null;
  @ApiProperty({ type: Number, nullable: true }) uvIndexMax!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'mm' }) precipitationSum!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-06-10T05:12',
    description: 'Local date-time at the source, without offset',
  })
  sunrise!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-06-10T21:31' }) sunset!: string | null;
}

export class WeatherErrorDto {
  @ApiProperty({ example: 'Weather provider unavailable' }) message!: string;
}
