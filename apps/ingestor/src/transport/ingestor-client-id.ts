/** Fixed, so the broker sees one privileged worker identity (SPEC.md §1). */
export const INGESTOR_CLIENT_ID = 'solar-ingestor';

/**
 * The ingestor's MQTT client id. A broker keeps one session per client id and drops the older
 * connection when a second one logs in with it, so replicas splitting a shared subscription
 * each need their own: host name and process id make it unique per process.
 */
export function ingestorClientId(sharedGroup: string | undefined, hostname: string, pid: number): string {
  return sharedGroup ? `${INGESTOR_CLIENT_ID}-${hostname}-${pid}` : INGESTOR_CLIENT_ID;
}
