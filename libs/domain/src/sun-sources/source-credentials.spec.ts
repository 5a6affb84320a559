import { AppConfig } from '@solar/config';
import { SecretBox } from '@solar/core';
import { MAX_KEPT_DIGESTS, SourceCredentials } from './source-credentials';

describe('SourceCredentials checks', () => {
  const box = new SecretBox({ secretsKey: Buffer.alloc(32, 7) });
  const credentials = new SourceCredentials(box, {} as AppConfig);
  const webhookSource = (id: string, secret: string) => ({
    id,
    ...credentials.webhookSecretFields(id, secret),
  });
  const mqttSource = (id: string, key: string) => ({ id, ...credentials.mqttApiKeyFields(id, key) });
  /** As stored before digests were: the sealed credential alone. */
  const legacy = <T extends object>(source: T) =>
    ({ ...source, webhookSecretDigest: null, mqttApiKeyDigest: null }) as T;

  afterEach(() => jest.restoreAllMocks());

  it('take a new credential by its digest, without opening it', () => {
    const open = jest.spyOn(box, 'open');
    const hook = webhookSource('source-a', 'whsec_first');
    const device = mqttSource('source-a', 'ak_first');
    expect(credentials.webhookSecretMatches(hook, 'whsec_first')).toBe(true);
    expect(credentials.webhookSecretMatches(hook, 'whsec_other')).toBe(false);
    expect(credentials.mqttApiKeyMatches(device, 'ak_first')).toBe(true);
    expect(credentials.mqttApiKeyMatches(device, 'whsec_first')).toBe(false);
    expect(open).not.toHaveBeenCalled();
    // The owner still reads them back.
    expect(credentials.webhookSecretOf(hook)).toBe('whsec_first');
    expect(credentials.mqttApiKeyOf(device)).toBe('ak_first');
  });

  it('open a credential stored without a digest once per sealed value', () => {
    const open = jest.spyOn(box, 'open');
    const hook = legacy(webhookSource('source-b', 'whsec_old'));
    expect(credentials.webhookSecretMatches(hook, 'whsec_old')).toBe(true);
    expect(credentials.webhookSecretMatches({ ...hook }, 'whsec_wrong')).toBe(false);
    expect(credentials.webhookSecretMatches({ ...hook }, 'whsec_old')).toBe(true);
    expect(open).toHaveBeenCalledTimes(1);
    // Renewed: a new sealed value, the old secret no longer matches.
    const renewed = legacy(webhookSource('source-b', 'whsec_new'));
    expect(credentials.webhookSecretMatches(renewed, 'whsec_new')).toBe(true);
    expect(credentials.webhookSecretMatches(renewed, 'whsec_old')).toBe(false);
  });

  it('check a credential a device has proven by a hash, not an HMAC', () => {
    const own = new SourceCredentials(box, {} as AppConfig);
    const hook = webhookSource('source-p', 'whsec_p');
    const renewed = webhookSource('source-p', 'whsec_q');
    const hmac = jest.spyOn(box, 'digest');
    expect(own.webhookSecretMatches(hook, 'whsec_wrong')).toBe(false);
    expect(own.webhookSecretMatches(hook, 'whsec_p')).toBe(true);
    expect(hmac).toHaveBeenCalledTimes(2);
    // Proven: the next checks of that sealed value, right or wrong, cost no HMAC.
    expect(own.webhookSecretMatches({ ...hook }, 'whsec_p')).toBe(true);
    expect(own.webhookSecretMatches(hook, 'whsec_wrong')).toBe(false);
    expect(own.webhookSecretMatches(hook, 'whsec_p_')).toBe(false);
    expect(hmac).toHaveBeenCalledTimes(2);
    // Renewed: the new sealed value is checked against its digest, and the old secret fails.
    expect(own.webhookSecretMatches(renewed, 'whsec_p')).toBe(false);
    expect(own.webhookSecretMatches(renewed, 'whsec_q')).toBe(true);
    expect(hmac).toHaveBeenCalledTimes(4);
    // One entry a source: the renewed credential's replaced the old one's.
    expect(own.webhookSecretMatches(renewed, 'whsec_q')).toBe(true);
    expect(own.webhookSecretMatches(hook, 'whsec_p')).toBe(true);
    expect(hmac).toHaveBeenCalledTimes(5);
  });

  it('bind a credential to its source and purpose', () => {
    const hook = webhookSource('source-c', 'whsec_c');
    expect(credentials.webhookSecretMatches({ ...hook, id: 'source-d' }, 'whsec_c')).toBe(false);
    const device = {
      id: 'source-c',
      mqttApiKeyEncrypted: 'sealed',
      mqttApiKeyDigest: hook.webhookSecretDigest,
    };
    expect(credentials.mqttApiKeyMatches(device, 'whsec_c')).toBe(false);
    // Sealed for another source: it does not open.
    expect(() => credentials.webhookSecretMatches(legacy({ ...hook, id: 'source-d' }), 'whsec_c')).toThrow();
  });

  it('match nothing for a source without that credential', () => {
    const none = {
      id: 'source-e',
      webhookSecretEncrypted: null,
      webhookSecretDigest: null,
      mqttApiKeyEncrypted: null,
      mqttApiKeyDigest: null,
    };
    expect(credentials.webhookSecretMatches(none, '')).toBe(false);
    expect(credentials.mqttApiKeyMatches(none, '')).toBe(false);
  });

  it('keep opened digests for the newest credentials only, past the limit', () => {
    const own = new SourceCredentials(box, {} as AppConfig);
    const first = legacy(mqttSource('source-0', 'ak_0'));
    own.mqttApiKeyMatches(first, 'ak_0');
    const sealed = own.mqttApiKeyFields('source-n', 'ak_n').mqttApiKeyEncrypted;
    // The same sealed value under distinct ids would not open: stub the opening for the filler.
    const open = jest.spyOn(box, 'open').mockReturnValue('ak_n');
    const filler = (id: string) => ({ id, mqttApiKeyEncrypted: sealed, mqttApiKeyDigest: null });
    for (let i = 1; i < MAX_KEPT_DIGESTS; i++) own.mqttApiKeyMatches(filler(`filler-${i}`), 'ak_n');
    expect(open).toHaveBeenCalledTimes(MAX_KEPT_DIGESTS - 1);
    own.mqttApiKeyMatches(first, 'ak_0');
    expect(open).toHaveBeenCalledTimes(MAX_KEPT_DIGESTS - 1);
    own.mqttApiKeyMatches(filler('filler-last'), 'ak_n');
    own.mqttApiKeyMatches(first, 'ak_0');
    expect(open).toHaveBeenCalledTimes(MAX_KEPT_DIGESTS + 1);
  });
});
