import { ApiProperty } from '@nestjs/swagger';
import { LiveGeneratorStatus } from '@solar/synthetic';

export class GeneratedDto {
  @ApiProperty({
    type: 'integer',
    description:
      'Points stored; timestamps the source already had are skipped, so a repeat stores few or none',
  })
  generated!: number;
}

export class LiveGeneratorStatusDto implements LiveGeneratorStatus {
  @ApiProperty() running!: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Start of the latest run; null when none ever ran',
  })
  startedAt!: string | null;

  @ApiProperty({ type: 'integer', description: 'Messages the latest run has published' })
  messagesSent!: number;
}
