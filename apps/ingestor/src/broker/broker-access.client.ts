import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Agent, request as httpRequest } from 'node:http';
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
export class BrokerAccessClient implements OnApplicationShutdown {
  private readonly logger = new Logger(BrokerAccessClient.name);
  // node:http with kept-alive connections rather than fetch: a fleet (re)connecting makes
  // thousands of these calls within seconds, and fetch's were 6 % of the ingestor's CPU in
  // bench:ingest (1,000 devices), a new connection each.
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 32 });

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async authenticate(clientId: string, username: string, password: string): Promise<ClientAuthentication> {
    const verdict = await this.ask('auth', { clientId, username, password });
    if (verdict?.result !== 'allow') return 'deny';
    return verdict.is_superuser === true ? 'superuser' : 'device';
  }

  async mayPublish(clientId: string, username: string, topic: string): Promise<boolean> {
    const verdict = await this.ask('acl', { clientId, username, topic, action: 'publish' });
    return verdict?.result === 'allow';
  }

  onApplicationShutdown(): void {
    this.agent.destroy();
  }

  private ask(path: 'auth' | 'acl', body: Record<string, string>): Promise<Verdict | undefined> {
    const payload = JSON.stringify(body);
    return new Promise((resolve) => {
      const refuse = (message: string, detail: object) => {
        this.logger.warn(detail, `broker ${path} callback ${message}`);
        resolve(undefined);
      };
      const request = httpRequest(
        {
          agent: this.agent,
          host: '127.0.0.1',
          port: this.config.port,
          method: 'POST',
          path: `/api/internal/mqtt/${path}`,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            'x-internal-api-key': this.config.internalApiKey,
          },
          timeout: BROKER_CALLBACK_TIMEOUT_MS,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => refuse('to the api failed', { err: error }));
          response.on('end', () => {
            if (response.statusCode !== 200)
              return refuse('refused by the api', { status: response.statusCode });
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Verdict);
            } catch (error) {
              refuse('answered with malformed JSON', { err: error });
            }
          });
        },
      );
      request.on('timeout', () =>
        request.destroy(new Error(`no answer within ${BROKER_CALLBACK_TIMEOUT_MS} ms`)),
      );
      request.on('error', (error) => refuse('to the api failed', { err: error }));
      request.end(payload);
    });
  }
}
