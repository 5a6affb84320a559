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
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
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
import { SunSourcesService } from '@solar/domain';
import { CreateSunSourceDto } from './dto/create-sun-source.dto';
import { GetSunSourceQueryDto, ListSunSourcesQueryDto } from './dto/sun-source-queries.dto';
import { MqttApiKeyDto, SunSourceDto, WebhookSecretDto, WebhookUrlDto } from './dto/sun-source.dto';
import { UpdateSunSourceDto } from './dto/update-sun-source.dto';

@ApiTags('sunsources')
@ApiSessionAuth()
@ApiNotFoundResponse({ description: 'No such source among yours' })
@Controller('api/sunsources')
export class SunSourcesController {
  constructor(
    private readonly sunSources: SunSourcesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List your Sun Sources' })
  @ApiOkResponse({ type: SunSourceDto, isArray: true })
  list(
    @CurrentUser() user: AuthenticatedUser,
    @Query() query: ListSunSourcesQueryDto,
  ): Promise<SunSourceDto[]> {
    return this.sunSources.list(user.id, query.powerGroupId);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one of your Sun Sources' })
  @ApiOkResponse({ type: SunSourceDto })
  get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: GetSunSourceQueryDto,
  ): Promise<SunSourceDto> {
    return this.sunSources.get(user.id, id, query.includeConnectionDetails);
  }

  @Post()
  @ApiOperation({ summary: 'Create a Sun Source' })
  @ApiCreatedResponse({
    type: SunSourceDto,
    description: 'With its connection details and a Location header',
  })
  @ApiBadRequestResponse({ description: 'Validation errors, or a powerGroupId that is not yours' })
  async create(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: CreateSunSourceDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SunSourceDto> {
    const created = await this.sunSources.create(user.id, body);
    response.location(`${this.config.publicBaseUrl}/api/sunsources/${created.id}`);
    return created;
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a Sun Source' })
  @ApiOkResponse({ type: SunSourceDto })
  update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdateSunSourceDto,
  ): Promise<SunSourceDto> {
    return this.sunSources.update(user.id, id, body);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a Sun Source and everything stored for it' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted with its prices, telemetry, forecasts and weather' })
  async delete(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.sunSources.delete(user.id, id);
  }

  @Get(':id/webhook-url')
  @ApiOperation({ summary: 'The URL a Webhook source posts its telemetry to' })
  @ApiOkResponse({ type: WebhookUrlDto })
  async webhookUrl(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<WebhookUrlDto> {
    return { webhookUrl: await this.sunSources.webhookUrl(user.id, id) };
  }

  @Post(':id/rotate-secret')
  @ApiOperation({ summary: "Replace a Webhook source's secret" })
  @HttpCode(200)
  @ApiOkResponse({ type: WebhookSecretDto, description: 'The previous secret stops working at once' })
  async rotateSecret(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<WebhookSecretDto> {
    return { webhookSecret: await this.sunSources.rotateWebhookSecret(user.id, id) };
  }

  @Post(':id/regenerate-mqtt-key')
  @ApiOperation({ summary: "Replace an MQTT source's key and disconnect its devices" })
  @HttpCode(200)
  @ApiOkResponse({ type: MqttApiKeyDto, description: 'The previous key is invalid at once' })
  async regenerateMqttKey(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<MqttApiKeyDto> {
    return { mqttApiKey: await this.sunSources.regenerateMqttApiKey(user.id, id) };
  }
}
