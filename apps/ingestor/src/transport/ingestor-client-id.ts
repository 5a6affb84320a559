/** Fixed, so the broker sees one privileged worker identity. */
export const INGESTOR_CLIENT_ID = 'solar-ingestor';

export const DEFAULT_TOPIC_PREFIX = 'solar';

/**
 * The ingestor's MQTT client id. A broker keeps one session per client id and drops the older
 * connection when a second one logs in with it, so replicas splitting a shared subscription
 * each need their own: host name and process id make it unique per process. A lone ingestor
 * keeps its session across restarts under a fixed id; deployments sharing one broker under
 * different topic prefixes each keep their own (the prefix is part of the id unless it is the
 * default).
 */
export function ingestorClientId(
  sharedGroup: string | undefined,
  hostname: string,
  pid: number,
  topicPrefix = DEFAULT_TOPIC_PREFIX,
): string {
  if (sharedGroup) return `${INGESTOR_CLIENT_ID}-${hostname}-${pid}`;
  return topicPrefix === DEFAULT_TOPIC_PREFIX ? INGESTOR_CLIENT_ID : `${INGESTOR_CLIENT_ID}-${topicPrefix}`;
}
