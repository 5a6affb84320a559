import { once } from 'node:events';
import { duplexPair } from './in-process-link';

describe('duplexPair', () => {
  it('carries what one end writes to the other, both ways, in order', async () => {
    const [left, right] = duplexPair();
    const heardRight: string[] = [];
    const heardLeft: string[] = [];
    right.on('data', (chunk: Buffer) => heardRight.push(chunk.toString()));
    left.on('data', (chunk: Buffer) => heardLeft.push(chunk.toString()));
    left.write('a');
    left.write('b');
    right.write('c');
    await new Promise((resolve) => setImmediate(resolve));
    expect(heardRight.join('')).toBe('ab');
    expect(heardLeft.join('')).toBe('c');
  });

  it('ends the other side when one side ends', async () => {
    const [left, right] = duplexPair();
    right.resume();
    const ended = once(right, 'end');
    left.end('last');
    await ended;
    expect(right.readableEnded).toBe(true);
  });

  it('destroys the other side when one side is destroyed', async () => {
    const [left, right] = duplexPair();
    const closed = once(right, 'close');
    left.destroy();
    await closed;
    expect(right.destroyed).toBe(true);
  });
});
