import { InFlightLimit } from './in-flight-limit';

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('InFlightLimit', () => {
  it('grants slots up to the cap, then makes takers wait in order', async () => {
    const limit = new InFlightLimit(2);
    await limit.acquire();
    await limit.acquire();
    expect(limit.full).toBe(true);
    const third = limit.acquire();
    const fourth = limit.acquire();
    expect(await settled(third)).toBe(false);
    limit.release();
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
    expect(limit.count).toBe(2);
    limit.release();
    limit.release();
    expect(await settled(fourth)).toBe(true);
    expect(limit.count).toBe(1);
  });

  it('tells when it is below the cap again', async () => {
    const limit = new InFlightLimit(1);
    expect(await settled(limit.whenBelowCap())).toBe(true);
    await limit.acquire();
    const below = limit.whenBelowCap();
    expect(await settled(below)).toBe(false);
    limit.release();
    expect(await settled(below)).toBe(true);
    expect(limit.count).toBe(0);
  });
});
