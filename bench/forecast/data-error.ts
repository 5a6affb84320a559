/**
 * Input the benchmark cannot score: a file it cannot read, a layout it does not know, too few
 * hours, too many gaps. The message says why in words a user can act on; the benchmark prints it
 * and exits with 1, never reporting a figure it could not compute.
 */
export class DataError extends Error {
  override readonly name = 'DataError';
}
