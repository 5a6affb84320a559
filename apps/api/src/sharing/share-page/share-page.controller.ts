import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { Response } from 'express';
import { Public } from '@solar/auth';
import { sendBadge, sendPage } from './share-page.headers';
import { SharePageService } from './share-page.service';

const HTML = { 'text/html': { schema: { type: 'string' } } };
const SVG = { 'image/svg+xml': { schema: { type: 'string' } } };

/** The public page and badge of a shared source: outside `/api`, as a person or a README links to them. */
@ApiTags('sharing (public)')
@ApiTooManyRequestsResponse({ description: 'Too many requests from this address' })
@Public()
@UseGuards(ThrottlerGuard)
@Controller('share')
export class SharePageController {
  constructor(private readonly pages: SharePageService) {}

  @Get(':sunSourceId')
  @ApiOperation({ summary: "A shared source's public page: what its owner shares, as HTML without script" })
  @ApiOkResponse({ description: 'The page', content: HTML })
  @ApiNotFoundResponse({ description: 'One page for "not shared" and "no such source"', content: HTML })
  async page(@Param('sunSourceId') id: string, @Res() response: Response): Promise<void> {
    sendPage(response, await this.pages.page(id));
  }

  @Get(':sunSourceId/badge.svg')
  @ApiOperation({ summary: "A shared source's badge: today's energy, or offline" })
  @ApiOkResponse({ description: 'The badge', content: SVG })
  @ApiNotFoundResponse({
    description: 'One "not shared" badge for monitoring not shared and for no such source',
    content: SVG,
  })
  async badge(@Param('sunSourceId') id: string, @Res() response: Response): Promise<void> {
    sendBadge(response, await this.pages.badge(id));
  }
}
