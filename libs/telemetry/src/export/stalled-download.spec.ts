import { Writable } from 'node:stream';
import { closeWhenStalled, DownloadStalledError } from './stalled-download';

/** A destination that takes one chunk and then accepts nothing until `drain()` is called. */
function slowDestination(): { destination: Writable; drain: () => void } {
  let pending: (() => void) | undefined;
  const destination = new Writable({
    highWaterMark: 1,
    write(_chunk, _encoding, callback) {
      pending = callback;
    },
  });
  return { destination, drain: () => pending?.() };
}

describe('closeWhenStalled', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('destroys a destination whose buffer stayed full for the idle time', () => {
    const { destination } = slowDestination();
    const stop = closeWhenStalled(destination, 2_000);
    destination.on('error', () => undefined);

    expect(destination.write('x')).toBe(false);
    jest.advanceTimersByTime(1_900);
    expect(destination.destroyed).toBe(false);
    jest.advanceTimersByTime(400);

    expect(destination.destroyed).toBe(true);
    expect(destination.errored).toBeInstanceOf(DownloadStalledError);
    stop();
  });

  it('leaves alone a destination that drains, however slowly, and one that waits for data', () => {
    const { destination, drain } = slowDestination();
    const stop = closeWhenStalled(destination, 2_000);
    for (let round = 0; round < 5; round++) {
      destination.write('x');
      jest.advanceTimersByTime(1_500);
      drain();
    }
    // Nothing to write: not the client's fault.
    jest.advanceTimersByTime(10_000);

    expect(destination.destroyed).toBe(false);
    stop();
  });
});
