import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiSessionAuth, AuthenticatedUser, CurrentUser } from '@solar/auth';
import { KwhPricesService, RoiService } from '@solar/domain';
import { CreateKwhPriceDto, KwhPriceHistoryDto, UpdateKwhPriceDto } from './dto/kwh-price.dto';
import { RoiSummaryDto } from './dto/roi-summary.dto';

@ApiTags('roi')
@ApiSessionAuth()
@ApiNotFoundResponse({ description: 'No such source, or price, among yours' })
@Controller('api/roi')
export class RoiController {
  constructor(
    private readonly prices: KwhPricesService,
    private readonly roi: RoiService,
  ) {}

  @Get(':sunSourceId/prices')
  @ApiOperation({ summary: "List a source's kWh prices" })
  @ApiOkResponse({ type: KwhPriceHistoryDto, isArray: true, description: 'Ordered by effectiveFrom' })
  listPrices(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<KwhPriceHistoryDto[]> {
    return this.prices.list(user.id, sunSourceId);
  }

  @Post(':sunSourceId/prices')
  @ApiOperation({ summary: 'Add a kWh price to a source' })
  @HttpCode(200)
  @ApiOkResponse({ type: KwhPriceHistoryDto, description: 'The created price (200, not 201)' })
  @ApiBadRequestResponse({ description: 'Validation errors' })
  createPrice(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
    @Body() body: CreateKwhPriceDto,
  ): Promise<KwhPriceHistoryDto> {
    return this.prices.create(user.id, sunSourceId, body);
  }

  @Put('prices/:priceId')
  @ApiOperation({ summary: 'Update a kWh price' })
  @ApiOkResponse({ type: KwhPriceHistoryDto, description: 'The updated price' })
  @ApiBadRequestResponse({ description: 'Validation errors' })
  updatePrice(
    @CurrentUser() user: AuthenticatedUser,
    @Param('priceId', ParseUUIDPipe) priceId: string,
    @Body() body: UpdateKwhPriceDto,
  ): Promise<KwhPriceHistoryDto> {
    return this.prices.update(user.id, priceId, body);
  }

  @Delete('prices/:priceId')
  @ApiOperation({ summary: 'Delete a kWh price' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted' })
  async deletePrice(
    @CurrentUser() user: AuthenticatedUser,
    @Param('priceId', ParseUUIDPipe) priceId: string,
  ): Promise<void> {
    await this.prices.delete(user.id, priceId);
  }

  @Get(':sunSourceId/calculate')
  @ApiOperation({ summary: 'Return on investment of a source' })
  @ApiOkResponse({ type: RoiSummaryDto })
  calculate(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<RoiSummaryDto> {
    return this.roi.calculate(user.id, sunSourceId);
  }
}
