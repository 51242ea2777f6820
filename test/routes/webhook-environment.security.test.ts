/**
 * Webhook endpoints receive every key's events, live keys' included, so only
 * a live manager key manages them (the reach of the team-wide audit trail):
 * a test-environment manager key gets 403 on each of the eight webhook
 * routes, whatever it asks, and nothing changes; the same request with the
 * team's live key succeeds (so the 403 is the environment, not the request).
 */
import { randomUUID } from 'node:crypto';
import { bootstrapTeamKey } from '../../lambda/handlers/bootstrap-team-key';
import { call, teamPerSuite, type Endpoint } from '../support/api';
import { recordIssuedValue } from '../support/issued-values';
import { queuedJobs, testServices } from '../support/services';

const team = teamPerSuite();
let testKey: string;
let endpointId: string;
let eventId: string;

beforeAll(async () => {
  const boot = await bootstrapTeamKey(testServices(), { teamId: team.teamId, environment: 'test', userId: randomUUID() });
  recordIssuedValue(boot.key);
  testKey = boot.key;
  const created = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url: 'http://127.0.0.1:9/hook' } });
  endpointId = created.body.data.id;
  const sent = await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpointId } });
  eventId = sent.body.data.event_id;
});

/** Each webhook route's request, and what the live key gets for it. */
const requests: Array<[Endpoint, number, () => { body?: unknown; query?: Record<string, string> }]> = [
  ['create-webhook-endpoint', 201, () => ({ body: { team_id: team.teamId, url: 'http://127.0.0.1:9/other' } })],
  ['list-webhook-endpoints', 200, () => ({ query: { team_id: team.teamId } })],
  ['update-webhook-endpoint', 200, () => ({ body: { endpoint_id: endpointId, description: 'changed' } })],
  ['rotate-webhook-secret', 200, () => ({ body: { endpoint_id: endpointId } })],
  ['send-test-webhook', 202, () => ({ body: { endpoint_id: endpointId } })],
  ['list-webhook-deliveries', 200, () => ({ query: { endpoint_id: endpointId } })],
  ['redeliver-webhook', 202, () => ({ body: { event_id: eventId } })],
  ['delete-webhook-endpoint', 200, () => ({ body: { endpoint_id: endpointId } })],
];

/** What a refused request must leave as it was: the team's endpoints (with revisions) and the queued deliveries. */
async function webhookState() {
  const endpoints = await testServices().webhooks.allEndpoints(team.teamId);
  return { endpoints: endpoints.map((endpoint) => [endpoint.id, endpoint.revision, endpoint.description]), queued: queuedJobs.length };
}

describe('a test-environment manager key on the webhook routes', () => {
  test.each(requests)('%s: the live key → %i; a test key → 403 "needs a live key", nothing changed', async (route, liveStatus, request) => {
    // Prepare
    const before = await webhookState();

    // Act
    const refused = await call(route, { key: testKey, ...request() });
    const after = await webhookState();
    const allowed = await call(route, { key: team.key, ...request() });

    // Assess
    expect({ status: refused.status, code: refused.body.error?.code, details: refused.body.error?.details }).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      details: [{ field: 'Authorization', issue: 'needs a live key' }],
    });
    expect(after).toEqual(before);
    expect(allowed.status).toBe(liveStatus);
  });

  it('a malformed request from a test key is 403 too: the environment is refused before the input is read', async () => {
    const answer = await call('create-webhook-endpoint', { key: testKey, body: { url: 42 } });
    expect(answer.status).toBe(403);
  });
});
