import { ConnectionType, SunSourceEntity } from './sun-source.entity';

/** How a device reaches the service; the unused channel's fields are null. */
export interface ConnectionDetails {
  mqttBrokerHost: string | null;
  mqttBrokerPort: number | null;
  mqttClientId: string | null;
  mqttApiKey: string | null;
  mqttTopic: string | null;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

/** The array as its owner installed it, degrees: tilt from horizontal, azimuth clockwise from north. */
export interface ArrayOrientation {
  tilt: number;
  azimuth: number;
}

/** SunSourceDto: a Sun Source as its owner sees it, with its connection details. */
export interface SunSourceView {
  id: string;
  name: string;
  description: string | null;
  iconUrl: string | null;
  powerGroupId: string | null;
  powerGroupName: string | null;
  connectionType: ConnectionType;
  latitude: number | null;
  longitude: number | null;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  installedCapacityWatts: number | null;
  /** Only when the owner gave it: sources without one answer exactly as they did before it existed. */
  orientation?: ArrayOrientation;
  currency: string;
  systemCost: number | null;
  maintenanceCostPerYear: number | null;
  installationDate: string | null;
  connectionDetails: ConnectionDetails | null;
}

export function toSunSourceView(
  source: SunSourceEntity,
  connectionDetails: ConnectionDetails | null,
): SunSourceView {
  return {
    id: source.id,
    name: source.name,
    description: source.description,
    iconUrl: source.iconUrl,
    powerGroupId: source.powerGroupId,
    powerGroupName: source.powerGroup?.name ?? null,
    connectionType: source.connectionType,
    latitude: source.latitude,
    longitude: source.longitude,
    isActive: source.isActive,
    createdAt: source.createdAt.toISOString(),
    updatedAt: source.updatedAt.toISOString(),
    installedCapacityWatts: source.installedCapacityWatts,
    ...(source.arrayTilt !== null && source.arrayAzimuth !== null
      ? { orientation: { tilt: source.arrayTilt, azimuth: source.arrayAzimuth } }
      : {}),
    currency: source.currency,
    systemCost: source.systemCost,
    maintenanceCostPerYear: source.maintenanceCostPerYear,
    installationDate: source.installationDate?.toISOString() ?? null,
    connectionDetails,
  };
}
