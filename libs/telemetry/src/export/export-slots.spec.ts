import { ExportSlots } from './export-slots';

describe('ExportSlots', () => {
  it('lets `capacity` through at once and the rest in turn, first come first served', async () => {
    const slots = new ExportSlots(2);
    const first = await slots.acquire();
    const second = await slots.acquire();
    expect(slots.inUse).toBe(2);

    const order: string[] = [];
    const third = slots.acquire().then((release) => (order.push('third'), release));
    const fourth = slots.acquire().then((release) => (order.push('fourth'), release));
    await new Promise((resolve) => setImmediate(resolve));
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
});
