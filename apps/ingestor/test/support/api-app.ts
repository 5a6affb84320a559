import { ApiWithUser, listenOnLoopback, startApiWithUser } from '@solar/testing';
import { createApiApp } from '../../../api/src/create-api-app';

/*
 * The real api, for the tests that run it beside the ingestor: sources are created, changed and
 * revoked through it, and its webhook takes what MQTT takes. An app never imports another app,
 * and a library never imports an app, so the api's app factory cannot reach these tests through
 * the shared harness (`startApiWithUser` takes it as an argument): this file is the one place the
 * ingestor's tests reach into the api, and the lint allows it for this file alone.
 */

/** The api with a signed-up user, also listening on loopback: `apiPort` is the ingestors' `PORT`. */
export interface ApiOnLoopback extends ApiWithUser {
  apiPort: number;
}

/** `env` adds to the test environment's settings, which the ingestors started beside it share. */
export async function startApiOnLoopback(
  options: { env?: Record<string, string> } = {},
): Promise<ApiOnLoopback> {
  const api = await startApiWithUser(createApiApp, options);
  try {
    return { ...api, apiPort: await listenOnLoopback(api.app) };
  } catch (error) {
    await api.close();
    throw error;
  }
}
