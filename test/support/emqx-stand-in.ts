import { Aedes, AuthenticateError } from 'aedes';
import { createServer, Server } from 'node:net';

/** One HTTP authentication or authorization source of EMQX's configuration. */
export interface EmqxHttpSource {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Field → template with EMQX placeholders (`${clientid}`, `${username}`, ...). */
  body: Record<string, string>;
}

export interface EmqxHttpAnswer {
  status: number;
  body: unknown;
}

/** What EMQX fills in for each placeholder of a request. */
export interface EmqxPlaceholders {
  clientid: string;
  username: string;
  password?: string;
  topic?: string;
  action?: 'publish' | 'subscribe';
}

/** NOT_AUTHORIZED in a CONNACK (MQTT 3.1.1). */
const NOT_AUTHORIZED = 5;

/**
 * Sends the request EMQX sends for an HTTP source: the body template with its placeholders
 * filled in, as JSON when the content type says so and as a form otherwise. A placeholder the
 * request cannot fill throws.
 */
export async function askHttpSource(
  source: EmqxHttpSource,
  placeholders: EmqxPlaceholders,
): Promise<EmqxHttpAnswer> {
  const fields = Object.fromEntries(
    Object.entries(source.body).map(([field, template]) => [
      field,
      template.replace(/\$\{(\w+)\}/g, (_, name: string) => {
        const value = placeholders[name as keyof EmqxPlaceholders];
        if (value === undefined) throw new Error(`EMQX placeholder \${${name}} has no value here`);
        return value;
      }),
    ]),
  );
  const contentType = Object.entries(source.headers).find(
    ([name]) => name.toLowerCase() === 'content-type',
  )?.[1];
  const response = await fetch(source.url, {
    method: source.method.toUpperCase(),
    headers: source.headers,
    body: contentType?.startsWith('application/json')
      ? JSON.stringify(fields)
      : new URLSearchParams(fields).toString(),
    signal: AbortSignal.timeout(5000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body };
}

function allows(answer: EmqxHttpAnswer): boolean {
  return answer.status === 200 && (answer.body as { result?: unknown }).result === 'allow';
}

/**
 * An MQTT broker on loopback that decides as EMQX does with one HTTP authenticator and one HTTP
 * authorization source: a CONNECT is let in only if the authentication source answers 200 with
 * `result: allow` (`is_superuser` taken from it), and a non-superuser's SUBSCRIBE or PUBLISH only
 * if the authorization source allows it (no match denies). It records who connected and what
 * they subscribed to.
 */
export class EmqxStandIn {
  readonly connections: Array<{ clientId: string; username: string; superuser: boolean }> = [];
  readonly subscriptions: Array<{ clientId: string; topic: string }> = [];
  private readonly superusers = new Set<string>();
  private broker: Aedes | undefined;
  private server: Server | undefined;

  constructor(
    private readonly authentication: EmqxHttpSource,
    private readonly authorization: EmqxHttpSource,
  ) {}

  async start(port: number): Promise<void> {
    const broker = await Aedes.createBroker({
      authenticate: (client, username, password, done) => {
        const credentials = {
          clientid: client.id,
          username: username ?? '',
          password: password?.toString() ?? '',
        };
        askHttpSource(this.authentication, credentials).then(
          (answer) => {
            if (!allows(answer)) return done(refused(), false);
            const superuser = (answer.body as { is_superuser?: unknown }).is_superuser === true;
            if (superuser) this.superusers.add(client.id);
            this.connections.push({ clientId: client.id, username: credentials.username, superuser });
            done(null, true);
          },
          () => done(refused(), false),
        );
      },
      authorizeSubscribe: (client, subscription, done) => {
        this.authorize(client.id, subscription.topic, 'subscribe').then(
          (allowed) => {
            if (allowed) this.subscriptions.push({ clientId: client.id, topic: subscription.topic });
            done(allowed ? null : new Error('not authorized'), allowed ? subscription : null);
          },
          (error: Error) => done(error, null),
        );
      },
      authorizePublish: (client, packet, done) => {
        this.authorize(client?.id ?? '', packet.topic, 'publish').then(
          (allowed) => done(allowed ? null : new Error('not authorized')),
          (error: Error) => done(error),
        );
      },
    });
    broker.on('clientDisconnect', (client) => this.superusers.delete(client.id));
    const server = createServer(broker.handle);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.broker = broker;
    this.server = server;
  }

  async stop(): Promise<void> {
    const { broker, server } = this;
    if (!broker || !server) return;
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async authorize(
    clientId: string,
    topic: string,
    action: 'publish' | 'subscribe',
  ): Promise<boolean> {
    if (this.superusers.has(clientId)) return true;
    const username =
      this.connections.findLast((connection) => connection.clientId === clientId)?.username ?? '';
    return allows(await askHttpSource(this.authorization, { clientid: clientId, username, topic, action }));
  }
}

function refused(): AuthenticateError {
  const error = new Error('not authorized') as AuthenticateError;
  error.returnCode = NOT_AUTHORIZED;
  return error;
}
