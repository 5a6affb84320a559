import { INestApplication, Logger } from '@nestjs/common';
import { connect } from 'node:net';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createTestEnvironment,
  Http,
  listenOnLoopback,
  logIn,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const MB = 1024 * 1024;

// Tiny images: real 1x1 PNG, GIF and WebP files, and a JPEG that is only its markers.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');

/** A PNG signature followed by filler, `size` bytes in all. */
function pngOfSize(size: number): Buffer {
  const bytes = Buffer.alloc(size, 0x20);
  PNG.copy(bytes, 0, 0, 8);
  return bytes;
}

interface Account {
  id: string;
  cookie: string;
}

describe('image upload', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let me: Account;
  let other: Account;
  let base: string;
  let basePath: string;

  beforeAll(async () => {
    env = await createTestEnvironment({ ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'Root-Pass-123' });
    ({ app, http } = await startApi(env.config));
    me = await signUp(http, env.mail);
    other = await signUp(http, env.mail);
    base = env.config.uploadBaseUrl;
    basePath = new URL(base).pathname;
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  function upload(account: Account | undefined, content: Buffer, filename: string, contentType: string) {
    const post = http.post('/api/upload/image');
    return (account ? post.set('Cookie', account.cookie) : post).attach('file', content, {
      filename,
      contentType,
    });
  }

  function deleteImage(account: Account, url?: string) {
    const request = http.delete('/api/upload/image').set('Cookie', account.cookie);
    return url === undefined ? request : request.query({ url });
  }

  async function uploadedUrl(
    account: Account,
    content: Buffer = PNG,
    type = 'image/png',
    name = 'logo.png',
  ): Promise<string> {
    const response = await upload(account, content, name, type).expect(200);
    return response.body.url as string;
  }

  const folderOf = (account: Account) => join(env.config.uploadDir, 'users', account.id);
  const fileOf = (url: string) => join(env.config.uploadDir, new URL(url).pathname.slice(basePath.length));
  const filesOf = (account: Account) => readdir(folderOf(account)).catch(() => [] as string[]);

  describe('POST /api/upload/image', () => {
    it.each([
      ['PNG', PNG, 'image/png', 'png'],
      ['JPEG', JPEG, 'image/jpeg', 'jpg'],
      ['GIF', GIF, 'image/gif', 'gif'],
      ['WebP', WEBP, 'image/webp', 'webp'],
    ])(
      'stores a %s under a random name and serves it read-only without a session',
      async (_type, content, mimeType, extension) => {
        const response = await upload(me, content, `picture.${extension}`, mimeType).expect(200);
        expect(Object.keys(response.body)).toEqual(['url']);
        const url = response.body.url as string;
        expect(url).toMatch(
          new RegExp(
            `^${base}/users/${me.id}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.${extension}$`,
          ),
        );
        expect(await readFile(fileOf(url))).toEqual(content);

        const served = await http.get(new URL(url).pathname).buffer(true).expect(200);
        expect(served.body).toEqual(content);
        expect(served.headers['content-type']).toBe(mimeType);
        expect(served.headers['x-content-type-options']).toBe('nosniff');
        expect(served.headers['content-security-policy']).toBe("default-src 'none'");
        await http.head(new URL(url).pathname).expect(200);
      },
    );

    it('never uses the name the client sent', async () => {
      const response = await upload(me, PNG, '../../evil.php', 'image/png').expect(200);
      expect(response.body.url).not.toMatch(/evil/);
      expect(response.body.url).toMatch(/\.png$/);
      expect((await filesOf(me)).filter((name) => /evil/.test(name))).toEqual([]);
      expect(existsSync(join(env.config.uploadDir, 'evil.php'))).toBe(false);
      expect(existsSync(join(env.config.uploadDir, 'users', 'evil.php'))).toBe(false);
      expect(existsSync(join(folderOf(me), '..', '..', 'evil.php'))).toBe(false);
    });

    it('leaves only the stored images in the folder (no temporary files), readable by others', async () => {
      await uploadedUrl(me);
      const names = await filesOf(me);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(name).toMatch(/^[0-9a-f-]{36}\.(jpg|png|gif|webp)$/);
    });

    it('needs a session', async () => {
      const before = await filesOf(other);
      await upload(undefined, PNG, 'a.png', 'image/png').expect(401);
      expect(await filesOf(other)).toEqual(before);
    });

    it.each([
      ['a PNG declared as JPEG', PNG, 'photo.jpg', 'image/jpeg', /image\/jpeg/],
      ['a JPEG declared as PNG', JPEG, 'photo.png', 'image/png', /image\/png/],
      ['text', Buffer.from('hello'), 'hello.txt', 'text/plain', /JPEG, PNG, GIF and WebP/],
      [
        'SVG',
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
        'x.svg',
        'image/svg+xml',
        /JPEG, PNG, GIF and WebP/,
      ],
      [
        'HTML declared as GIF',
        Buffer.from('<html><script>alert(1)</script>'),
        'x.gif',
        'image/gif',
        /image\/gif/,
      ],
      [
        'a RIFF file that is not WebP',
        Buffer.from('RIFF\x1a\0\0\0WAVEfmt ', 'latin1'),
        'x.webp',
        'image/webp',
        /image\/webp/,
      ],
      ['an empty file', Buffer.alloc(0), 'empty.png', 'image/png', /empty/],
    ])('refuses %s with 400 naming the rule', async (_case, content, filename, mimeType, message) => {
      const before = await filesOf(other);
      const response = await upload(other, content, filename, mimeType).expect(400);
      expect(Object.keys(response.body)).toEqual(['message']);
      expect(response.body.message).toMatch(message);
      expect(await filesOf(other)).toEqual(before);
    });

    it('requires the file field', async () => {
      const empty = await http
        .post('/api/upload/image')
        .set('Cookie', me.cookie)
        .field('file', 'not a file')
        .expect(400);
      expect(empty.body).toEqual({ message: expect.any(String) });
      const otherField = await http
        .post('/api/upload/image')
        .set('Cookie', me.cookie)
        .attach('image', PNG, { filename: 'a.png', contentType: 'image/png' })
        .expect(400);
      expect(otherField.body).toEqual({ message: expect.stringMatching(/image/) });
      const twoFiles = await upload(me, PNG, 'a.png', 'image/png')
        .attach('file', PNG, { filename: 'b.png', contentType: 'image/png' })
        .expect(400);
      expect(twoFiles.body).toEqual({ message: expect.any(String) });
    });

    it('answers a request that is not multipart with a clean 400', async () => {
      const json = await http
        .post('/api/upload/image')
        .set('Cookie', me.cookie)
        .send({ file: 'x' })
        .expect(400);
      expect(json.body).toEqual({ message: 'file is required' });
      const none = await http.post('/api/upload/image').set('Cookie', me.cookie).expect(400);
      expect(none.body).toEqual({ message: 'file is required' });
      const noBoundary = await http
        .post('/api/upload/image')
        .set('Cookie', me.cookie)
        .set('Content-Type', 'multipart/form-data')
        .send('garbage')
        .expect(400);
      expect(noBoundary.body).toEqual({ message: expect.any(String) });
    });

    it('accepts exactly 5 MB and refuses one byte more with 413, writing nothing', async () => {
      const url = await uploadedUrl(other, pngOfSize(5 * MB));
      expect((await readFile(fileOf(url))).length).toBe(5 * MB);

      const before = await filesOf(other);
      const response = await upload(other, pngOfSize(5 * MB + 1), 'big.png', 'image/png').expect(413);
      expect(response.body).toEqual({ message: expect.stringMatching(/5 MB/) });
      expect(await filesOf(other)).toEqual(before);
    });
  });

  it('takes an upload whose client goes away for the client’s doing, not an error of its own', async () => {
    const port = await listenOnLoopback(app);
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      const before = await filesOf(me);
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      const part = `--gone\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
      socket.write(
        `POST /api/upload/image HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${me.cookie}\r\n` +
          `Content-Type: multipart/form-data; boundary=gone\r\nContent-Length: 5000\r\n\r\n${part}`,
      );
      socket.write(pngOfSize(300));
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.destroy();
      await uploadedUrl(other);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors.mock.calls.map(([, message]) => message)).toEqual([]);
      expect(await filesOf(me)).toEqual(before);
    } finally {
      errors.mockRestore();
    }
  });

  describe('serving', () => {
    it.each([
      ['a missing image', () => `/users/${me.id}/00000000-0000-4000-8000-000000000000.png`],
      ['a folder', () => `/users/${me.id}/`],
      ['the users folder', () => '/users'],
      ['an encoded traversal', () => '/users/..%2f..%2f..%2fetc%2fpasswd'],
      ['a dot traversal', () => `/users/${me.id}/%2e%2e/%2e%2e/x.png`],
      ['a dotfile', () => `/users/${me.id}/.00000000-0000-4000-8000-000000000000.png.part`],
    ])('answers %s with a JSON 404', async (_case, path) => {
      const response = await http.get(`${basePath}${path()}`).expect(404);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      expect(response.body).toEqual({ message: 'Not found' });
    });

    it('is read-only', async () => {
      const url = await uploadedUrl(me);
      const response = await http.delete(new URL(url).pathname).set('Cookie', me.cookie).expect(405);
      expect(response.body).toEqual({ message: 'Method not allowed' });
      await http.put(new URL(url).pathname).set('Cookie', me.cookie).send({ file: 'x' }).expect(405);
      expect(await readFile(fileOf(url))).toEqual(PNG);
    });
  });

  describe('DELETE /api/upload/image', () => {
    it('deletes an own image, which is then gone', async () => {
      const url = await uploadedUrl(me);
      const response = await deleteImage(me, url).expect(200);
      expect(response.body).toEqual({ message: 'Image deleted' });
      expect(existsSync(fileOf(url))).toBe(false);
      await http.get(new URL(url).pathname).expect(404);

      const again = await deleteImage(me, url).expect(404);
      expect(again.body).toEqual({ message: 'Image not found' });
    });

    it("answers another user's image as if it did not exist, and keeps it", async () => {
      const theirs = await uploadedUrl(other);
      const response = await deleteImage(me, theirs).expect(404);
      expect(response.body).toEqual({ message: 'Image not found' });
      expect(existsSync(fileOf(theirs))).toBe(true);
    });

    it('needs a session', async () => {
      const url = await uploadedUrl(me);
      await http.delete('/api/upload/image').query({ url }).expect(401);
      expect(existsSync(fileOf(url))).toBe(true);
    });

    it('requires url', async () => {
      const response = await deleteImage(me).expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
      expect(response.body.errors.url).toEqual(expect.arrayContaining([expect.any(String)]));
    });

    describe('refuses everything outside the caller’s own folder, deleting nothing', () => {
      let mine: string;
      let theirs: string;
      let mineName: string;
      let theirsName: string;

      beforeAll(async () => {
        mine = await uploadedUrl(me);
        theirs = await uploadedUrl(other);
        mineName = mine.split('/').pop()!;
        theirsName = theirs.split('/').pop()!;
      });

      afterEach(() => {
        expect(existsSync(fileOf(mine))).toBe(true);
        expect(existsSync(fileOf(theirs))).toBe(true);
      });

      it.each([
        ['dot segments', () => `${base}/users/${me.id}/../${other.id}/${theirsName}`],
        ['dot segments back into the own folder', () => `${base}/users/${other.id}/../${me.id}/${mineName}`],
        ['encoded dot segments', () => `${base}/users/${me.id}/%2e%2e/${other.id}/${theirsName}`],
        ['encoded slashes', () => `${base}/users/${me.id}/..%2F${other.id}%2F${theirsName}`],
        ['encoded slashes in place of the real ones', () => `${base}/users%2F${me.id}%2F${mineName}`],
        ['backslashes', () => `${base}/users/${me.id}/..\\${other.id}\\${theirsName}`],
        ['encoded backslashes', () => `${base}/users/${me.id}/..%5C${other.id}%5C${theirsName}`],
        ['a NUL byte', () => `${base}/users/${me.id}/${mineName}%00.png`],
        ["the other user's file name in my folder", () => `${base}/users/${me.id}/${theirsName}`],
        ['a path outside the uploads', () => `http://localhost:3000/api/users/${me.id}/${mineName}`],
        ['the folder itself', () => `${base}/users/${me.id}/`],
      ])('%s: 404', async (_case, url) => {
        const response = await deleteImage(me, url()).expect(404);
        expect(response.body).toEqual({ message: 'Image not found' });
      });

      it.each([
        ['a relative URL', () => `${basePath}/users/${me.id}/${mineName}`],
        ['ftp:', () => `ftp://localhost${basePath}/users/${me.id}/${mineName}`],
        ['javascript:', () => 'javascript:alert(1)'],
        ['file:', () => `file://${fileOf(mine)}`],
      ])('%s: 400', async (_case, url) => {
        const response = await deleteImage(me, url()).expect(400);
        expect(response.body).toEqual({ message: expect.stringMatching(/absolute http or https URL/) });
      });
    });
  });

  it('removes an account’s images when an administrator deletes the account', async () => {
    const doomed = await signUp(http, env.mail);
    const url = await uploadedUrl(doomed);
    expect(existsSync(fileOf(url))).toBe(true);
    const keeper = await uploadedUrl(other);

    const admin = await logIn(http, 'root@example.com', 'Root-Pass-123');
    await http.delete(`/api/admin/users/${doomed.id}`).set('Cookie', admin).expect(204);

    expect(existsSync(folderOf(doomed))).toBe(false);
    await http.get(new URL(url).pathname).expect(404);
    expect(existsSync(fileOf(keeper))).toBe(true);
  });
});
