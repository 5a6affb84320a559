/**
 * The api's app factory, for the tests that run the real api beside the ingestor: sources are
 * created, changed and revoked through it, and its webhook takes what MQTT takes. An app never
 * imports another app, and a library never imports an app, so the factory cannot come from the
 * shared test harness (`@solar/testing` takes it as an argument): this file is the one place the
 * ingestor's tests reach into the api, and the lint allows it for this file alone.
 */
export { createApiApp } from '../../../api/src/create-api-app';
