import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

/** EMQX's HTTP authentication request, as configured in docker/emqx. */
export class BrokerAuthRequestDto {
  @ApiProperty() @IsString() @MaxLength(256) clientId!: string;
  @ApiProperty() @IsString() @MaxLength(256) username!: string;
  @ApiProperty({ description: "The source's mqttApiKey" }) @IsString() @MaxLength(512) password!: string;
}

/** EMQX's HTTP authorization request. */
export class BrokerAclRequestDto {
  @ApiProperty() @IsString() @MaxLength(256) clientId!: string;
  @ApiProperty() @IsString() @MaxLength(256) username!: string;
  @ApiProperty() @IsString() @MaxLength(1024) topic!: string;
  @ApiProperty({ enum: ['publish', 'subscribe'] }) @IsString() @MaxLength(32) action!: string;
}

export class BrokerVerdictDto {
  @ApiProperty({ enum: ['allow', 'deny'] }) result!: 'allow' | 'deny';
  @ApiProperty({ required: false, description: 'On an allowed authentication' }) is_superuser?: boolean;
}
