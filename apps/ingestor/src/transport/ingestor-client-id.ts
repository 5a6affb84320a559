/** The base of the ingestor's client id, so the broker sees one privileged worker identity. */
export const INGESTOR_CLIENT_ID = 'solar-ingestor';

export const DEFAULT_TOPIC_PREFIX = 'solar';

/** What the client id is derived from (`AppConfig.mqtt`). */
export interface ClientIdSettings {
  /** `MQTT_CLIENT_ID`: taken as it is. */
  clientId?: string;
  sharedGroup?: string;
  topicPrefix?: string;
}

/**
 * The ingestor's MQTT client id: the broker keeps its session (subscriptions, unacknowledged and
 * queued messages) under it, so it must stay the same when the process restarts and differ
 * between replicas (a second connection under one id drops the first). `MQTT_CLIENT_ID` when
 * set; otherwise `solar-ingestor`, with the topic prefix unless it is the default (deployments
 * sharing one broker each keep their own session), and in a shared group with the host name,
 * which a container keeps across restarts. Details: docs/scaling.md.
 */
export function ingestorClientId(settings: ClientIdSettings, hostname: string): string {
  if (settings.clientId) return settings.clientId;
  const prefix = settings.topicPrefix ?? DEFAULT_TOPIC_PREFIX;
  const base = prefix === DEFAULT_TOPIC_PREFIX ? INGESTOR_CLIENT_ID : `${INGESTOR_CLIENT_ID}-${prefix}`;
  return settings.sharedGroup ? `${base}-${hostname}` : base;
}
