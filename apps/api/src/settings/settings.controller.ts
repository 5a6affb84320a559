import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiSessionAuth, AuthenticatedUser, CurrentUser } from '@solar/auth';
import { BadRequestError } from '@solar/core';
import { SettingsService } from '@solar/domain';
import { SettingDto } from './dto/setting.dto';

const settingTypePipe = new ParseIntPipe({
  exceptionFactory: () => new BadRequestError('settingType must be 0, 1 or 2'),
});

@ApiTags('settings')
@ApiSessionAuth()
@ApiParam({ name: 'settingType', description: '0 DarkMode, 1 AutoRunPredictions, 2 AutoUpdateWeatherData' })
@ApiBadRequestResponse({ description: 'Unknown setting type or value' })
@Controller('api/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get(':settingType')
  @ApiOperation({ summary: 'Read one of your settings' })
  @ApiOkResponse({ type: SettingDto, description: 'A setting never written reads as "0"' })
  async get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('settingType', settingTypePipe) settingType: number,
  ): Promise<SettingDto> {
    return { value: await this.settings.get(user.id, settingType) };
  }

  @Post(':settingType')
  @ApiOperation({ summary: 'Write one of your settings' })
  @HttpCode(200)
  @ApiOkResponse({ type: SettingDto })
  async set(
    @CurrentUser() user: AuthenticatedUser,
    @Param('settingType', settingTypePipe) settingType: number,
    @Body() body: SettingDto,
  ): Promise<SettingDto> {
    return { value: await this.settings.set(user.id, settingType, body.value) };
  }
}
