/** Where the ingestor listens: topic form B under the configured prefix, and form A (`sunsource/{id}/data`). */
export interface TelemetrySubscription {
  topicPrefix: string;
  /** `MQTT_SHARED_GROUP`: replicas in one group split the stream (`$share/{group}/...`). */
  sharedGroup?: string;
}

const SHARED_PREFIX = '$share/';

/** The subscription filters, each as a shared subscription when a group is configured. */
export function telemetryTopicFilters({ topicPrefix, sharedGroup }: TelemetrySubscription): string[] {
  const filters = [`${topicPrefix}/sources/+/data`, 'sunsource/+/data'];
  return sharedGroup ? filters.map((filter) => `${SHARED_PREFIX}${sharedGroup}/${filter}`) : filters;
}

/**
 * Whether a topic matches an MQTT filter (`+` one level, `#` the rest). A shared subscription's
 * messages carry the plain topic, so `$share/{group}/` is taken off the filter first.
 */
export function topicMatches(filter: string, topic: string): boolean {
  const plain = filter.startsWith(SHARED_PREFIX) ? filter.split('/').slice(2).join('/') : filter;
  const levels = plain.split('/');
  const topicLevels = topic.split('/');
  for (let i = 0; i < levels.length; i += 1) {
    if (levels[i] === '#') return i === levels.length - 1;
    if (i >= topicLevels.length) return false;
    if (levels[i] !== '+' && levels[i] !== topicLevels[i]) return false;
  }
  return levels.length === topicLevels.length;
}

export function matchesAnyFilter(filters: readonly string[], topic: string): boolean {
  return filters.some((filter) => topicMatches(filter, topic));
}
