import { mqttClientId, mqttTopic } from './credentials';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const FORM_B_USERNAME = new RegExp(`^src-(${UUID})$`);
const FORM_A_USERNAME = new RegExp(`^(${UUID})$`);

/** The source a device speaks for, and the MQTT identity it must use (topic forms A and B). */
export interface DeviceIdentity {
  sunSourceId: string;
  clientId: string;
}

/**
 * Form B (issued): username and client id `src-{sourceId}`. Form A: username `{sourceId}`, client
 * id `sunsource_{first 8 hex of the id}`. The client id is bound to the source so that one
 * device cannot take over another's MQTT session by borrowing its client id.
 */
export function deviceIdentity(username: string): DeviceIdentity | undefined {
  const formB = FORM_B_USERNAME.exec(username);
  if (formB) return { sunSourceId: formB[1], clientId: mqttClientId(formB[1]) };
  const formA = FORM_A_USERNAME.exec(username);
  if (formA) return { sunSourceId: formA[1], clientId: `sunsource_${formA[1].slice(0, 8)}` };
  return undefined;
}

/** The topics a source's device may publish to: form B, and form A. */
export function deviceTopics(topicPrefix: string, sunSourceId: string): string[] {
  return [mqttTopic(topicPrefix, sunSourceId), `sunsource/${sunSourceId}/data`];
}

/** The source id in a telemetry topic of either form, or undefined for any other topic. */
export function sourceIdOfTopic(topicPrefix: string, topic: string): string | undefined {
  const parts = topic.split('/');
  const id =
    parts.length === 4 && parts[0] === topicPrefix && parts[1] === 'sources' && parts[3] === 'data'
      ? parts[2]
      : parts.length === 3 && parts[0] === 'sunsource' && parts[2] === 'data'
        ? parts[1]
        : undefined;
  return id && new RegExp(`^${UUID}$`).test(id) ? id : undefined;
}
