import { ApiProperty } from '@nestjs/swagger';
import { ROLES, UserInfo } from '@solar/domain';

export class UserInfoDto implements UserInfo {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: String, nullable: true }) firstName!: string | null;
  @ApiProperty({ type: String, nullable: true }) lastName!: string | null;
  @ApiProperty({ enum: ROLES, isArray: true }) roles!: UserInfo['roles'];
}

/** The answer of the account routes; failures use the same shape with `success: false` (400). */
export class AuthResponseDto {
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty({ type: UserInfoDto, nullable: true }) user!: UserInfoDto | null;
}

export function authResponse(message: string | null, user: UserInfo | null = null): AuthResponseDto {
  return { success: true, message, user };
}
