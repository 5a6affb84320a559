import { INestApplication } from '@nestjs/common';
import { AppConfig } from '@solar/config';
import { freePort } from '@solar/testing';
import { createIngestorApp } from '../../src/create-ingestor-app';
import { ApiOnLoopback, startApiOnLoopback } from './api-app';

/**
 * `startApiOnLoopback`, then the ingestor in this process with its embedded broker on a free
 * port. The test file must load aedes through `jest.mock('aedes', ...)` and `./native-aedes`, as
 * every such file here does.
 */
export interface IngestorWithApi extends ApiOnLoopback {
  ingestor: INestApplication;
  ingestorConfig: AppConfig;
  brokerUrl: string;
  /** Closes the ingestor now (once: `close` then leaves it be). */
  stopIngestor(): Promise<void>;
}

/** `env` adds to the test environment's settings; `ingestorEnv` to the ingestor's (a TLS listener). */
export async function startIngestorWithApi(
  options: { env?: Record<string, string>; ingestorEnv?: Record<string, string> } = {},
): Promise<IngestorWithApi> {
  const withApi = await startApiOnLoopback({ env: options.env });
  let ingestor: INestApplication | undefined;
  try {
    const brokerUrl = `mqtt://127.0.0.1:${await freePort()}`;
    const ingestorConfig = withApi.env.configWith({
      PORT: String(withApi.apiPort),
      EMBEDDED_BROKER: 'true',
      MQTT_URL: brokerUrl,
      ...options.ingestorEnv,
    });
    ingestor = await createIngestorApp(ingestorConfig);
    await ingestor.startAllMicroservices();
    const app = ingestor;
    let stopped: Promise<void> | undefined;
    const stopIngestor = () => (stopped ??= app.close());
    return {
      ...withApi,
      ingestor,
      ingestorConfig,
      brokerUrl,
      stopIngestor,
      close: async () => {
        await stopIngestor();
        await withApi.close();
      },
    };
  } catch (error) {
    await ingestor?.close();
    await withApi.close();
    throw error;
  }
}
