/**
 * create-webhook-endpoint honours Idempotency-Key as generate-api-key does:
 * the same request again replays the first endpoint (its secret not shown
 * again: `secret: null`, `Idempotent-Replayed: true`), another body under
 * the same key is 422, twins sent at once make one endpoint.
 */
import { call, teamPerSuite } from '../../support/api';
import { testServices } from '../../support/services';
import { randomUUID } from 'node:crypto';
import { smokeTest } from '../../support/route-fixtures';

const team = teamPerSuite();

const create = (idempotencyKey: string, url = 'http://127.0.0.1:9/hook') =>
  call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url }, headers: { 'Idempotency-Key': idempotencyKey } });

const endpointIds = async () => (await testServices().webhooks.allEndpoints(team.teamId)).map((endpoint) => endpoint.id);

const createdAudits = async (endpointId: string) =>
  (await testServices().audit.auditPage({ attribute: 'pk', value: `WEBHOOK#${endpointId}`, limit: 10 })).items.filter(
    (item) => item.event_type === 'webhook_endpoint.created',
  ).length;

afterEach(async () => {
  for (const id of await endpointIds()) await call('delete-webhook-endpoint', { key: team.key, body: { endpoint_id: id } });
});

describe('create-webhook-endpoint with Idempotency-Key', () => {
  it('the same request twice: one endpoint; the replay answers it with secret null and Idempotent-Replayed: true', async () => {
    // Prepare
    const key = randomUUID();

    // Act
    const first = await create(key);
    const again = await create(key);

    // Assess
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(first.body.data.secret).toMatch(/^whsec_/);
    expect(first.headers['Idempotent-Replayed']).toBeUndefined();
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body.data).toEqual({ ...first.body.data, secret: null });
    expect(await endpointIds()).toEqual([first.body.data.id]);
    expect(await createdAudits(first.body.data.id)).toBe(1);
    // The stored answer never held the secret.
    expect(JSON.stringify(again.body)).not.toContain(first.body.data.secret.slice(6));
  });

  it('the same key with another body → 422 IDEMPOTENCY_KEY_REUSED; nothing more is created', async () => {
    const key = randomUUID();
    const first = await create(key);
    const other = await create(key, 'http://127.0.0.1:9/another');
    expect(first.status).toBe(201);
    expect({ status: other.status, code: other.body.error?.code }).toEqual({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await endpointIds()).toEqual([first.body.data.id]);
  });

  it('five twins at once: one endpoint, one secret, one slot of the cap of 10 used', async () => {
    // Act
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(key)));

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((answer) => answer.body.data.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.body.data.secret !== null)).toHaveLength(1);
    expect(await endpointIds()).toHaveLength(1);
    const nine = await Promise.all(Array.from({ length: 9 }, (_, index) => create(randomUUID(), `http://127.0.0.1:9/${index}`)));
    expect(nine.map((answer) => answer.status)).toEqual(Array(9).fill(201));
    expect((await create(randomUUID(), 'http://127.0.0.1:9/eleventh')).status).toBe(400);
  });

  it('a malformed Idempotency-Key → 400 naming the header; nothing created', async () => {
    const answer = await create('x'.repeat(256));
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([{ field: 'Idempotency-Key', issue: 'must be 1 to 255 printable ASCII characters' }]);
    expect(await endpointIds()).toEqual([]);
  });
});

// Its fixture's valid request (lambda/routes/create-webhook-endpoint/fixture.ts) answers as documented.
smokeTest('create-webhook-endpoint');
