import { CheckLine } from './check-line';

describe('CheckLine', () => {
  it('lets `concurrent` checks run at once and the next ones wait, first come first served', async () => {
    const line = new CheckLine(2, 10);
    const started: number[] = [];
    for (const id of [1, 2, 3, 4]) void line.take()!.then(() => started.push(id));
    await Promise.resolve();
    expect(started).toEqual([1, 2]);
    expect(line.size).toEqual({ checking: 2, waiting: 2 });

    line.done();
    await Promise.resolve();
    expect(started).toEqual([1, 2, 3]);
    line.done();
    await Promise.resolve();
    expect(started).toEqual([1, 2, 3, 4]);
    expect(line.size).toEqual({ checking: 2, waiting: 0 });

    line.done();
    line.done();
    expect(line.size).toEqual({ checking: 0, waiting: 0 });
  });

  it('refuses a turn once `waitingAtMost` are waiting, and takes one again when the line moves', () => {
    const line = new CheckLine(1, 2);
    expect(line.take()).toBeDefined();
    expect(line.take()).toBeDefined();
    expect(line.take()).toBeDefined();
    expect(line.take()).toBeUndefined();
    line.done();
    expect(line.take()).toBeDefined();
    expect(line.size).toEqual({ checking: 1, waiting: 2 });
  });
});
