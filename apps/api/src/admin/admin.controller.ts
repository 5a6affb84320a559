import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Put, Query } from '@nestjs/common';
import {
  ApiCookieAuth,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AdminPlus, AuthenticatedUser, CostlyRoute, CurrentUser } from '@solar/auth';
import { UsersAdminService } from '@solar/domain';
import { AdminUserDto, SystemStatsDto, UserPageDto } from './dto/admin-user.dto';
import { ListUsersQueryDto } from './dto/list-users-query.dto';
import { SetRolesDto } from './dto/set-roles.dto';

@ApiTags('admin')
@ApiCookieAuth()
@ApiForbiddenResponse({ description: 'The caller is neither Admin nor Overseer' })
@AdminPlus()
@Controller('api/admin')
export class AdminController {
  constructor(private readonly admin: UsersAdminService) {}

  @Get('users')
  @ApiOkResponse({ type: UserPageDto })
  listUsers(@Query() query: ListUsersQueryDto): Promise<UserPageDto> {
    return this.admin.list(query.page, query.pageSize, query.search);
  }

  @Put('users/:id/roles')
  @ApiOkResponse({ type: AdminUserDto })
  setRoles(
    @CurrentUser() actor: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: SetRolesDto,
  ): Promise<AdminUserDto> {
    return this.admin.setRoles(actor, id, body.roles);
  }

  @Delete('users/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, with everything the user owned' })
  async deleteUser(
    @CurrentUser() actor: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.admin.delete(actor, id);
  }

  @Get('stats')
  @CostlyRoute()
  @ApiOkResponse({ type: SystemStatsDto })
  stats(): Promise<SystemStatsDto> {
    return this.admin.stats();
  }
}
