import { INestApplication } from '@nestjs/common';
import { PredictionJobStore } from '@solar/predictions';
import { createTestEnvironment, FakeClock, Http, signUp, TestEnvironment } from '@solar/testing';
import { startApi } from './support/api-harness';

const BERLIN = { latitude: 52.52, longitude: 13.4 };
const TOO_MANY = { message: 'Too many prediction jobs in progress. Try again later.' };

/** No worker runs here: every job started stays queued until released by hand. */
describe('prediction jobs per user (PREDICTION_MAX_JOBS_PER_USER)', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let owner: string;
  let other: string;

  beforeAll(async () => {
    env = await createTestEnvironment({ PREDICTION_MAX_JOBS_PER_USER: '2' });
    ({ app, http } = await startApi(env.config, new FakeClock(new Date('2026-06-10T10:00:00Z'))));
    [owner, other] = await Promise.all([
      signUp(http, env.mail).then((user) => user.cookie),
      signUp(http, env.mail).then((user) => user.cookie),
    ]);
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  async function createSource(cookie: string): Promise<string> {
    const created = await http
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ name: 'Roof', connectionType: 'MQTT', ...BERLIN })
      .expect(201);
    return created.body.id;
  }

  const start = (type: 'train' | 'predict', sunSourceId: string, cookie: string) =>
    http.post(`/api/predictions/${type}`).set('Cookie', cookie).send({ sunSourceId });

  it('queues two jobs of one user, refuses the third with 429, and leaves other users alone', async () => {
    const [first, second] = [await createSource(owner), await createSource(owner)];
    const theirs = await createSource(other);

    const train = await start('train', first, owner).expect(200);
    const predict = await start('predict', first, owner).expect(200);
    const third = await start('train', second, owner);
    // The same job again is still the one in progress, not a new one.
    const again = await start('train', first, owner).expect(200);
    const otherUser = await start('train', theirs, other).expect(200);

    expect([train.body.status, predict.body.status]).toEqual(['queued', 'queued']);
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('60');
    expect(third.body).toEqual(TOO_MANY);
    expect(again.body).toMatchObject({ jobId: train.body.jobId, status: 'already_running' });
    expect(otherUser.body.status).toBe('queued');

    // A job that ends (the worker releases it) gives its place back.
    await app.get(PredictionJobStore).release('train', first, train.body.jobId);
    const afterRelease = await start('train', second, owner).expect(200);
    expect(afterRelease.body.status).toBe('queued');
    await start('train', first, owner).expect(429);
  });
});
