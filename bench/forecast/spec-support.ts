import { DataError } from './data-error';

/** The message of the DataError `run` throws; the spec fails when it throws nothing or another error. */
export function dataErrorMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DataError);
    return (error as Error).message;
  }
  throw new Error('expected a DataError');
}

/** `text` as a spreadsheet saves "Unicode text": UTF-16 little-endian after its byte-order mark. */
export function unicodeText(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}
