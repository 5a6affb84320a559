import { INestApplication } from '@nestjs/common';
import { createTestEnvironment, Http, signUp, TestEnvironment } from '@solar/testing';
import { startApi } from './support/api-harness';

const NOT_FOUND = { message: 'Power group not found' };

describe('Power Groups', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let owner: string;
  let stranger: string;

  beforeAll(async () => {
    env = await createTestEnvironment();
    ({ app, http } = await startApi(env.config));
    owner = (await signUp(http, env.mail)).cookie;
    stranger = (await signUp(http, env.mail)).cookie;
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  const createGroup = (body: object, cookie = owner) =>
    http.post('/api/powergroups').set('Cookie', cookie).send(body);
  const createSource = (body: object, cookie = owner) =>
    http
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ connectionType: 'MQTT', ...body });

  it('needs a session on every route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    await http.get('/api/powergroups').expect(401);
    await http.get(`/api/powergroups/${id}`).expect(401);
    await http.post('/api/powergroups').send({ name: 'x' }).expect(401);
    await http.put(`/api/powergroups/${id}`).send({ name: 'x' }).expect(401);
    await http.delete(`/api/powergroups/${id}`).expect(401);
  });

  it('creates a group: 201, Location, and the group with sunSourceCount 0', async () => {
    const response = await createGroup({
      name: 'Roof array',
      description: 'South face',
      logoUrl: 'https://x.example/l.png',
    }).expect(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Roof array',
      description: 'South face',
      logoUrl: 'https://x.example/l.png',
      sunSourceCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(response.headers.location).toBe(`${env.config.publicBaseUrl}/api/powergroups/${response.body.id}`);
    expect(
      (await http.get(`/api/powergroups/${response.body.id}`).set('Cookie', owner).expect(200)).body,
    ).toEqual(response.body);
  });

  it.each([
    ['name at 100 characters', { name: 'n'.repeat(100) }, null],
    ['name at 101 characters', { name: 'n'.repeat(101) }, 'name'],
    ['description at 500 characters', { name: 'g', description: 'd'.repeat(500) }, null],
    ['description at 501 characters', { name: 'g', description: 'd'.repeat(501) }, 'description'],
    ['logoUrl at 500 characters', { name: 'g', logoUrl: `https://example.com/${'l'.repeat(480)}` }, null],
    [
      'logoUrl at 501 characters',
      { name: 'g', logoUrl: `https://example.com/${'l'.repeat(481)}` },
      'logoUrl',
    ],
    ['no name', { description: 'd' }, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a numeric name', { name: 42 }, 'name'],
    ['an unknown property', { name: 'g', ownerId: 'me' }, 'ownerId'],
  ])('create with %s', async (_case, body, invalidField) => {
    if (invalidField === null) {
      const response = await createGroup(body).expect(201);
      expect(response.body).toMatchObject(body);
      return;
    }
    const response = await createGroup(body).expect(400);
    expect(Object.keys(response.body)).toEqual(['errors']);
    expect(Object.keys(response.body.errors)).toEqual([invalidField]);
  });

  describe('logoUrl, an image address a browser is given, is validated as a source’s iconUrl', () => {
    const NOT_HTTP = { errors: { logoUrl: ['logoUrl must be an http(s) URL'] } };

    it.each([
      ['javascript:', 'javascript:alert(1)'],
      ['data:', 'data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+'],
      ['relative', '/images/logo.png'],
      ['without protocol', 'example.com/logo.png'],
      ['ftp', 'ftp://example.com/logo.png'],
      ['garbage', 'not a url at all'],
    ])('refuses a %s logoUrl on create and update, storing nothing', async (_case, logoUrl) => {
      expect((await createGroup({ name: 'g', logoUrl }).expect(400)).body).toEqual(NOT_HTTP);
      const group = (await createGroup({ name: 'Kept', logoUrl: 'https://example.com/kept.png' }).expect(201))
        .body;
      const update = await http
        .put(`/api/powergroups/${group.id}`)
        .set('Cookie', owner)
        .send({ logoUrl })
        .expect(400);
      expect(update.body).toEqual(NOT_HTTP);
      const kept = await http.get(`/api/powergroups/${group.id}`).set('Cookie', owner).expect(200);
      expect(kept.body.logoUrl).toBe('https://example.com/kept.png');
    });

    it.each([
      ['https', 'https://cdn.example.com/logos/roof.png'],
      ['http on a host without a dot', 'http://localhost:3000/logo.svg'],
    ])('accepts an %s logoUrl', async (_case, logoUrl) => {
      expect((await createGroup({ name: 'g', logoUrl }).expect(201)).body.logoUrl).toBe(logoUrl);
    });
  });

  it('names the offending field in validation errors', async () => {
    expect((await createGroup({ name: 'n'.repeat(101) }).expect(400)).body.errors.name).toEqual([
      'name must be at most 100 characters long',
    ]);
    expect(
      (await createGroup({ name: 'g', logoUrl: `https://example.com/${'l'.repeat(481)}` }).expect(400)).body
        .errors.logoUrl,
    ).toEqual(['logoUrl must be at most 500 characters long']);
  });

  it('lists only the caller’s groups, oldest first, with their source counts', async () => {
    const user = await signUp(http, env.mail);
    const first = (await createGroup({ name: 'First' }, user.cookie).expect(201)).body;
    const second = (await createGroup({ name: 'Second' }, user.cookie).expect(201)).body;
    await createSource({ name: 'A', powerGroupId: first.id }, user.cookie).expect(201);
    await createSource({ name: 'B', powerGroupId: first.id }, user.cookie).expect(201);
    await createSource({ name: 'C' }, user.cookie).expect(201);
    await createGroup({ name: 'Not yours' }, stranger).expect(201);

    const list = await http.get('/api/powergroups').set('Cookie', user.cookie).expect(200);
    expect(
      list.body.map((group: { name: string; sunSourceCount: number }) => [group.name, group.sunSourceCount]),
    ).toEqual([
      ['First', 2],
      ['Second', 0],
    ]);
    expect(list.body[1].id).toBe(second.id);
  });

  it('updates fields, clears the nullable ones, and refuses a null name', async () => {
    const group = (
      await createGroup({ name: 'Before', description: 'old', logoUrl: 'https://x/l.png' }).expect(201)
    ).body;
    const renamed = await http
      .put(`/api/powergroups/${group.id}`)
      .set('Cookie', owner)
      .send({ name: 'After' })
      .expect(200);
    expect(renamed.body).toEqual({ ...group, name: 'After', updatedAt: expect.any(String) });
    expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(group.updatedAt));

    const cleared = await http
      .put(`/api/powergroups/${group.id}`)
      .set('Cookie', owner)
      .send({ description: null, logoUrl: null })
      .expect(200);
    expect(cleared.body).toMatchObject({ name: 'After', description: null, logoUrl: null });

    const nullName = await http
      .put(`/api/powergroups/${group.id}`)
      .set('Cookie', owner)
      .send({ name: null })
      .expect(400);
    expect(nullName.body.errors.name).toEqual(expect.arrayContaining([expect.any(String)]));
    await http
      .put(`/api/powergroups/${group.id}`)
      .set('Cookie', owner)
      .send({ name: 'x'.repeat(101) })
      .expect(400);
  });

  it('deletes a group (204) and leaves its sources ungrouped', async () => {
    const group = (await createGroup({ name: 'Doomed' }).expect(201)).body;
    const source = (await createSource({ name: 'Survivor', powerGroupId: group.id }).expect(201)).body;
    expect(source.powerGroupName).toBe('Doomed');

    const deleted = await http.delete(`/api/powergroups/${group.id}`).set('Cookie', owner).expect(204);
    expect(deleted.text).toBe('');
    expect((await http.get(`/api/powergroups/${group.id}`).set('Cookie', owner).expect(404)).body).toEqual(
      NOT_FOUND,
    );

    const after = await http.get(`/api/sunsources/${source.id}`).set('Cookie', owner).expect(200);
    expect(after.body).toMatchObject({
      id: source.id,
      name: 'Survivor',
      powerGroupId: null,
      powerGroupName: null,
    });
    await http.delete(`/api/powergroups/${group.id}`).set('Cookie', owner).expect(404);
  });

  it('moves a source between the owner’s groups and out of them', async () => {
    const a = (await createGroup({ name: 'A' }).expect(201)).body;
    const b = (await createGroup({ name: 'B' }).expect(201)).body;
    const source = (await createSource({ name: 'Mover', powerGroupId: a.id }).expect(201)).body;
    const moved = await http
      .put(`/api/sunsources/${source.id}`)
      .set('Cookie', owner)
      .send({ powerGroupId: b.id })
      .expect(200);
    expect(moved.body).toMatchObject({ powerGroupId: b.id, powerGroupName: 'B' });
    const inGroup = await http.get(`/api/sunsources?powerGroupId=${b.id}`).set('Cookie', owner).expect(200);
    expect(inGroup.body.map((s: { id: string }) => s.id)).toEqual([source.id]);
    const out = await http
      .put(`/api/sunsources/${source.id}`)
      .set('Cookie', owner)
      .send({ powerGroupId: null })
      .expect(200);
    expect(out.body).toMatchObject({ powerGroupId: null, powerGroupName: null });
  });

  it('never lets a source join another user’s group', async () => {
    const foreign = (await createGroup({ name: 'Theirs' }, stranger).expect(201)).body;
    const create = await createSource({ name: 'Sneaky', powerGroupId: foreign.id }).expect(400);
    expect(create.body).toEqual({ message: 'Power group not found' });
    const mine = (await createSource({ name: 'Mine' }).expect(201)).body;
    await http
      .put(`/api/sunsources/${mine.id}`)
      .set('Cookie', owner)
      .send({ powerGroupId: foreign.id })
      .expect(400);
    expect(
      (await http.get(`/api/powergroups/${foreign.id}`).set('Cookie', stranger).expect(200)).body
        .sunSourceCount,
    ).toBe(0);
  });

  it('answers 404 with the same body for another user’s group and for none at all', async () => {
    const theirs = (await createGroup({ name: 'Private' }, stranger).expect(201)).body;
    const missing = '7d444840-9dc0-11d1-b245-5ffdce74fad2';
    for (const id of [theirs.id, missing]) {
      expect((await http.get(`/api/powergroups/${id}`).set('Cookie', owner).expect(404)).body).toEqual(
        NOT_FOUND,
      );
      expect(
        (await http.put(`/api/powergroups/${id}`).set('Cookie', owner).send({ name: 'x' }).expect(404)).body,
      ).toEqual(NOT_FOUND);
      expect((await http.delete(`/api/powergroups/${id}`).set('Cookie', owner).expect(404)).body).toEqual(
        NOT_FOUND,
      );
    }
    const still = await http.get(`/api/powergroups/${theirs.id}`).set('Cookie', stranger).expect(200);
    expect(still.body.name).toBe('Private');
    const list = await http.get('/api/powergroups').set('Cookie', owner).expect(200);
    expect(list.body.some((group: { id: string }) => group.id === theirs.id)).toBe(false);
  });

  it('answers 400 for an id that is not a UUID', async () => {
    const response = await http.get('/api/powergroups/not-a-uuid').set('Cookie', owner).expect(400);
    expect(response.body).toEqual({ message: expect.stringMatching(/uuid/i) });
  });
});
