import { ShortLivedCache } from './short-lived-cache';

describe('ShortLivedCache', () => {
  let now: number;
  let cache: ShortLivedCache<string>;
  let produced: number;
  const produce = () => Promise.resolve(`value ${++produced}`);

  beforeEach(() => {
    now = 0;
    produced = 0;
    cache = new ShortLivedCache<string>(30_000, 3, () => now);
  });

  it('reuses a value until it expires', async () => {
    await expect(cache.get('a', 'v', produce)).resolves.toBe('value 1');
    now = 29_999;
    await expect(cache.get('a', 'v', produce)).resolves.toBe('value 1');
    now = 30_000;
    await expect(cache.get('a', 'v', produce)).resolves.toBe('value 2');
  });

  it('produces anew when the version changes', async () => {
    await expect(cache.get('a', 'v1', produce)).resolves.toBe('value 1');
    await expect(cache.get('a', 'v2', produce)).resolves.toBe('value 2');
    await expect(cache.get('a', 'v1', produce)).resolves.toBe('value 3');
  });

  it('keeps keys apart', async () => {
    await expect(cache.get('a', 'v', produce)).resolves.toBe('value 1');
    await expect(cache.get('b', 'v', produce)).resolves.toBe('value 2');
    await expect(cache.get('a', 'v', produce)).resolves.toBe('value 1');
  });

  it('lets callers arriving during a production share it', async () => {
    let finish!: (value: string) => void;
    const slow = jest.fn(() => new Promise<string>((resolve) => (finish = resolve)));
    const first = cache.get('a', 'v', slow);
    const second = cache.get('a', 'v', slow);
    finish('shared');
    await expect(Promise.all([first, second])).resolves.toEqual(['shared', 'shared']);
    expect(slow).toHaveBeenCalledTimes(1);
  });

  it('forgets a failed production', async () => {
    await expect(cache.get('a', 'v', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(cache.size).toBe(0);
    await expect(cache.get('a', 'v', produce)).resolves.toBe('value 1');
  });

  it('keeps at most its number of entries, dropping the oldest', async () => {
    for (const key of ['a', 'b', 'c', 'd']) await cache.get(key, 'v', produce);
    expect(cache.size).toBe(3);
    await expect(cache.get('b', 'v', produce)).resolves.toBe('value 2');
    await expect(cache.get('a', 'v', produce)).resolves.toBe('value 5');
  });
});
