import { ingestorClientId, INGESTOR_CLIENT_ID } from './ingestor-client-id';
import { matchesAnyFilter, telemetryTopicFilters, topicMatches } from './telemetry-topics';

const ID = '0b6f5c1e-8d0a-4c55-9a53-2f1f1d1f6a10';

describe('telemetryTopicFilters', () => {
  it('subscribes to form B under the prefix and to form A', () => {
    expect(telemetryTopicFilters({ topicPrefix: 'solar' })).toEqual([
      'solar/sources/+/data',
      'sunsource/+/data',
    ]);
  });

  it('makes both shared subscriptions when a group is set', () => {
    expect(telemetryTopicFilters({ topicPrefix: 'acme', sharedGroup: 'ingest' })).toEqual([
      '$share/ingest/acme/sources/+/data',
      '$share/ingest/sunsource/+/data',
    ]);
  });
});

describe('topicMatches', () => {
  it.each([
    ['solar/sources/+/data', `solar/sources/${ID}/data`, true],
    ['solar/sources/+/data', 'solar/sources/anything/data', true],
    ['solar/sources/+/data', `other/sources/${ID}/data`, false],
    ['solar/sources/+/data', `solar/sources/${ID}/data/extra`, false],
    ['solar/sources/+/data', `solar/sources/${ID}`, false],
    ['solar/sources/+/data', 'solar/sources//data', true],
    ['sunsource/+/data', `sunsource/${ID}/data`, true],
    ['sunsource/+/data', `sunsource/${ID}/status`, false],
    ['$share/g/solar/sources/+/data', `solar/sources/${ID}/data`, true],
    ['$share/g/solar/sources/+/data', `$share/g/solar/sources/${ID}/data`, false],
    ['$share/g/sunsource/+/data', `sunsource/${ID}/data`, true],
    ['$share/g/sunsource/+/data', 'other/topic', false],
    ['solar/#', `solar/sources/${ID}/data`, true],
    ['solar/#', 'solar', true],
    ['#', 'other/topic', true],
  ])('%s against %s: %s', (filter, topic, expected) => {
    expect(topicMatches(filter, topic)).toBe(expected);
  });

  it('takes a message on any of the filters, ignores the rest', () => {
    const filters = telemetryTopicFilters({ topicPrefix: 'solar', sharedGroup: 'g' });
    expect(matchesAnyFilter(filters, `solar/sources/${ID}/data`)).toBe(true);
    expect(matchesAnyFilter(filters, `sunsource/${ID}/data`)).toBe(true);
    expect(matchesAnyFilter(filters, 'other/topic')).toBe(false);
    expect(matchesAnyFilter(filters, `acme/sources/${ID}/data`)).toBe(false);
  });
});

describe('ingestorClientId', () => {
  it('is the fixed id without a shared group, with the prefix unless it is the default', () => {
    expect(ingestorClientId({}, 'host-a')).toBe(INGESTOR_CLIENT_ID);
    expect(ingestorClientId({ sharedGroup: '' }, 'host-a')).toBe('solar-ingestor');
    expect(ingestorClientId({ topicPrefix: 'solar' }, 'host-a')).toBe('solar-ingestor');
    expect(ingestorClientId({ topicPrefix: 'site-b' }, 'host-a')).toBe('solar-ingestor-site-b');
  });

  it('is one per host in a shared group, the same across restarts', () => {
    expect(ingestorClientId({ sharedGroup: 'ingest' }, 'host-a')).toBe('solar-ingestor-host-a');
    expect(ingestorClientId({ sharedGroup: 'ingest', topicPrefix: 'site-b' }, 'host-a')).toBe(
      'solar-ingestor-site-b-host-a',
    );
    expect(ingestorClientId({ sharedGroup: 'ingest' }, 'host-b')).not.toBe(
      ingestorClientId({ sharedGroup: 'ingest' }, 'host-a'),
    );
  });

  it('is MQTT_CLIENT_ID when set', () => {
    expect(ingestorClientId({ clientId: 'ingestor-0', sharedGroup: 'ingest' }, 'host-a')).toBe('ingestor-0');
    expect(ingestorClientId({ clientId: 'ingestor-0' }, 'host-a')).toBe('ingestor-0');
  });
});
