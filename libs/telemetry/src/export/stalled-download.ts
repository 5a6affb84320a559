import { Writable } from 'node:stream';

/** The error a stalled download is destroyed with. */
export class DownloadStalledError extends Error {
  readonly code = 'ERR_DOWNLOAD_STALLED';

  constructor(idleMs: number) {
    super(`the client read nothing for ${idleMs} ms`);
  }
}

/**
 * Destroys `destination` once its buffer has stayed full (a write asked to wait for 'drain')
 * for `idleMs` without a 'drain': a client that stopped reading. Everything the download held
 * upstream (the cursor, its transaction, the export's slots) is released through the pipeline's
 * failure. Returns the function that stops watching.
 *
 * For an http response, `writableNeedDrain` is the response's own flag (set by `write` returning
 * false, cleared before 'drain' is emitted), present since Node 15.2/14.17.
 */
export function closeWhenStalled(destination: Writable, idleMs: number): () => void {
  let lastProgress = Date.now();
  const onDrain = () => {
    lastProgress = Date.now();
  };
  destination.on('drain', onDrain);
  const timer = setInterval(
    () => {
      if (!destination.writableNeedDrain) lastProgress = Date.now();
      else if (Date.now() - lastProgress >= idleMs) destination.destroy(new DownloadStalledError(idleMs));
    },
    Math.min(1_000, Math.max(50, idleMs / 10)),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    destination.off('drain', onDrain);
  };
}
