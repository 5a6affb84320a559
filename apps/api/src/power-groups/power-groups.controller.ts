import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  Put,
  Res,
} from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiSessionAuth, AuthenticatedUser, CurrentUser } from '@solar/auth';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { PowerGroupsService } from '@solar/domain';
import { CreatePowerGroupDto, PowerGroupDto, UpdatePowerGroupDto } from './dto/power-group.dto';

@ApiTags('powergroups')
@ApiSessionAuth()
@ApiNotFoundResponse({ description: 'No such group among yours' })
@Controller('api/powergroups')
export class PowerGroupsController {
  constructor(
    private readonly powerGroups: PowerGroupsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List your Power Groups' })
  @ApiOkResponse({ type: PowerGroupDto, isArray: true })
  list(@CurrentUser() user: AuthenticatedUser): Promise<PowerGroupDto[]> {
    return this.powerGroups.list(user.id);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one of your Power Groups' })
  @ApiOkResponse({ type: PowerGroupDto })
  get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<PowerGroupDto> {
    return this.powerGroups.get(user.id, id);
  }

  @Post()
  @ApiOperation({ summary: 'Create a Power Group' })
  @ApiCreatedResponse({ type: PowerGroupDto, description: 'With a Location header' })
  async create(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: CreatePowerGroupDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PowerGroupDto> {
    const created = await this.powerGroups.create(user.id, {
      name: body.name,
      description: body.description ?? null,
      logoUrl: body.logoUrl ?? null,
    });
    response.location(`${this.config.publicBaseUrl}/api/powergroups/${created.id}`);
    return created;
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a Power Group' })
  @ApiOkResponse({ type: PowerGroupDto })
  update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdatePowerGroupDto,
  ): Promise<PowerGroupDto> {
    return this.powerGroups.update(user.id, id, body);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a Power Group (its sources stay, ungrouped)' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted; its sources stay, ungrouped' })
  async delete(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.powerGroups.delete(user.id, id);
  }
}
