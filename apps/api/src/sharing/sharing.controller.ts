import { Body, Controller, Get, Param, ParseUUIDPipe, Put } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiSessionAuth, AuthenticatedUser, CurrentUser } from '@solar/auth';
import { SharingService } from '@solar/domain';
import { SharingConfigurationDto, UpdateSharingDto } from './dto/sharing.dto';

@ApiTags('sharing')
@ApiSessionAuth()
@ApiNotFoundResponse({ description: 'No such source among yours' })
@Controller('api/sharing')
export class SharingController {
  constructor(private readonly sharing: SharingService) {}

  @Get(':sunSourceId')
  @ApiOperation({ summary: "A source's sharing configuration" })
  @ApiOkResponse({ type: SharingConfigurationDto, description: 'Everything false until set' })
  get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
  ): Promise<SharingConfigurationDto> {
    return this.sharing.get(user.id, id);
  }

  @Put(':sunSourceId')
  @ApiOperation({ summary: 'Change what a source shares publicly' })
  @ApiOkResponse({ type: SharingConfigurationDto })
  update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
    @Body() body: UpdateSharingDto,
  ): Promise<SharingConfigurationDto> {
    return this.sharing.update(user.id, id, body);
  }
}
