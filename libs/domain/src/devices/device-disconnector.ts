import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { REDIS } from '@solar/redis';
import { deviceIdentity } from './device-identity';

/** Channel on which the embedded broker hears which sources' devices to drop. */
export const disconnectChannel = (config: Pick<AppConfig, 'redisKeyPrefix'>) =>
  `${config.redisKeyPrefix}mqtt:disconnect`;

const EMQX_TIMEOUT_MS = 5000;

/**
 * Drops the live MQTT clients of a source whose key changed, or that was deleted or switched
 * off: through EMQX's REST API when it is configured, and through Redis for the embedded broker.
 * Best effort: the new key is already the only valid one, so a client that slipped through
 * cannot reconnect.
 */
@Injectable()
export class DeviceDisconnector {
  private readonly logger = new Logger(DeviceDisconnector.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async disconnect(sunSourceId: string): Promise<void> {
    await Promise.all([this.notifyEmbeddedBroker(sunSourceId), this.kickFromEmqx(sunSourceId)]);
  }

  private async notifyEmbeddedBroker(sunSourceId: string): Promise<void> {
    try {
      await this.redis.publish(disconnectChannel(this.config), JSON.stringify({ sunSourceId }));
    } catch (error) {
      this.logger.warn({ err: error, sunSourceId }, 'could not announce a device disconnect');
    }
  }

  /** Every client logged in as the source (either username form), by EMQX's client listing. */
  private async kickFromEmqx(sunSourceId: string): Promise<void> {
    const { apiUrl, apiKey, apiSecret } = this.config.emqx;
    if (!apiUrl) return;
    const headers = {
      authorization: `Basic ${Buffer.from(`${apiKey ?? ''}:${apiSecret ?? ''}`).toString('base64')}`,
    };
    const call = (path: string, method = 'GET') =>
      fetch(`${apiUrl}${path}`, { method, headers, signal: AbortSignal.timeout(EMQX_TIMEOUT_MS) });
    try {
      for (const username of [`src-${sunSourceId}`, sunSourceId]) {
        const response = await call(`/clients?username=${encodeURIComponent(username)}&limit=100`);
        if (!response.ok) throw new Error(`EMQX answered ${response.status} listing clients`);
        const { data } = (await response.json()) as {
          data?: Array<{ clientid?: string; username?: string }>;
        };
        for (const client of data ?? []) {
          if (client.clientid && deviceIdentity(client.username ?? '')?.sunSourceId === sunSourceId) {
            await call(`/clients/${encodeURIComponent(client.clientid)}`, 'DELETE');
          }
        }
      }
    } catch (error) {
      this.logger.warn({ err: error, sunSourceId }, 'could not disconnect devices through EMQX');
    }
  }
}
