import { INestApplication, Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { RequestHandler, Response } from 'express';
import { AppConfig } from '@solar/config';
import { STORED_IMAGE_PATH, uploadBasePath } from '@solar/domain';

const notFound = (response: Response) => void response.status(404).json({ message: 'Not found' });

/**
 * Serves UPLOAD_DIR read-only at the path of UPLOAD_BASE_URL, without a session: the images are
 * icons and logos on public pages. Only names ImageStore gives are served, never a listing.
 */
export function serveUploads(app: INestApplication, config: AppConfig): void {
  const logger = new Logger('Uploads');
  const basePath = uploadBasePath(config.uploadBaseUrl);
  const files = express.static(config.uploadDir, {
    index: false,
    dotfiles: 'deny',
    redirect: false,
    fallthrough: true,
    setHeaders: (response) => {
      // User content: never sniffed into HTML or script, nothing it could load or run.
      response.setHeader('X-Content-Type-Options', 'nosniff');
      response.setHeader('Content-Security-Policy', "default-src 'none'");
      // Helmet's same-origin default would keep a front end on another origin from showing them.
      response.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    },
  });

  const serve: RequestHandler = (request, response, next) => {
    // At the root, everything else is the api's.
    if (!STORED_IMAGE_PATH.test(request.path)) return basePath ? notFound(response) : next();
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return void response.status(405).json({ message: 'Method not allowed' });
    }
    // serve-static passes on a missing file without an error, and a failing disk with one.
    files(request, response, (error?: unknown) => {
      if (!error) return notFound(response);
      logger.error({ err: error, requestId: request.id }, 'serving an upload failed');
      response.status(500).json({ message: 'Internal server error', requestId: request.id });
    });
  };
  (app as NestExpressApplication).use(basePath || '/', serve);
}
