import { imageFormatOf, MAX_IMAGE_BYTES } from './image-format';

const bytes = (...values: Array<number | string>) =>
  Buffer.concat(
    values.map((value) => (typeof value === 'string' ? Buffer.from(value, 'ascii') : Buffer.from([value]))),
  );

describe('image formats', () => {
  it('allows at most 5 MB', () => {
    expect(MAX_IMAGE_BYTES).toBe(5_242_880);
  });

  it.each([
    ['image/jpeg', 'jpg'],
    ['image/png', 'png'],
    ['image/gif', 'gif'],
    ['image/webp', 'webp'],
    ['IMAGE/PNG; charset=binary', 'png'],
  ])('accepts %s, stored as .%s', (mimeType, extension) => {
    expect(imageFormatOf(mimeType)?.extension).toBe(extension);
  });

  it.each(['image/svg+xml', 'text/plain', 'image/bmp', 'application/octet-stream', '', 'image/pngx'])(
    'refuses %j',
    (mimeType) => {
      expect(imageFormatOf(mimeType)).toBeUndefined();
    },
  );

  it.each([
    ['image/jpeg', bytes(0xff, 0xd8, 0xff, 0xe0), true],
    ['image/jpeg', bytes(0xff, 0xd8), false],
    ['image/png', bytes(0x89, 'PNG\r\n'), true],
    ['image/png', bytes(0xff, 0xd8, 0xff, 0xe0), false],
    ['image/gif', bytes('GIF89a'), true],
    ['image/gif', bytes('GIF7'), false],
    ['image/webp', bytes('RIFF', 0, 0, 0, 0, 'WEBPVP8 '), true],
    ['image/webp', bytes('RIFF', 0, 0, 0, 0, 'WAVEfmt '), false],
    ['image/webp', bytes('RIFF'), false],
  ])('%s with leading bytes %o matches: %s', (mimeType, content, expected) => {
    expect(imageFormatOf(mimeType)!.matches(content)).toBe(expected);
  });
});
