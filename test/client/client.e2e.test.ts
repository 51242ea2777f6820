/**
 * The typed client (client/, openapi-fetch over the types generated from
 * docs/openapi.json) against `npm start`: a key's whole life through it,
 * every answer checked against the document; and the document and the API
 * reference as `npm start` serves them. The same runtime then runs the
 * leaked-key suite (test/leaks/leaks-suite.ts): one `npm start` for both.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createApiClient, errorText, type ApiClient } from '../../client';
import { bootstrap, sharedNpmStart, type Running } from '../support/local-runtime';
import { LEAKS_RUNTIME_ENV, describeLeaks } from '../leaks/leaks-suite';
import { recordIssuedValue } from '../support/issued-values';
import { expectDocumentedResponse } from '../support/openapi-responses';

const ROOT = path.resolve(__dirname, '..', '..');

const runtime = sharedNpmStart('apikeys-client-', LEAKS_RUNTIME_ENV);

describe('the typed client against npm start', () => {
  let running: Running;
  let api: ApiClient;
  let teamId: string;
  let checked = 0;

  /** Checks an openapi-fetch answer against the document and returns its body. */
  async function documented<T>(route: string, method: string, call: Promise<{ data?: T; error?: unknown; response: Response }>) {
    const { data, error, response } = await call;
    const body = data ?? error;
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    expectDocumentedResponse(route, method, { status: response.status, headers, body });
    checked += 1;
    return { data, error, status: response.status };
  }

  beforeAll(() => {
    running = runtime.running();
    teamId = randomUUID();
    const boot = bootstrap(runtime.dataDir(), teamId);
    api = createApiClient({ baseUrl: running.baseUrl, key: () => boot.key });
  });

  it('creates, reads, lists, changes, rolls, reports and deletes a key, every answer as documented', async () => {
    // Act
    const created = await documented(
      '/functions/v1/generate-api-key',
      'POST',
      api.POST('/functions/v1/generate-api-key', {
        body: { name: 'Client key', type: 'sk', environment: 'live', team_id: teamId, scopes: ['enc.tiles:read'] },
      }),
    );
    const key = created.data?.data;
    if (!key?.key) throw new Error(`create failed: ${errorText(created.error, created.status)}`);
    recordIssuedValue(key.key);
    const keyId = key.id;
    const read = await documented('/functions/v1/get-api-key', 'GET', api.GET('/functions/v1/get-api-key', { params: { query: { key_id: keyId } } }));
    const listed = await documented('/functions/v1/list-api-keys', 'GET', api.GET('/functions/v1/list-api-keys', { params: { query: { team_id: teamId } } }));
    const updated = await documented(
      '/functions/v1/update-api-key',
      'PATCH',
      api.PATCH('/functions/v1/update-api-key', { body: { key_id: keyId, rate_limit: 42 } }),
    );
    const verified = await documented('/functions/v1/verify-api-key', 'POST', api.POST('/functions/v1/verify-api-key', { body: { key: key.key } }));
    const rolled = await documented(
      '/functions/v1/regenerate-api-key',
      'POST',
      api.POST('/functions/v1/regenerate-api-key', { body: { key_id: keyId, grace_period_days: 2 } }),
    );
    if (rolled.data?.new_key) recordIssuedValue(rolled.data.new_key);
    const usage = await documented(
      '/functions/v1/get-api-key-usage',
      'GET',
      api.GET('/functions/v1/get-api-key-usage', { params: { query: { key_id: keyId, days: '7' } } }),
    );
    const trail = await documented(
      '/functions/v1/list-audit-events',
      'GET',
      api.GET('/functions/v1/list-audit-events', { params: { query: { key_id: keyId } } }),
    );
    const refused = await documented('/functions/v1/get-api-key', 'GET', api.GET('/functions/v1/get-api-key', { params: { query: { key_id: 'nope' } } }));
    const deleted = await documented(
      '/functions/v1/delete-api-key',
      'DELETE',
      api.DELETE('/functions/v1/delete-api-key', { body: { key_id: keyId, confirm_deletion: true, reason: 'done' } }),
    );

    // Assess
    expect(created.status).toBe(201);
    expect(read.data?.data).toMatchObject({ id: keyId, name: 'Client key', state: 'active' });
    expect(listed.data?.data.map((item) => item.id)).toContain(keyId);
    expect(updated.data?.data.rate_limit).toBe(42);
    expect(verified.data).toMatchObject({ valid: true, ratelimit: { limit: 42 } });
    expect(rolled.data?.migration_info).toMatchObject({ grace_period_days: 2, both_keys_valid: true });
    expect(usage.data?.data).toMatchObject({ key_id: keyId, total_requests: 1 });
    expect(usage.data?.data.daily).toHaveLength(7);
    expect(trail.data?.data.map((event) => event.event_type)).toEqual(['key.regenerated', 'key.updated', 'key.created']);
    expect(refused.status).toBe(400);
    expect(errorText(refused.error, refused.status)).toBe('The request is invalid: key_id must be a 26-character key id (ULID).');
    expect(deleted.data?.deleted_key).toMatchObject({ id: keyId, name: 'Client key' });
    expect(checked).toBe(10);
  });

  it('serves the document at /openapi.json (this server as its server) and the API reference at /docs, with nothing from a CDN', async () => {
    // Act
    const served = await (await fetch(`${running.baseUrl}/openapi.json`)).json();
    const docs = await fetch(`${running.baseUrl}/docs`);
    const html = await docs.text();
    const assets = await Promise.all(
      ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/init.js'].map(async (asset) => (await fetch(`${running.baseUrl}${asset}`)).status),
    );

    // Assess
    const document = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(served).toEqual({ ...document, servers: [{ url: '/', description: 'This npm start' }] });
    expect(docs.status).toBe(200);
    expect(html).toContain('<div id="swagger-ui"></div>');
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(assets).toEqual([200, 200, 200]);
  });
});

describeLeaks(runtime);
