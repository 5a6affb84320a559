import { createHash } from 'node:crypto';
import Redis, { Command } from 'ioredis';

/**
 * A Lua script sent as EVALSHA, each call a command of its own written at once, outside
 * ioredis' auto-pipelining: its per-turn `Pipeline` objects reach the old generation (a script
 * called 5 times per millisecond promoted 60-68 MB in 9 s through the auto-pipeline, 17 MB this
 * way; docs/performance.md). Calls made inside `inOneWrite` still leave in one write.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(
    private readonly redis: Redis,
    private readonly lua: string,
  ) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  /**
   * Runs the script on `keys` (prefixed as the client's own commands are) and `args`. A server
   * that does not hold it (restarted, flushed, failed over) answers NOSCRIPT; the call is then
   * made again with the script's text, which loads it.
   */
  async call(keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await this.send('evalsha', this.sha, keys, args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.send('eval', this.lua, keys, args);
    }
  }

  private send(
    name: 'evalsha' | 'eval',
    script: string,
    keys: readonly string[],
    args: ReadonlyArray<string | number>,
  ): Promise<unknown> {
    const command = new Command(name, [script, keys.length, ...keys, ...args], {
      keyPrefix: this.redis.options.keyPrefix,
      replyEncoding: 'utf8',
    });
    return this.redis.sendCommand(command) as Promise<unknown>;
  }
}

/**
 * Runs `send`, and the commands it gives `redis` leave in one write to the socket rather than
 * one each (a write costs a system call, ~10-20 µs on a small VM). This holds the connection's
 * socket corked while `send` runs: ioredis writes each command to `redis.stream` synchronously
 * in `sendCommand`, which a version upgrade must keep true (the property is marked internal).
 * While the client is not connected its commands wait in its offline queue, and nothing is corked.
 */
export function inOneWrite(redis: Redis, send: () => void): void {
  const socket = redis.status === 'ready' ? (redis.stream as Redis['stream'] | undefined) : undefined;
  socket?.cork();
  try {
    send();
  } finally {
    socket?.uncork();
  }
}
