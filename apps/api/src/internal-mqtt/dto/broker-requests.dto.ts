import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';

/*
 * Strings of any length (the JSON body limit bounds them): a client chooses its own client id,
 * username, key and topic, and whatever it chose gets a verdict, never a 400, which the broker
 * would count as the hook failing rather than as a denial.
 */

/** EMQX's HTTP authentication request, as configured in docker/emqx. */
export class BrokerAuthRequestDto {
  @ApiProperty() @IsString() clientId!: string;
  @ApiProperty() @IsString() username!: string;
  @ApiProperty({ description: "The source's mqttApiKey" }) @IsString() password!: string;
}

/** EMQX's HTTP authorization request. */
export class BrokerAclRequestDto {
  @ApiProperty() @IsString() clientId!: string;
  @ApiProperty() @IsString() username!: string;
  @ApiProperty() @IsString() topic!: string;
  @ApiProperty({ enum: ['publish', 'subscribe'] }) @IsString() action!: string;
}

export class BrokerVerdictDto {
  @ApiProperty({ enum: ['allow', 'deny'] }) result!: 'allow' | 'deny';
  @ApiProperty({ required: false, description: 'On an allowed authentication' }) is_superuser?: boolean;
}
