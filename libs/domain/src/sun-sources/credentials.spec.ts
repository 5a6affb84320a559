import {
  generateMqttApiKey,
  generateWebhookSecret,
  mqttClientId,
  mqttTopic,
  webhookUrl,
} from './credentials';

describe('source credentials', () => {
  it('mqttApiKey is ak_ and 64 lower-case hex characters, never repeated', () => {
    const keys = Array.from({ length: 100 }, generateMqttApiKey);
    for (const key of keys) expect(key).toMatch(/^ak_[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(100);
  });

  it('webhookSecret is wh_ and the base64 of 32 bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^wh_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(3), 'base64')).toHaveLength(32);
  });

  it('derives topic, client id and webhook URL from the source id', () => {
    const id = '6f1c2a4e-8b7d-4c3e-9a1f-2b3c4d5e6f70';
    expect(mqttTopic('solar', id)).toBe(`solar/sources/${id}/data`);
    expect(mqttClientId(id)).toBe(`src-${id}`);
    expect(webhookUrl('https://x.example', id)).toBe(`https://x.example/api/webhook/sunsource/${id}`);
  });
});
