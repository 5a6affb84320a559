import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { Clock } from '@solar/core';
import { BadRequestError, NotFoundError } from '@solar/core';
import { DeviceDisconnector } from './device-disconnector';
import { PowerGroupRepository } from '../power-groups/power-group.repository';
import { generateMqttApiKey, generateWebhookSecret, webhookUrl } from './credentials';
import { SourceAccessCache, SUN_SOURCE_NOT_FOUND } from './source-access-cache';
import { SourceCredentials } from './source-credentials';
import { ArrayOrientation, SunSourceView, toSunSourceView } from './sun-source-view';
import { ConnectionType, SunSourceEntity } from './sun-source.entity';
import { ScheduledSource, SunSourceFields, SunSourceRepository } from './sun-source.repository';

export interface NewSunSource {
  name: string;
  description?: string | null;
  iconUrl?: string | null;
  powerGroupId?: string | null;
  connectionType: ConnectionType;
  latitude?: number | null;
  longitude?: number | null;
  webhookSecret?: string | null;
  installedCapacityWatts?: number | null;
  orientation?: ArrayOrientation | null;
  currency?: string | null;
  initialKwhPrice?: number | null;
  systemCost?: number | null;
  maintenanceCostPerYear?: number | null;
  installationDate?: Date | null;
}

/** Absent (`undefined`) leaves a field as it is; `null` clears a nullable one. */
export interface SunSourceChanges {
  name?: string;
  description?: string | null;
  iconUrl?: string | null;
  powerGroupId?: string | null;
  isActive?: boolean;
  latitude?: number | null;
  longitude?: number | null;
  regenerateMqttApiKey?: boolean;
  installedCapacityWatts?: number | null;
  orientation?: ArrayOrientation | null;
  currency?: string;
  systemCost?: number | null;
  maintenanceCostPerYear?: number | null;
  installationDate?: Date | null;
}

/** Out-of-range coordinates are stored as null, not rejected. */
export function storedCoordinate(value: number | null | undefined, limit: 90 | 180): number | null {
  return value === null || value === undefined || Math.abs(value) > limit ? null : value;
}

/** The stored columns of an orientation: both angles, or neither. */
function orientationFields(orientation: ArrayOrientation | null | undefined) {
  return { arrayTilt: orientation?.tilt ?? null, arrayAzimuth: orientation?.azimuth ?? null };
}

/** Sun Sources, always through their owner. */
@Injectable()
export class SunSourcesService {
  constructor(
    private readonly sources: SunSourceRepository,
    private readonly groups: PowerGroupRepository,
    private readonly credentials: SourceCredentials,
    private readonly clock: Clock,
    private readonly devices: DeviceDisconnector,
    private readonly sourceAccess: SourceAccessCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(ownerId: string, powerGroupId?: string): Promise<SunSourceView[]> {
    return (await this.sources.listOwned(ownerId, powerGroupId)).map((source) =>
      toSunSourceView(source, null),
    );
  }

  /** Any owner's source, without its connection details, for work done on the owner's behalf (jobs, operators' tools). */
  async findAny(id: string): Promise<SunSourceView | null> {
    const source = await this.sources.findById(id);
    return source ? toSunSourceView(source, null) : null;
  }

  /** Every source of every user who turned the on/off setting `settingType` on, in a stable order. */
  scheduledSources(settingType: number): Promise<ScheduledSource[]> {
    return this.sources.sourcesOfUsersWithEnabled(settingType);
  }

  async get(ownerId: string, id: string, includeConnectionDetails = false): Promise<SunSourceView> {
    const source = await this.findOwned(ownerId, id);
    return toSunSourceView(
      source,
      includeConnectionDetails ? this.credentials.connectionDetails(source) : null,
    );
  }

  /** Returns the new source with its connection details: the moment its owner needs them. */
  async create(ownerId: string, input: NewSunSource): Promise<SunSourceView> {
    await this.assertOwnGroup(ownerId, input.powerGroupId);
    const id = randomUUID();
    const mqtt = input.connectionType === 'MQTT';
    const fields: SunSourceFields = {
      name: input.name,
      description: input.description ?? null,
      iconUrl: input.iconUrl ?? null,
      powerGroupId: input.powerGroupId ?? null,
      connectionType: input.connectionType,
      latitude: storedCoordinate(input.latitude, 90),
      longitude: storedCoordinate(input.longitude, 180),
      isActive: true,
      installedCapacityWatts: input.installedCapacityWatts ?? null,
      ...orientationFields(input.orientation),
      currency: input.currency ?? 'EUR',
      systemCost: input.systemCost ?? null,
      maintenanceCostPerYear: input.maintenanceCostPerYear ?? null,
      installationDate: input.installationDate ?? null,
      // One credential, the connection type's; the other's columns stay empty.
      ...(mqtt
        ? {
            ...this.credentials.mqttApiKeyFields(id, generateMqttApiKey()),
            webhookSecretEncrypted: null,
            webhookSecretDigest: null,
          }
        : {
            mqttApiKeyEncrypted: null,
            mqttApiKeyDigest: null,
            ...this.credentials.webhookSecretFields(id, input.webhookSecret ?? generateWebhookSecret()),
          }),
    };
    const price = input.initialKwhPrice ?? 0;
    await this.sources.insert(
      ownerId,
      id,
      fields,
      price > 0 ? { pricePerKwh: price, effectiveFrom: this.clock.now() } : undefined,
    );
    return this.get(ownerId, id, true);
  }

  /** A regenerated MQTT key comes back in the connection details of the answer. */
  async update(ownerId: string, id: string, changes: SunSourceChanges): Promise<SunSourceView> {
    const source = await this.findOwned(ownerId, id);
    if (changes.powerGroupId) await this.assertOwnGroup(ownerId, changes.powerGroupId);
    const { regenerateMqttApiKey, latitude, longitude, orientation, ...plain } = changes;
    const fields: Partial<SunSourceFields> = Object.fromEntries(
      Object.entries(plain).filter(([, value]) => value !== undefined),
    );
    if (latitude !== undefined) fields.latitude = storedCoordinate(latitude, 90);
    if (longitude !== undefined) fields.longitude = storedCoordinate(longitude, 180);
    if (orientation !== undefined) Object.assign(fields, orientationFields(orientation));
    if (regenerateMqttApiKey) {
      this.assertConnection(source, 'MQTT');
      Object.assign(fields, this.credentials.mqttApiKeyFields(id, generateMqttApiKey()));
    }
    if (!(await this.sources.update(ownerId, id, fields))) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    if (regenerateMqttApiKey || (source.isActive && changes.isActive === false)) await this.revokeDevices(id);
    else await this.sourceAccess.forget(id);
    return this.get(ownerId, id, regenerateMqttApiKey === true);
  }

  /** Its credentials die with it: live devices are dropped and cannot reconnect. */
  async delete(ownerId: string, id: string): Promise<void> {
    if (!(await this.sources.delete(ownerId, id))) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    await this.revokeDevices(id);
  }

  /**
   * After the source's credentials changed or it is gone: every process forgets what it
   * remembered of them, and its devices' live connections are dropped.
   */
  async revokeDevices(id: string): Promise<void> {
    await this.sourceAccess.forget(id);
    await this.devices.disconnect(id);
  }

  async webhookUrl(ownerId: string, id: string): Promise<string> {
    const source = await this.findOwned(ownerId, id);
    this.assertConnection(source, 'Webhook');
    return webhookUrl(this.config.publicBaseUrl, source.id);
  }

  /** The previous secret stops working at once: only the new one is stored. */
  async rotateWebhookSecret(ownerId: string, id: string): Promise<string> {
    const source = await this.findOwned(ownerId, id);
    this.assertConnection(source, 'Webhook');
    const secret = generateWebhookSecret();
    await this.sources.update(ownerId, id, this.credentials.webhookSecretFields(id, secret));
    await this.sourceAccess.forget(id);
    return secret;
  }

  async regenerateMqttApiKey(ownerId: string, id: string): Promise<string> {
    const source = await this.findOwned(ownerId, id);
    this.assertConnection(source, 'MQTT');
    const key = generateMqttApiKey();
    await this.sources.update(ownerId, id, this.credentials.mqttApiKeyFields(id, key));
    await this.revokeDevices(id);
    return key;
  }

  private async findOwned(ownerId: string, id: string): Promise<SunSourceEntity> {
    const source = await this.sources.findOwned(ownerId, id);
    if (!source) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    return source;
  }

  private async assertOwnGroup(ownerId: string, powerGroupId: string | null | undefined): Promise<void> {
    if (powerGroupId && !(await this.groups.existsOwned(ownerId, powerGroupId))) {
      throw new BadRequestError('Power group not found');
    }
  }

  private assertConnection(source: SunSourceEntity, expected: ConnectionType): void {
    if (source.connectionType !== expected) {
      throw new BadRequestError(`Sun source is not connected through ${expected}`);
    }
  }
}
