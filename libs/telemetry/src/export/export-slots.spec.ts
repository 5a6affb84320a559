import { ExportSlots } from './export-slots';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ExportSlots', () => {
  it('lets `capacity` through at once and the rest in turn, first come first served', async () => {
    const slots = new ExportSlots({ capacity: 2, maxWaiting: 10, maxWaitMs: 60_000 });
    const first = (await slots.acquire())!;
    const second = (await slots.acquire())!;
    expect(slots.inUse).toBe(2);

    const order: string[] = [];
    const third = slots.acquire().then((release) => (order.push('third'), release!));
    const fourth = slots.acquire().then((release) => (order.push('fourth'), release!));
    await tick();
    expect(order).toEqual([]);

    first();
    first(); // a second call gives nothing back twice
    (await third)();
    expect(order).toEqual(['third']);
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    expect(slots.inUse).toBe(0);
  });

  it('turns one away at once when `maxWaiting` wait already', async () => {
    const slots = new ExportSlots({ capacity: 1, maxWaiting: 2, maxWaitMs: 60_000 });
    const running = (await slots.acquire())!;
    const waiting = [slots.acquire(), slots.acquire()];

    expect(await slots.acquire()).toBeUndefined();
    expect(slots.inLine).toBe(2);
    running();
    (await waiting[0])!();
    (await waiting[1])!();
    expect(slots.inUse).toBe(0);
  });

  it('turns one away after waiting `maxWaitMs`, and leaves the line', async () => {
    jest.useFakeTimers();
    try {
      const slots = new ExportSlots({ capacity: 1, maxWaiting: 5, maxWaitMs: 1_000 });
      const running = (await slots.acquire())!;
      const waiting = slots.acquire();
      jest.advanceTimersByTime(1_000);

      expect(await waiting).toBeUndefined();
      expect(slots.inLine).toBe(0);
      running();
      expect(slots.inUse).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
