import { INestApplication } from '@nestjs/common';
import {
  createTestEnvironment,
  FakeClock,
  Http,
  PASSWORD,
  signUp,
  TestEnvironment,
  uniqueEmail,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const MINUTE = 60_000;
const BURST = 20;
const LOCKED = { success: false, message: 'Account locked. Try again later.', user: null };
const INVALID_CODE = { success: false, message: 'Invalid or expired code', user: null };
const INVALID_CREDENTIALS = { success: false, message: 'Invalid email or password', user: null };
const ALREADY_VERIFIED = { success: false, message: 'Email already verified', user: null };

/** How many answers had each body, by message. */
function tally(bodies: Array<{ message: string }>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const body of bodies) counts[body.message] = (counts[body.message] ?? 0) + 1;
  return counts;
}

describe('lockout under parallel attempts (5 failed attempts lock for 5 minutes)', () => {
  let env: TestEnvironment;
  let first: { app: INestApplication; http: Http };
  let second: { app: INestApplication; http: Http };
  const clock = new FakeClock(new Date('2026-06-01T10:00:00Z'));

  beforeAll(async () => {
    env = await createTestEnvironment();
    // Two api processes on the same database and Redis, as two replicas behind a balancer.
    [first, second] = await Promise.all([startApi(env.config, clock), startApi(env.configWith({}), clock)]);
  });

  afterAll(async () => {
    await Promise.all([first.app.close(), second.app.close()]);
    await env.teardown();
  });

  /** `BURST` requests at once, through one api or alternately through both; every answer is a 400. */
  async function burst(
    apis: Http[],
    send: (http: Http) => Promise<{ status: number; body: { message: string } }>,
  ): Promise<Record<string, number>> {
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => send(apis[i % apis.length])));
    expect(answers.map((answer) => answer.status)).toEqual(Array(BURST).fill(400));
    return tally(answers.map((answer) => answer.body));
  }

  async function unverified(): Promise<{ email: string; code: string; wrong: string }> {
    const email = uniqueEmail('pending');
    await first.http.post('/api/auth/register').send({ email, password: PASSWORD }).expect(200);
    const code = await env.mail.latestCode(email);
    return { email, code, wrong: code === '000000' ? '000001' : '000000' };
  }

  describe.each([
    ['one api process', () => [first.http]],
    ['two api processes', () => [first.http, second.http]],
  ])('through %s', (_label, apis: () => Http[]) => {
    it(`evaluates 5 of ${BURST} parallel wrong passwords; the others, then the right one, answer "locked"`, async () => {
      const { email } = await signUp(first.http, env.mail);
      const counts = await burst(apis(), (http) =>
        http.post('/api/auth/login').send({ email, password: 'Wrong-Pass-1' }),
      );
      expect(counts).toEqual({ [INVALID_CREDENTIALS.message]: 5, [LOCKED.message]: BURST - 5 });

      for (const http of apis()) {
        const refused = await http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(400);
        expect(refused.body).toEqual(LOCKED);
      }
      clock.advance(5 * MINUTE);
      await first.http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
    });

    it(`evaluates 5 of ${BURST} parallel wrong codes; the others, then the right one, answer "locked"`, async () => {
      const { email, code, wrong } = await unverified();
      const counts = await burst(apis(), (http) =>
        http.post('/api/auth/verify-email').send({ email, code: wrong }),
      );
      expect(counts).toEqual({ [INVALID_CODE.message]: 5, [LOCKED.message]: BURST - 5 });

      for (const http of apis()) {
        const refused = await http.post('/api/auth/verify-email').send({ email, code }).expect(400);
        expect(refused.body).toEqual(LOCKED);
      }
      clock.advance(5 * MINUTE);
      await first.http.post('/api/auth/verify-email').send({ email, code }).expect(200);
    });
  });

  it('lets the right password in after 4 failures and starts the count again', async () => {
    const { email } = await signUp(first.http, env.mail);
    const wrong = () => first.http.post('/api/auth/login').send({ email, password: 'Wrong-Pass-1' });
    for (let attempt = 1; attempt <= 4; attempt++)
      expect((await wrong().expect(400)).body).toEqual(INVALID_CREDENTIALS);
    await first.http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
    for (let attempt = 1; attempt <= 4; attempt++)
      expect((await wrong().expect(400)).body).toEqual(INVALID_CREDENTIALS);
    await first.http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
  });

  it('counts codes sent for a verified account: 5 answer "already verified", then it is locked, login too', async () => {
    const { email } = await signUp(first.http, env.mail);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const answer = await first.http
        .post('/api/auth/verify-email')
        .send({ email, code: '123456' })
        .expect(400);
      expect(answer.body).toEqual(ALREADY_VERIFIED);
    }
    const verify = await first.http
      .post('/api/auth/verify-email')
      .send({ email, code: '123456' })
      .expect(400);
    expect(verify.body).toEqual(LOCKED);
    const login = await first.http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(400);
    expect(login.body).toEqual(LOCKED);

    clock.advance(5 * MINUTE);
    await first.http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
  });
});
