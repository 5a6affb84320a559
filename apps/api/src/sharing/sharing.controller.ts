import { Body, Controller, Get, Param, ParseUUIDPipe, Put } from '@nestjs/common';
import { ApiCookieAuth, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '@solar/auth';
import { SharingService } from '@solar/domain';
import { SharingConfigurationDto, UpdateSharingDto } from './dto/sharing.dto';

@ApiTags('sharing')
@ApiCookieAuth()
@ApiNotFoundResponse({ description: 'No such source among yours' })
@Controller('api/sharing')
export class SharingController {
  constructor(private readonly sharing: SharingService) {}

  @Get(':sunSourceId')
  @ApiOkResponse({ type: SharingConfigurationDto, description: 'Everything false until set' })
  get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
  ): Promise<SharingConfigurationDto> {
    return this.sharing.get(user.id, id);
  }

  @Put(':sunSourceId')
  @ApiOkResponse({ type: SharingConfigurationDto })
  update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
    @Body() body: UpdateSharingDto,
  ): Promise<SharingConfigurationDto> {
    return this.sharing.update(user.id, id, body);
  }
}
