import Redis from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';
import { createRedisPrefix, TEST_REDIS_URL } from '@solar/testing';
import { inOneWrite, RedisScript } from './redis-script';

describe('RedisScript and inOneWrite, against a real Redis', () => {
  const { prefix, cleanup } = createRedisPrefix();
  const client = new Redis(TEST_REDIS_URL, { keyPrefix: prefix });
  const raw = new Redis(TEST_REDIS_URL);

  afterAll(async () => {
    await cleanup();
    await Promise.all([client.quit(), raw.quit()]);
  });

  // A text no other test sends, so the server has never been given it.
  const unseenScript = (body: string) => `-- ${randomUUID()}\n${body}`;
  const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

  it('prefixes the keys as the client does, passes the arguments, answers the reply', async () => {
    const script = new RedisScript(client, "return redis.call('INCRBY', KEYS[1], ARGV[1])");
    const key = randomUUID();

    expect(await script.call([key], [5])).toBe(5);
    expect(await script.call([key], ['2'])).toBe(7);
    expect(await raw.get(`${prefix}${key}`)).toBe('7');
  });

  it('sends the text to a server that does not hold the script, which then does', async () => {
    const lua = unseenScript("return redis.call('SET', KEYS[1], ARGV[1])");
    const script = new RedisScript(client, lua);
    const key = randomUUID();
    expect(await raw.script('EXISTS', sha1(lua))).toEqual([0]);

    expect(await script.call([key], ['first'])).toBe('OK');

    expect(await raw.script('EXISTS', sha1(lua))).toEqual([1]);
    expect(await script.call([key], ['second'])).toBe('OK');
    expect(await raw.get(`${prefix}${key}`)).toBe('second');
  });

  it("rejects with the script's own error", async () => {
    const script = new RedisScript(client, unseenScript("return redis.error_reply('NOPE refused')"));

    await expect(script.call([randomUUID()], [])).rejects.toThrow('NOPE refused');
  });

  it('writes the commands given inside inOneWrite to the socket in one write', async () => {
    const script = new RedisScript(client, "return redis.call('INCR', KEYS[1])");
    const key = randomUUID();
    await script.call([key], []); // connected and the script loaded
    // Writable's own hooks: one `_writev` of every chunk when corked, one `_write` per chunk not.
    const socket = client.stream;
    const writev = jest.spyOn(socket, '_writev');
    const write = jest.spyOn(socket, '_write');
    try {
      const replies: Array<Promise<unknown>> = [];
      inOneWrite(client, () => {
        for (let i = 0; i < 20; i += 1) replies.push(script.call([key], []));
      });

      expect(await Promise.all(replies)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
      expect(write).not.toHaveBeenCalled();
      expect(writev).toHaveBeenCalledTimes(1);
      expect(writev.mock.calls[0][0]).toHaveLength(20);
    } finally {
      writev.mockRestore();
      write.mockRestore();
    }
  });

  it('leaves commands given while disconnected to the offline queue', async () => {
    const offline = new Redis(TEST_REDIS_URL, { keyPrefix: prefix, lazyConnect: true });
    const script = new RedisScript(offline, "return redis.call('INCR', KEYS[1])");
    const key = randomUUID();
    try {
      const replies: Array<Promise<unknown>> = [];
      inOneWrite(offline, () => {
        for (let i = 0; i < 3; i += 1) replies.push(script.call([key], []));
      });

      expect(await Promise.all(replies)).toEqual([1, 2, 3]);
    } finally {
      await offline.quit();
    }
  });
});
