import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { secretsEqual } from '@solar/core';
import { SourceCredentials } from '../sun-sources/source-credentials';
import { SourceAccessCache } from '../sun-sources/source-access-cache';
import { deviceIdentity, deviceTopics } from '../sun-sources/device-identity';
import { ingestorCredentials } from './ingestor-credentials';

export type DeviceAuthentication = 'superuser' | 'device' | 'deny';

// Checked against when there is no such source, so a missing source costs the same time.
const DECOY = {
  id: '00000000-0000-0000-0000-000000000000',
  mqttApiKeyEncrypted: 'decoy',
  mqttApiKeyDigest: Buffer.alloc(32),
};

/**
 * The broker's questions: may this client connect, and may it publish there? Both are asked of
 * the source as the announced cache holds it (forgotten in every process when the source
 * changes), so each answer reflects whether it is active and an MQTT source. Answers never reveal
 * whether a source exists: every refusal is the same.
 */
@Injectable()
export class DeviceAuthService {
  constructor(
    private readonly sourceAccess: SourceAccessCache,
    private readonly credentials: SourceCredentials,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async authenticate(clientId: string, username: string, password: string): Promise<DeviceAuthentication> {
    const ingestor = ingestorCredentials(this.config);
    if (username === ingestor.username)
      return secretsEqual(password, ingestor.password) ? 'superuser' : 'deny';

    const identity = deviceIdentity(username);
    const source = identity ? await this.sourceAccess.admitted(identity.sunSourceId, 'MQTT') : null;
    const keyMatches = this.credentials.mqttApiKeyMatches(source ?? DECOY, password);
    return identity && source && keyMatches && clientId === identity.clientId ? 'device' : 'deny';
  }

  /**
   * Devices publish to their own source's topic, nothing else, and only while that source is
   * active and an MQTT source: a client whose disconnect failed or lagged is refused here on its
   * next uncached publish. The ingestor may do anything.
   */
  async authorize(clientId: string, username: string, topic: string, action: string): Promise<boolean> {
    if (username === ingestorCredentials(this.config).username) return true;
    const identity = deviceIdentity(username);
    if (
      identity === undefined ||
      clientId !== identity.clientId ||
      action !== 'publish' ||
      !deviceTopics(this.config.mqtt.topicPrefix, identity.sunSourceId).includes(topic)
    )
      return false;
    return (await this.sourceAccess.admitted(identity.sunSourceId, 'MQTT')) !== null;
  }
}
