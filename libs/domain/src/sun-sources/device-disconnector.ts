import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { REDIS } from '@solar/redis';
import { deviceIdentity } from './device-identity';
import { EmqxKicks } from './emqx-kicks';

/** Channel on which the embedded broker hears which sources' devices to drop. */
export const disconnectChannel = (config: Pick<AppConfig, 'redisKeyPrefix'>) =>
  `${config.redisKeyPrefix}mqtt:disconnect`;

const EMQX_TIMEOUT_MS = 5000;

/**
 * Drops the live MQTT clients of a source whose key changed, or that was deleted or switched
 * off: through EMQX's REST API when it is configured, and through Redis for the embedded broker.
 * The drop is not what revocation rests on (the broker's checks and the write refuse such a
 * source's messages anyway), but a client left connected keeps publishing until EMQX's
 * authorization cache expires: a failed EMQX disconnect is retried with backoff (`EmqxKicks`,
 * kept in Redis) and shown in the api's health detail.
 */
@Injectable()
export class DeviceDisconnector {
  private readonly logger = new Logger(DeviceDisconnector.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly kicks: EmqxKicks,
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

  /** The first attempt, before the change is answered; a failure is left to `retryDueKicks`. */
  private async kickFromEmqx(sunSourceId: string): Promise<void> {
    if (!this.config.emqx.apiUrl) return;
    try {
      await this.kickOnce(sunSourceId);
      await this.kicks.done(sunSourceId);
    } catch (error) {
      this.logger.warn(
        { err: error, sunSourceId, attempt: 1 },
        'could not disconnect devices through EMQX: retrying with backoff',
      );
      await this.kicks.firstAttemptFailed(sunSourceId, Date.now()).catch((failure: unknown) => {
        this.logger.error(
          { err: failure, sunSourceId },
          'could not schedule the retry of an EMQX disconnect',
        );
      });
    }
  }

  /** Makes the attempts that are due, from any process's failures (the api calls this periodically). */
  async retryDueKicks(): Promise<void> {
    if (!this.config.emqx.apiUrl) return;
    for (const { sunSourceId, attempt } of await this.kicks.claimDue(Date.now())) {
      try {
        await this.kickOnce(sunSourceId);
        await this.kicks.done(sunSourceId);
        this.logger.log({ sunSourceId, attempt }, 'devices disconnected through EMQX after retrying');
      } catch (error) {
        const next = await this.kicks.attemptFailed(sunSourceId, attempt, Date.now());
        if (next === 'given up') {
          this.logger.error(
            { err: error, sunSourceId, attempt },
            'could not disconnect devices through EMQX: given up',
          );
        } else {
          this.logger.warn({ err: error, sunSourceId, attempt }, 'could not disconnect devices through EMQX');
        }
      }
    }
  }

  /** Every client logged in as the source (either username form), by EMQX's client listing. */
  private async kickOnce(sunSourceId: string): Promise<void> {
    const { apiUrl, apiKey, apiSecret } = this.config.emqx;
    if (!apiUrl) return;
    const headers = {
      authorization: `Basic ${Buffer.from(`${apiKey ?? ''}:${apiSecret ?? ''}`).toString('base64')}`,
    };
    const call = (path: string, method = 'GET') =>
      fetch(`${apiUrl}${path}`, { method, headers, signal: AbortSignal.timeout(EMQX_TIMEOUT_MS) });
    for (const username of [`src-${sunSourceId}`, sunSourceId]) {
      const response = await call(`/clients?username=${encodeURIComponent(username)}&limit=100`);
      if (!response.ok) throw new Error(`EMQX answered ${response.status} listing clients`);
      const { data } = (await response.json()) as {
        data?: Array<{ clientid?: string; username?: string }>;
      };
      for (const client of data ?? []) {
        if (client.clientid && deviceIdentity(client.username ?? '')?.sunSourceId === sunSourceId) {
          const kicked = await call(`/clients/${encodeURIComponent(client.clientid)}`, 'DELETE');
          // 404: the client left meanwhile, which is what was wanted.
          if (!kicked.ok && kicked.status !== 404) {
            throw new Error(`EMQX answered ${kicked.status} disconnecting a client`);
          }
        }
      }
    }
  }
}
