jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMqttSource, freePort, waitFor } from '@solar/testing';
import { IngestorWithApi, startIngestorWithApi } from './support/ingestor-harness';
import { deviceLogin, MqttClients } from './support/mqtt-devices';

/** A self-signed P-256 certificate for 127.0.0.1 and localhost, valid one day, in `dir`. */
function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** `MQTT_TLS_CERT`/`MQTT_TLS_KEY`: the embedded broker also takes devices over TLS, same rules. */
describe('the embedded broker’s TLS listener for devices', () => {
  let harness: IngestorWithApi;
  let tlsUrl: string;
  let plainUrl: string;
  let ca: Buffer;
  let certificateDir: string;
  const devices = new MqttClients();

  beforeAll(async () => {
    certificateDir = mkdtempSync(join(tmpdir(), 'mqtt-tls-'));
    const files = selfSignedCertificate(certificateDir);
    ca = readFileSync(files.cert);
    const tlsPort = await freePort();
    tlsUrl = `mqtts://127.0.0.1:${tlsPort}`;
    harness = await startIngestorWithApi({
      ingestorEnv: { MQTT_TLS_CERT: files.cert, MQTT_TLS_KEY: files.key, MQTT_TLS_PORT: String(tlsPort) },
    });
    plainUrl = harness.brokerUrl;
  });

  afterEach(async () => {
    await devices.endAll();
  });

  afterAll(async () => {
    await harness?.close();
    rmSync(certificateDir, { recursive: true, force: true });
  });

  const createSource = () => createMqttSource(harness.http, harness.cookie, 'TLS device');

  const storedRows = async (id: string) =>
    (
      await harness.db.query<{ solar_power: number }>(
        'SELECT solar_power FROM telemetry WHERE sun_source_id = $1',
        [id],
      )
    ).rows;

  it('stores what a device publishes over TLS, the certificate checked against its CA', async () => {
    const source = await createSource();
    const device = await devices.connect(tlsUrl, { ...deviceLogin(source), ca });
    await device.publishAsync(source.topic, JSON.stringify({ pvPower: 1234 }), { qos: 1 });
    await waitFor(async () => (await storedRows(source.id)).length === 1, 'the row');
    expect(await storedRows(source.id)).toEqual([{ solar_power: 1234 }]);
  });

  it('refuses a wrong key over TLS, as over plain MQTT', async () => {
    const source = await createSource();
    const wrongKey = `ak_${randomBytes(32).toString('hex')}`;
    await expect(devices.connect(tlsUrl, { ...deviceLogin(source, wrongKey), ca })).rejects.toThrow(
      /Not authorized/,
    );
    await expect(devices.connect(plainUrl, deviceLogin(source, wrongKey))).rejects.toThrow(/Not authorized/);
  });

  it('is a TLS port: a client that does not trust the certificate is refused at the handshake', async () => {
    const source = await createSource();
    await expect(devices.connect(tlsUrl, deviceLogin(source))).rejects.toThrow(/self-signed certificate/);
  });

  it('keeps the plain listener', async () => {
    const source = await createSource();
    const device = await devices.connect(plainUrl, deviceLogin(source));
    await device.publishAsync(source.topic, JSON.stringify({ pvPower: 99 }), { qos: 1 });
    await waitFor(async () => (await storedRows(source.id)).length === 1, 'the row');
    expect(await storedRows(source.id)).toEqual([{ solar_power: 99 }]);
  });
});
