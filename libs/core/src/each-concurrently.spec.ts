import { eachConcurrently } from './each-concurrently';

describe('eachConcurrently', () => {
  it('runs every item once, in order, never more than the limit at a time', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await eachConcurrently([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      started.push(item);
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, item % 2 === 0 ? 5 : 1));
      running -= 1;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('does nothing for no items, and runs one at a time with a limit of 1', async () => {
    const seen: string[] = [];
    await eachConcurrently([], 4, async () => {
      seen.push('called');
    });
    expect(seen).toEqual([]);
    let running = 0;
    await eachConcurrently(['a', 'b', 'c'], 1, async (item) => {
      running += 1;
      seen.push(`${item}${running}`);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
    });
    expect(seen).toEqual(['a1', 'b1', 'c1']);
  });
});
