import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiProduces,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { Response } from 'express';
import { Public } from '@solar/auth';
import { sendBadge, sendPage } from './share-page.headers';
import { SharePageService } from './share-page.service';

/** The public page and badge of a shared source: outside `/api`, as a person or a README links to them. */
@ApiTags('sharing (public)')
@ApiTooManyRequestsResponse({ description: 'Too many requests from this address' })
@Public()
@UseGuards(ThrottlerGuard)
@Controller('share')
export class SharePageController {
  constructor(private readonly pages: SharePageService) {}

  @Get(':sunSourceId')
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'What the owner shares, as an HTML page without script' })
  @ApiNotFoundResponse({ description: 'An HTML page: not shared, or no such source alike' })
  async page(@Param('sunSourceId') id: string, @Res() response: Response): Promise<void> {
    sendPage(response, await this.pages.page(id));
  }

  @Get(':sunSourceId/badge.svg')
  @ApiProduces('image/svg+xml')
  @ApiOkResponse({ description: 'A badge: today’s energy, or "offline"' })
  @ApiNotFoundResponse({ description: 'A "not shared" badge: monitoring not shared, or no such source' })
  async badge(@Param('sunSourceId') id: string, @Res() response: Response): Promise<void> {
    sendBadge(response, await this.pages.badge(id));
  }
}
