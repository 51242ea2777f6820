/**
 * The typed client of the API key service: openapi-fetch over the types
 * openapi-typescript generates from docs/openapi.json (`npm run openapi`
 * writes client/schema.d.ts). Paths, query parameters, bodies and answers
 * are checked by the compiler against the document.
 *
 *     const api = createApiClient({ baseUrl: 'http://127.0.0.1:3000', key: () => managerKey });
 *     const { data, error, response } = await api.GET('/functions/v1/get-api-key', { params: { query: { key_id } } });
 *
 * `data` is the success body, `error` the house error body
 * (`{error: {code, message, details, request_id}}`) of any other status.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths };
export type ApiKey = components['schemas']['ApiKey'];
export type ErrorBody = components['schemas']['ErrorBody'];
export type AuditEvent = components['schemas']['AuditEvent'];
export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type Identity = components['schemas']['Identity'];

export interface ApiClientOptions {
  /** Where the API is: `http://127.0.0.1:<port>` for `npm start`, the stage URL in AWS ('' for the page's own origin). */
  readonly baseUrl: string;
  /** The Bearer key of each request, read per request (undefined: none). */
  readonly key: () => string | undefined;
  /** A fetch of your own (tests, a proxy); default the global one. */
  readonly fetch?: typeof fetch;
}

export function createApiClient(options: ApiClientOptions) {
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch });
  client.use({
    onRequest({ request }) {
      const key = options.key();
      if (key !== undefined) request.headers.set('Authorization', `Bearer ${key}`);
      return request;
    },
  });
  return client;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The words of an error answer: its message, then each detail the message does not already say, as `field: issue`. */
export function errorText(error: unknown, status?: number): string {
  const body = (error as Partial<ErrorBody> | undefined)?.error;
  if (!body || typeof body.message !== 'string') return `The service answered ${status ?? 'an error'} without an error body.`;
  const details = (body.details ?? [])
    .filter((detail) => !body.message.includes(detail.issue))
    .map((detail) => (detail.field ? `${detail.field}: ${detail.issue}` : detail.issue));
  return [body.message, ...details].join('\n');
}
