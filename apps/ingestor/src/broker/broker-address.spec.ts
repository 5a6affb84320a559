import { brokerListenAddress } from './broker-address';

describe('brokerListenAddress', () => {
  it.each([
    ['mqtt://127.0.0.1:1883', { host: '127.0.0.1', port: 1883 }],
    ['mqtt://localhost:18830', { host: 'localhost', port: 18830 }],
    ['tcp://0.0.0.0:2883', { host: '0.0.0.0', port: 2883 }],
    ['mqtt://broker.internal', { host: 'broker.internal', port: 1883 }],
    ['mqtt://[::1]:1884', { host: '::1', port: 1884 }],
  ])('%s listens on %o', (url, expected) => {
    expect(brokerListenAddress(url)).toEqual(expected);
  });

  it.each(['mqtts://127.0.0.1:8883', 'ws://127.0.0.1:8083', 'wss://127.0.0.1:8084'])('refuses %s', (url) => {
    expect(() => brokerListenAddress(url)).toThrow(/plain MQTT over TCP/);
  });
});
