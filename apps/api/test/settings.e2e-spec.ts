import { INestApplication } from '@nestjs/common';
import { createTestEnvironment, Http, signUp, TestEnvironment } from '@solar/testing';
import { startApi } from './support/api-harness';

describe('settings', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let cookie: string;

  beforeAll(async () => {
    env = await createTestEnvironment();
    ({ app, http } = await startApi(env.config));
    ({ cookie } = await signUp(http, env.mail));
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  it('needs a session', async () => {
    await http.get('/api/settings/0').expect(401);
    await http.post('/api/settings/0').send({ value: '1' }).expect(401);
  });

  it.each([0, 1, 2])('type %i reads "0" until written, then what was written', async (type) => {
    expect((await http.get(`/api/settings/${type}`).set('Cookie', cookie).expect(200)).body).toEqual({
      value: '0',
    });
    expect(
      (await http.post(`/api/settings/${type}`).set('Cookie', cookie).send({ value: '1' }).expect(200)).body,
    ).toEqual({
      value: '1',
    });
    expect((await http.get(`/api/settings/${type}`).set('Cookie', cookie).expect(200)).body).toEqual({
      value: '1',
    });
    await http.post(`/api/settings/${type}`).set('Cookie', cookie).send({ value: '0' }).expect(200);
    expect((await http.get(`/api/settings/${type}`).set('Cookie', cookie).expect(200)).body).toEqual({
      value: '0',
    });
  });

  it('keeps each user’s settings apart', async () => {
    const other = await signUp(http, env.mail);
    await http.post('/api/settings/2').set('Cookie', other.cookie).send({ value: '1' }).expect(200);
    expect((await http.get('/api/settings/2').set('Cookie', cookie).expect(200)).body).toEqual({
      value: '0',
    });
  });

  it.each(['3', '-1', 'abc', '1.5', '99999999999'])('refuses setting type %s', async (type) => {
    const read = await http.get(`/api/settings/${type}`).set('Cookie', cookie).expect(400);
    expect(read.body).toEqual({ message: 'settingType must be 0, 1 or 2' });
    await http.post(`/api/settings/${type}`).set('Cookie', cookie).send({ value: '1' }).expect(400);
  });

  it.each([['2'], [1], [true], [''], [null], ['yes']])('refuses the value %p', async (value) => {
    const response = await http.post('/api/settings/1').set('Cookie', cookie).send({ value }).expect(400);
    expect(response.body).toEqual({ errors: { value: ['value must be "0" or "1"'] } });
  });

  it('refuses a body without value, or with other properties', async () => {
    expect(
      (await http.post('/api/settings/1').set('Cookie', cookie).send({}).expect(400)).body.errors.value,
    ).toBeDefined();
    const extra = await http
      .post('/api/settings/1')
      .set('Cookie', cookie)
      .send({ value: '1', type: 2 })
      .expect(400);
    expect(extra.body.errors.type).toEqual(['property type should not exist']);
  });
});
