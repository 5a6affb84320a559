import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DeviceDisconnector } from '@solar/domain';

/** How often the api looks for EMQX disconnects due for another attempt. */
export const EMQX_KICK_POLL_MS = 500;

/** Makes the retries of failed EMQX disconnects, whichever api process scheduled them. */
@Injectable()
export class EmqxKickRetries implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EmqxKickRetries.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly disconnector: DeviceDisconnector) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.disconnector
        .retryDueKicks()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'could not retry EMQX disconnects'))
        .finally(() => (this.running = undefined));
    }, EMQX_KICK_POLL_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
