import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiSessionAuth, AuthenticatedUser, CostlyRoute, CurrentUser } from '@solar/auth';
import { WeatherService } from '@solar/domain';
import { WeatherErrorDto, WeatherRecordDto } from './dto/weather-record.dto';

@ApiTags('weather')
@ApiSessionAuth()
@ApiBadRequestResponse({ type: WeatherErrorDto, description: 'Source needs latitude and longitude' })
@ApiNotFoundResponse({ type: WeatherErrorDto, description: 'No such source among yours' })
@ApiServiceUnavailableResponse({
  type: WeatherErrorDto,
  description: 'The weather provider is unreachable, too slow or answered garbage; stored data is kept',
})
@Controller('api/weather')
export class WeatherController {
  constructor(private readonly weather: WeatherService) {}

  @Get(':sunSourceId')
  @ApiOperation({ summary: 'Weather forecast at a source for the next 8 days' })
  @ApiOkResponse({
    type: WeatherRecordDto,
    isArray: true,
    description: 'The next 8 days from today at the source, ascending; fetched first if none are stored',
  })
  forecast(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<WeatherRecordDto[]> {
    return this.weather.forecast(user.id, sunSourceId);
  }

  @Post(':sunSourceId/refresh')
  @ApiOperation({ summary: "Fetch a source's weather forecast afresh" })
  @CostlyRoute()
  @HttpCode(200)
  @ApiOkResponse({ type: WeatherRecordDto, isArray: true, description: 'The next 8 days, freshly fetched' })
  refresh(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<WeatherRecordDto[]> {
    return this.weather.refresh(user.id, sunSourceId);
  }
}
