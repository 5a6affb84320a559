import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayOrientation,
  CONNECTION_TYPES,
  ConnectionDetails,
  ConnectionType,
  SunSourceView,
} from '@solar/domain';
import { ArrayOrientationDto } from './create-sun-source.dto';

export class ConnectionDetailsDto implements ConnectionDetails {
  @ApiProperty({ type: String, nullable: true }) mqttBrokerHost!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) mqttBrokerPort!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'src-6f1c2a4e-...' }) mqttClientId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: '`ak_` + 64 hex characters' }) mqttApiKey!:
    string | null;
  @ApiProperty({ type: String, nullable: true, example: 'solar/sources/{id}/data' }) mqttTopic!:
    string | null;
  @ApiProperty({ type: String, nullable: true }) webhookUrl!: string | null;
  @ApiProperty({ type: String, nullable: true }) webhookSecret!: string | null;
}

/** A sun source as the API returns it. */
export class SunSourceDto implements SunSourceView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: String, nullable: true }) iconUrl!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) powerGroupId!: string | null;
  @ApiProperty({ type: String, nullable: true }) powerGroupName!: string | null;
  @ApiProperty({ enum: CONNECTION_TYPES }) connectionType!: ConnectionType;
  @ApiProperty({ type: Number, nullable: true }) latitude!: number | null;
  @ApiProperty({ type: Number, nullable: true }) longitude!: number | null;
  @ApiProperty() isActive!: boolean;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
  @ApiProperty({ type: Number, nullable: true }) installedCapacityWatts!: number | null;
  @ApiPropertyOptional({
    type: ArrayOrientationDto,
    description: 'The array as installed; absent when not set',
  })
  orientation?: ArrayOrientation;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ type: Number, nullable: true }) systemCost!: number | null;
  @ApiProperty({ type: Number, nullable: true }) maintenanceCostPerYear!: number | null;
  @ApiProperty({ type: String, nullable: true }) installationDate!: string | null;
  @ApiProperty({
    type: ConnectionDetailsDto,
    nullable: true,
    description:
      'Null in lists and unless requested; included when a source is created or its key regenerated',
  })
  connectionDetails!: ConnectionDetailsDto | null;
}

export class WebhookUrlDto {
  @ApiProperty() webhookUrl!: string;
}

export class WebhookSecretDto {
  @ApiProperty() webhookSecret!: string;
}

export class MqttApiKeyDto {
  @ApiProperty() mqttApiKey!: string;
}
