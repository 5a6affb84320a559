import { DomainError } from '@solar/core';
import { imageUrl, ownImageFileName, STORED_IMAGE_PATH, uploadBasePath } from './image-location';

const ME = '11111111-2222-4333-8444-555555555555';
const OTHER = '99999999-8888-4777-8666-555555555555';
const FILE = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee.png';
const BASE = 'https://solar.example.org/uploads';

describe('image locations', () => {
  it('builds the public URL of an image, and finds the file name in it again', () => {
    const url = imageUrl(BASE, ME, FILE);
    expect(url).toBe(`${BASE}/users/${ME}/${FILE}`);
    expect(ownImageFileName(url, uploadBasePath(BASE), ME)).toBe(FILE);
    expect(STORED_IMAGE_PATH.test(`/users/${ME}/${FILE}`)).toBe(true);
  });

  it('takes the base path without a trailing slash, empty at the root', () => {
    expect(uploadBasePath('http://localhost:3000/uploads/')).toBe('/uploads');
    expect(uploadBasePath('https://cdn.example.org')).toBe('');
    expect(ownImageFileName(`https://cdn.example.org/users/${ME}/${FILE}`, '', ME)).toBe(FILE);
  });

  it.each([
    ['another user', `${BASE}/users/${OTHER}/${FILE}`],
    ['dot segments', `${BASE}/users/${ME}/../${OTHER}/${FILE}`],
    ['dot segments back into the own folder', `${BASE}/users/${OTHER}/../${ME}/${FILE}`],
    ['encoded dot segments', `${BASE}/users/${ME}/%2e%2e/${OTHER}/${FILE}`],
    ['an encoded slash', `${BASE}/users/${ME}%2F${FILE}`],
    ['an encoded backslash', `${BASE}/users/${ME}%5c${FILE}`],
    ['a backslash', `${BASE}/users/${ME}\\${FILE}`],
    ['an encoded NUL', `${BASE}/users/${ME}/${FILE}%00`],
    ['malformed percent-encoding', `${BASE}/users/${ME}/%E0%A4%A`],
    ['a path outside the uploads', `https://solar.example.org/api/users/${ME}/${FILE}`],
    ['the folder itself', `${BASE}/users/${ME}/`],
    ['a nested path', `${BASE}/users/${ME}/x/${FILE}`],
    ['a name ImageStore never gives', `${BASE}/users/${ME}/avatar.png`],
    ['another extension', `${BASE}/users/${ME}/${FILE.replace('.png', '.php')}`],
  ])('treats %s as not found', (_case, url) => {
    expect(ownImageFileName(url, '/uploads', ME)).toBeUndefined();
  });

  it.each([
    '/uploads/users/x/y.png',
    `ftp://solar.example.org/uploads/users/${ME}/${FILE}`,
    'javascript:alert(1)',
    '',
  ])('refuses %j as not an absolute http(s) URL', (url) => {
    expect(() => ownImageFileName(url, '/uploads', ME)).toThrow(DomainError);
  });
});
