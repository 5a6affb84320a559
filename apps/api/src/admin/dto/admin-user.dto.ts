import { ApiProperty } from '@nestjs/swagger';
import { AdminUserInfo } from '@solar/domain';
import { UserInfoDto } from '../../auth/dto/auth-response.dto';

export class AdminUserDto extends UserInfoDto implements AdminUserInfo {
  @ApiProperty() createdAt!: string;
  @ApiProperty() emailVerified!: boolean;
  @ApiProperty({ type: 'integer' }) sunSourceCount!: number;
}

export class UserPageDto {
  @ApiProperty({ type: AdminUserDto, isArray: true }) items!: AdminUserDto[];
  @ApiProperty({ type: 'integer' }) total!: number;
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) pageSize!: number;
}

export class SystemStatsDto {
  @ApiProperty({ type: 'integer' }) users!: number;
  @ApiProperty({ type: 'integer' }) sunSources!: number;
  @ApiProperty({ type: 'integer' }) telemetryRows!: number;
  @ApiProperty({ type: 'integer' }) messagesLastHour!: number;
}
