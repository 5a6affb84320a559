import { INestApplication } from '@nestjs/common';
import { createTestEnvironment, createWebhookSource, Http, signUp, TestEnvironment } from '@solar/testing';
import { startApi } from './support/api-harness';

const CAP = 5;
const FULL = { message: `A source can have at most ${CAP} prices` };

/** `MAX_PRICES_PER_SOURCE`: a source's price history is bounded, even under parallel adds. */
describe('prices per source are capped', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let cookie: string;

  beforeAll(async () => {
    env = await createTestEnvironment({ MAX_PRICES_PER_SOURCE: String(CAP) });
    ({ app, http } = await startApi(env.config));
    ({ cookie } = await signUp(http, env.mail));
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  const addPrice = (sourceId: string, day: number) =>
    http
      .post(`/api/roi/${sourceId}/prices`)
      .set('Cookie', cookie)
      .send({ pricePerKwh: 0.1 + day / 100, effectiveFrom: `2026-01-${String(day).padStart(2, '0')}` });
  const priceCount = async (sourceId: string) =>
    ((await http.get(`/api/roi/${sourceId}/prices`).set('Cookie', cookie).expect(200)).body as unknown[])
      .length;

  it('refuses one more price than the cap with 400, counting the initial price, until one is deleted', async () => {
    const source = await createWebhookSource(http, cookie, { initialKwhPrice: 0.3 });
    for (let day = 1; day < CAP; day += 1) await addPrice(source.id, day).expect(200);
    expect((await addPrice(source.id, 20).expect(400)).body).toEqual(FULL);
    expect(await priceCount(source.id)).toBe(CAP);

    const [first] = (await http.get(`/api/roi/${source.id}/prices`).set('Cookie', cookie).expect(200))
      .body as Array<{
      id: string;
    }>;
    await http.delete(`/api/roi/prices/${first.id}`).set('Cookie', cookie).expect(204);
    await addPrice(source.id, 21).expect(200);
    expect(await priceCount(source.id)).toBe(CAP);

    // Another source of the same owner has its own allowance.
    const other = await createWebhookSource(http, cookie);
    await addPrice(other.id, 1).expect(200);
  });

  it('stores exactly the cap out of a parallel burst, the rest answered 400', async () => {
    const source = await createWebhookSource(http, cookie);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => addPrice(source.id, index + 1)),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array<number>(CAP).fill(200), ...Array<number>(20 - CAP).fill(400)]);
    for (const response of responses.filter((each) => each.status === 400))
      expect(response.body).toEqual(FULL);
    expect(await priceCount(source.id)).toBe(CAP);
  });

  it('still answers 404 for a source that is not the caller’s', async () => {
    const stranger = await signUp(http, env.mail);
    const theirs = await createWebhookSource(http, stranger.cookie);
    expect((await addPrice(theirs.id, 1).expect(404)).body).toEqual({ message: 'Sun source not found' });
  });
});
