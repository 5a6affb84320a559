import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Put, Query } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AdminPlus, ApiSessionAuth, AuthenticatedUser, CostlyRoute, CurrentUser } from '@solar/auth';
import { UsersAdminService } from '@solar/domain';
import { AdminUserDto, SystemStatsDto, UserPageDto } from './dto/admin-user.dto';
import { ListUsersQueryDto } from './dto/list-users-query.dto';
import { SetRolesDto } from './dto/set-roles.dto';

@ApiTags('admin')
@ApiSessionAuth()
@ApiForbiddenResponse({ description: 'The caller is neither Admin nor Overseer' })
@AdminPlus()
@Controller('api/admin')
export class AdminController {
  constructor(private readonly admin: UsersAdminService) {}

  @Get('users')
  @ApiOperation({ summary: 'List users, a page at a time, optionally searched by e-mail or name' })
  @ApiOkResponse({ type: UserPageDto })
  listUsers(@Query() query: ListUsersQueryDto): Promise<UserPageDto> {
    return this.admin.list(query.page, query.pageSize, query.search);
  }

  @Put('users/:id/roles')
  @ApiOperation({ summary: "Set a user's roles" })
  @ApiOkResponse({ type: AdminUserDto })
  setRoles(
    @CurrentUser() actor: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: SetRolesDto,
  ): Promise<AdminUserDto> {
    return this.admin.setRoles(actor, id, body.roles);
  }

  @Delete('users/:id')
  @ApiOperation({ summary: 'Delete a user and everything the user owns' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, with everything the user owned' })
  async deleteUser(
    @CurrentUser() actor: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.admin.delete(actor, id);
  }

  @Get('stats')
  @ApiOperation({ summary: 'System-wide counts' })
  @CostlyRoute()
  @ApiOkResponse({ type: SystemStatsDto })
  stats(): Promise<SystemStatsDto> {
    return this.admin.stats();
  }
}
