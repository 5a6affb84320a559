import { EventEmitter } from 'node:events';
import { bullQueueConnection, logRedisErrors } from './redis-connections';

describe('logRedisErrors', () => {
  const refused = () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' });

  function watched(intervalMs = 30_000) {
    const emitter = new EventEmitter();
    const logger = { warn: jest.fn(), log: jest.fn() };
    logRedisErrors(emitter, 'shared client', { intervalMs, logger });
    return { emitter, logger };
  }

  afterEach(() => jest.useRealTimers());

  it('logs the first error of an outage, not every retry, and its end', () => {
    const { emitter, logger } = watched();
    for (let i = 0; i < 13; i += 1) emitter.emit('error', refused());
    expect(logger.warn.mock.calls).toEqual([
      ['shared client: Redis error (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:6390)'],
    ]);
    emitter.emit('ready');
    expect(logger.log).toHaveBeenCalledTimes(1);
    emitter.emit('error', refused());
    expect(logger.warn).toHaveBeenCalledTimes(2);
  });

  it('logs again once per interval while the outage lasts, counting what it left out', () => {
    jest.useFakeTimers({ now: 0 });
    const { emitter, logger } = watched(1000);
    emitter.emit('error', refused());
    emitter.emit('error', refused());
    emitter.emit('error', refused());
    jest.setSystemTime(1000);
    emitter.emit('error', refused());
    expect(logger.warn.mock.calls[1]).toEqual([
      'shared client: Redis error (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:6390), 2 more errors since the last warning',
    ]);
  });

  it('never logs the credentials of a URL quoted in a message', () => {
    const { emitter, logger } = watched();
    emitter.emit('error', new Error('cannot reach redis://user:s3cret@cache:6379'));
    expect(logger.warn.mock.calls[0][0]).not.toContain('s3cret');
  });

  it('is a listener: an emitter with it never throws on an error', () => {
    const { emitter } = watched();
    expect(() => emitter.emit('error', refused())).not.toThrow();
  });
});

describe('bullQueueConnection', () => {
  it('gives BullMQ our Redis and keeps every queue key under our key prefix', () => {
    expect(bullQueueConnection({ redisUrl: 'redis://cache:6379/2', redisKeyPrefix: 'solar:' })).toEqual({
      connection: { url: 'redis://cache:6379/2' },
      prefix: 'solar:bull',
    });
  });
});
