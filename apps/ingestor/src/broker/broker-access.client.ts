import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';

/** EMQX's `request_timeout` in docker/emqx/emqx.conf. */
export const BROKER_CALLBACK_TIMEOUT_MS = 5000;

export type ClientAuthentication = 'superuser' | 'device' | 'deny';

interface Verdict {
  result?: unknown;
  is_superuser?: unknown;
}

/**
 * The api's broker callbacks (SPEC.md §4.14), called exactly as EMQX calls them. The embedded
 * broker is for a single-machine install, where the api runs beside the ingestor: it is reached
 * on loopback at the api's `PORT`. No answer within 5 s, or any error, is a refusal.
 */
@Injectable()
export class BrokerAccessClient {
  private readonly logger = new Logger(BrokerAccessClient.name);
  private readonly baseUrl: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.baseUrl = `http://127.0.0.1:${config.port}/api/internal/mqtt`;
  }

  async authenticate(clientId: string, username: string, password: string): Promise<ClientAuthentication> {
    const verdict = await this.ask('auth', { clientId, username, password });
    if (verdict?.result !== 'allow') return 'deny';
    return verdict.is_superuser === true ? 'superuser' : 'device';
  }

  async mayPublish(clientId: string, username: string, topic: string): Promise<boolean> {
    const verdict = await this.ask('acl', { clientId, username, topic, action: 'publish' });
    return verdict?.result === 'allow';
  }

  private async ask(path: 'auth' | 'acl', body: Record<string, string>): Promise<Verdict | undefined> {
    try {
      const response = await fetch(`${this.baseUrl}/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-api-key': this.config.internalApiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(BROKER_CALLBACK_TIMEOUT_MS),
      });
      if (!response.ok) {
        this.logger.warn({ status: response.status }, `broker ${path} callback refused by the api`);
        return undefined;
      }
      return (await response.json()) as Verdict;
    } catch (error) {
      this.logger.warn({ err: error }, `broker ${path} callback to the api failed`);
      return undefined;
    }
  }
}
