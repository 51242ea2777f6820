/**
 * update-webhook-endpoint under races: 8 updates of one endpoint at once,
 * with and without If-Match, and with a delete among them, answer only
 * 200 / 409 / 412 / 404 in the house shape with endpoint wording, never a
 * 500, and leave no rejection unhandled (a Promise thrown in place of its
 * error ended `npm start`: issue 43).
 */
import { call, teamPerSuite } from '../../support/api';
import { testServices } from '../../support/services';
import { smokeTest } from '../../support/route-fixtures';

const team = teamPerSuite();
const unhandled: unknown[] = [];
const onRejection = (reason: unknown) => unhandled.push(reason);

beforeAll(() => process.on('unhandledRejection', onRejection));
afterAll(() => process.off('unhandledRejection', onRejection));
beforeEach(() => (unhandled.length = 0));

async function newEndpoint(): Promise<string> {
  const created = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url: 'http://127.0.0.1:9/hook' } });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

/** 8 updates at once, each a different description; `ifMatch` sent with every one when given. */
function eightUpdates(endpointId: string, ifMatch?: string) {
  return Promise.all(
    Array.from({ length: 8 }, (_, index) =>
      call('update-webhook-endpoint', {
        key: team.key,
        body: { endpoint_id: endpointId, description: `writer ${index}` },
        headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch },
      }),
    ),
  );
}

/** Lets stray rejections surface (they are reported on the next turns of the event loop). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('8 concurrent updates of one endpoint', () => {
  it('without If-Match: 200 for the winners, 409 with endpoint wording for the losers; revision moves once per 200', async () => {
    // Prepare
    const id = await newEndpoint();

    // Act
    const answers = await eightUpdates(id);
    await settle();

    // Assess
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    expect(statuses).toContain(200);
    for (const lost of answers.filter((answer) => answer.status === 409)) {
      expect(lost.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('webhook endpoint changed') });
    }
    const stored = await testServices().webhooks.getEndpoint(id);
    expect(stored?.revision).toBe(1 + statuses.filter((status) => status === 200).length);
    expect(unhandled).toEqual([]);
  });

  it('with If-Match "1": exactly one 200, seven 412 naming the endpoint and its current ETag', async () => {
    // Prepare
    const id = await newEndpoint();

    // Act
    const answers = await eightUpdates(id, '"1"');
    await settle();

    // Assess
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
    for (const refused of answers.filter((answer) => answer.status === 412)) {
      expect(refused.headers.ETag).toBe('"2"');
      expect(refused.body.error.code).toBe('PRECONDITION_FAILED');
      expect(refused.body.error.message).toContain('The webhook endpoint changed since it was read: If-Match does not match the webhook endpoint\'s ETag "2"');
      expect(refused.body.error.message).not.toMatch(/\bkey\b/);
    }
    expect((await testServices().webhooks.getEndpoint(id))?.revision).toBe(2);
    expect(unhandled).toEqual([]);
  });

  it('with a delete among them: only 200 / 409 / 412 / 404, and the endpoint gone', async () => {
    // Prepare
    const id = await newEndpoint();

    // Act
    const [updates, deleted, tagged] = await Promise.all([
      eightUpdates(id),
      call('delete-webhook-endpoint', { key: team.key, body: { endpoint_id: id } }),
      eightUpdates(id, '"1"'),
    ]);
    await settle();

    // Assess
    expect(deleted.status).toBe(200);
    const statuses = [...updates, ...tagged].map((answer) => answer.status);
    expect(statuses.filter((status) => ![200, 404, 409, 412].includes(status))).toEqual([]);
    expect(await testServices().webhooks.getEndpoint(id)).toBeUndefined();
    expect(unhandled).toEqual([]);
  });
});

// Its fixture's valid request (lambda/routes/update-webhook-endpoint/fixture.ts) answers as documented.
smokeTest('update-webhook-endpoint');
