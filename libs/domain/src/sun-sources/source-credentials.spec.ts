import { AppConfig } from '@solar/config';
import { matchesSecretDigest, SecretBox } from '@solar/core';
import { MAX_KEPT_DIGESTS, SourceCredentials } from './source-credentials';

describe('SourceCredentials digests', () => {
  const box = new SecretBox({ secretsKey: Buffer.alloc(32, 7) });
  const credentials = new SourceCredentials(box, {} as AppConfig);
  const webhookSource = (id: string, secret: string) => ({
    id,
    webhookSecretEncrypted: credentials.sealWebhookSecret(id, secret),
  });

  afterEach(() => jest.restoreAllMocks());

  it('are of the opened secret, and the secret is opened once per sealed value', () => {
    const open = jest.spyOn(box, 'open');
    const source = webhookSource('source-a', 'whsec_first');
    const digest = credentials.webhookSecretDigestOf(source)!;
    expect(matchesSecretDigest('whsec_first', digest)).toBe(true);
    expect(matchesSecretDigest('whsec_other', digest)).toBe(false);
    expect(credentials.webhookSecretDigestOf({ ...source })).toBe(digest);
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('follow a rotation: the new sealed value is opened, the old digest no longer answers', () => {
    const before = webhookSource('source-b', 'whsec_old');
    expect(matchesSecretDigest('whsec_old', credentials.webhookSecretDigestOf(before)!)).toBe(true);
    const after = webhookSource('source-b', 'whsec_new');
    const digest = credentials.webhookSecretDigestOf(after)!;
    expect(matchesSecretDigest('whsec_new', digest)).toBe(true);
    expect(matchesSecretDigest('whsec_old', digest)).toBe(false);
  });

  it('keep a sealed value bound to its source and purpose', () => {
    const source = webhookSource('source-c', 'whsec_c');
    expect(() => credentials.webhookSecretDigestOf({ ...source, id: 'source-d' })).toThrow();
    expect(() =>
      credentials.mqttApiKeyDigestOf({ id: 'source-c', mqttApiKeyEncrypted: source.webhookSecretEncrypted }),
    ).toThrow();
  });

  it('are none for a source without that credential', () => {
    expect(credentials.webhookSecretDigestOf({ id: 'source-e', webhookSecretEncrypted: null })).toBeNull();
    expect(credentials.mqttApiKeyDigestOf({ id: 'source-e', mqttApiKeyEncrypted: null })).toBeNull();
  });

  it('are kept for the newest sources only, past the limit', () => {
    const own = new SourceCredentials(box, {} as AppConfig);
    const first = { id: 'source-0', mqttApiKeyEncrypted: own.sealMqttApiKey('source-0', 'ak_0') };
    own.mqttApiKeyDigestOf(first);
    const sealed = own.sealMqttApiKey('source-n', 'ak_n');
    // The same sealed value under distinct ids would not open: stub the opening for the filler.
    const open = jest.spyOn(box, 'open').mockReturnValue('ak_n');
    for (let i = 1; i < MAX_KEPT_DIGESTS; i++)
      own.mqttApiKeyDigestOf({ id: `filler-${i}`, mqttApiKeyEncrypted: sealed });
    expect(open).toHaveBeenCalledTimes(MAX_KEPT_DIGESTS - 1);
    own.mqttApiKeyDigestOf(first);
    expect(open).toHaveBeenCalledTimes(MAX_KEPT_DIGESTS - 1);
    own.mqttApiKeyDigestOf({ id: 'filler-last', mqttApiKeyEncrypted: sealed });
    own.mqttApiKeyDigestOf(first);
    expect(open).toHaveBeenCalledTimes(MAX_KEPT_DIGESTS + 1);
  });
});
