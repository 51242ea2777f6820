/**
 * Identities end to end through the handlers: create (201 with an ETag and
 * an audit record), read, list (paged, or by external id), change (If-Match
 * honoured, the external id renamed and the old one freed) and delete (the
 * external id free again). The external id is unique in the team, also
 * under concurrent creates and renames.
 */
import { call, newTeam, teamPerSuite } from '../../support/api';
import { expectStatus, manualClockPerTest } from '../../support/keys';
import { getItem, identityAuditRecords } from '../../support/store';
import { smokeTest } from '../../support/route-fixtures';

manualClockPerTest();
const team = teamPerSuite();

const create = (externalId: string, meta?: Record<string, unknown>, as = team) =>
  call('create-identity', { key: as.key, body: { team_id: as.teamId, external_id: externalId, ...(meta ? { meta } : {}) } });

const auditOf = identityAuditRecords;

describe('create-identity', () => {
  it('answers 201 with the identity and its ETag, and writes one identity.created record naming the actor', async () => {
    // Act
    const response = await create('customer-1', { plan: 'free', seats: 3 });

    // Assess
    expectStatus(response, 201);
    expect(response.body.data).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      team_id: team.teamId,
      external_id: 'customer-1',
      meta: { plan: 'free', seats: 3 },
      key_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(response.headers.ETag).toBe('"1"');
    const records = await auditOf(response.body.data.id);
    expect(records.map((record) => [record.event_type, record.identity, record.changed_fields, (record.actor as { key_id: string }).key_id])).toEqual([
      ['identity.created', { external_id: 'customer-1' }, [], team.keyId],
    ]);
  });

  it('an external id the team already has → 409 naming it; the first identity is untouched; another team may use it', async () => {
    // Prepare
    const first = await create('customer-2');
    const other = await newTeam();

    // Act
    const again = await create('customer-2', { plan: 'pro' });
    const elsewhere = await create('customer-2', undefined, other);

    // Assess
    expectStatus(again, 409);
    expect(again.body.error.details).toEqual([{ field: 'external_id', issue: 'already used: customer-2' }]);
    expect((await call('get-identity', { key: team.key, query: { identity_id: first.body.data.id } })).body.data.meta).toEqual({});
    expectStatus(elsewhere, 201);
  });

  it('10 concurrent creates of one external id: exactly one 201, nine 409', async () => {
    // Act
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => create('customer-race', { writer: index })));

    // Assess
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, ...Array.from({ length: 9 }, () => 409)]);
    const listed = await call('list-identities', { key: team.key, query: { team_id: team.teamId, external_id: 'customer-race' } });
    expect(listed.body.data).toHaveLength(1);
  });

  it.each([
    ['another team’s team_id', (other: string) => ({ team_id: other, external_id: 'x' }), 403, 'team_id'],
    ['an empty external_id', () => ({ external_id: '' }), 400, 'external_id'],
    ['an external_id of 256 characters', () => ({ external_id: 'x'.repeat(256) }), 400, 'external_id'],
    ['meta that is an array', () => ({ external_id: 'x', meta: [1] }), 400, 'meta'],
    ['meta over 4 KB', () => ({ external_id: 'x', meta: { blob: 'y'.repeat(4100) } }), 400, 'meta'],
    ['meta holding a key value', () => ({ external_id: 'x', meta: { note: `sk_live_01ARZ3NDEKTSV4RRFFQ69G5FAV_${'A'.repeat(32)}` } }), 400, 'meta'],
    ['a limit named twice', () => ({ external_id: 'x', limits: [1, 2].map(() => ({ name: 'a', limit: 1, window_seconds: 1 })) }), 400, 'limits.1.name'],
    ['a limit of 0 per window', () => ({ external_id: 'x', limits: [{ name: 'a', limit: 0, window_seconds: 1 }] }), 400, 'limits.0.limit'],
    ['a window over 30 days', () => ({ external_id: 'x', limits: [{ name: 'a', limit: 1, window_seconds: 2_592_001 }] }), 400, 'limits.0.window_seconds'],
    ['11 limits', () => ({ external_id: 'x', limits: Array.from({ length: 11 }, (_, i) => ({ name: `l${i}`, limit: 1, window_seconds: 1 })) }), 400, 'limits'],
    ['negative credits', () => ({ external_id: 'x', credits: { remaining: -1 } }), 400, 'credits.remaining'],
    [
      'a daily refill with a day of the month',
      () => ({ external_id: 'x', credits: { remaining: 1, refill: { interval: 'daily', amount: 1, day_of_month: 3 } } }),
      400,
      'credits.refill.day_of_month',
    ],
  ])('%s → %s naming the field; nothing is created', async (_name, bodyOf, status, field) => {
    // Prepare
    const other = await newTeam();

    // Act
    const response = await call('create-identity', { key: team.key, body: { team_id: team.teamId, ...bodyOf(other.teamId) } });

    // Assess
    expectStatus(response, status);
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    const listed = await call('list-identities', { key: team.key, query: { team_id: team.teamId, external_id: 'x' } });
    expect(listed.body.data).toEqual([]);
  });
});

describe('get-identity, list-identities', () => {
  it('another team’s identity answers exactly as an unknown one (404, apart from the id)', async () => {
    // Prepare
    const mine = await create('customer-3');
    const stranger = await newTeam();

    // Act
    const foreign = await call('get-identity', { key: stranger.key, query: { identity_id: mine.body.data.id } });
    const unknown = await call('get-identity', { key: stranger.key, query: { identity_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } });

    // Assess
    expectStatus(foreign, 404);
    expectStatus(unknown, 404);
    const shape = (body: { error: { code: string; message: string } }) => [body.error.code, body.error.message];
    expect(shape(foreign.body)).toEqual(shape(unknown.body));
  });

  it('lists the team’s identities oldest first, page by page, each once; by external id, the one that has it', async () => {
    // Prepare
    const own = await newTeam();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(`listed-${i}`, undefined, own)).body.data.id as string);

    // Act
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call('list-identities', { key: own.key, query: { team_id: own.teamId, limit: '2', ...(cursor ? { cursor } : {}) } });
      expectStatus(page, 200);
      seen.push(...page.body.data.map((identity: { id: string }) => identity.id));
      cursor = page.body.meta.next_cursor ?? undefined;
    } while (cursor);
    const byExternalId = await call('list-identities', { key: own.key, query: { team_id: own.teamId, external_id: 'listed-3' } });

    // Assess
    expect(seen).toEqual(ids);
    expect(byExternalId.body.data.map((identity: { id: string }) => identity.id)).toEqual([ids[3]]);
    expect(byExternalId.body.meta.next_cursor).toBeNull();
  });
});

describe('update-identity, delete-identity', () => {
  it('renames the external id (the old one is free again) and replaces meta; one identity.updated record with the changed fields', async () => {
    // Prepare
    const created = await create('customer-4', { plan: 'free' });
    const id = created.body.data.id as string;

    // Act
    const changed = await call('update-identity', { key: team.key, body: { identity_id: id, external_id: 'customer-4b', meta: { plan: 'pro' } } });
    const reuse = await create('customer-4');

    // Assess
    expectStatus(changed, 200);
    expect(changed.body.data).toMatchObject({ external_id: 'customer-4b', meta: { plan: 'pro' } });
    expect(changed.headers.ETag).toBe('"2"');
    expectStatus(reuse, 201);
    expect((await auditOf(id)).map((record) => [record.event_type, record.changed_fields])).toEqual([
      ['identity.created', []],
      ['identity.updated', ['external_id', 'meta']],
    ]);
    expect(await getItem({ pk: 'IDENTITY_EXTERNAL_ID#' + team.teamId + '#customer-4b', sk: 'IDENTITY_EXTERNAL_ID' })).toMatchObject({ identity_id: id });
  });

  it('a rename onto an external id the team has → 409; nothing changes', async () => {
    // Prepare
    await create('customer-5');
    const other = await create('customer-6');

    // Act
    const response = await call('update-identity', { key: team.key, body: { identity_id: other.body.data.id, external_id: 'customer-5' } });

    // Assess
    expectStatus(response, 409);
    const after = await call('get-identity', { key: team.key, query: { identity_id: other.body.data.id } });
    expect([after.body.data.external_id, after.headers.ETag]).toEqual(['customer-6', '"1"']);
  });

  it('If-Match: a stale tag → 412 with the current one; the current tag changes it', async () => {
    // Prepare
    const id = (await create('customer-7')).body.data.id as string;
    await call('update-identity', { key: team.key, body: { identity_id: id, meta: { step: 1 } } });

    // Act
    const stale = await call('update-identity', { key: team.key, body: { identity_id: id, meta: { step: 2 } }, headers: { 'If-Match': '"1"' } });
    const fresh = await call('update-identity', { key: team.key, body: { identity_id: id, meta: { step: 2 } }, headers: { 'If-Match': '"2"' } });

    // Assess
    expectStatus(stale, 412);
    expect(stale.headers.ETag).toBe('"2"');
    expectStatus(fresh, 200);
    expect(fresh.body.data.meta).toEqual({ step: 2 });
  });

  it('8 concurrent changes of one identity: 200 for the winners, 409 for the losers, never a 5xx; the revision moves once per 200', async () => {
    // Prepare
    const id = (await create('customer-10')).body.data.id as string;

    // Act
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, writer) => call('update-identity', { key: team.key, body: { identity_id: id, meta: { writer } } })),
    );

    // Assess
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    const wins = statuses.filter((status) => status === 200).length;
    expect(wins).toBeGreaterThanOrEqual(1);
    const after = await call('get-identity', { key: team.key, query: { identity_id: id } });
    expect(after.headers.ETag).toBe(`"${1 + wins}"`);
    expect((await auditOf(id)).filter((record) => record.event_type === 'identity.updated')).toHaveLength(wins);
  });

  it('a test key of the team → 403 on every identity route (identities are live data); nothing is created', async () => {
    // Prepare
    const testKey = (
      await call('generate-api-key', {
        key: team.key,
        body: { name: 'test manager', type: 'sk', environment: 'test', team_id: team.teamId, scopes: ['keys.manage'] },
      })
    ).body.data.key as string;

    // Act
    const created = await call('create-identity', { key: testKey, body: { team_id: team.teamId, external_id: 'from-a-test-key' } });
    const listed = await call('list-identities', { key: testKey, query: { team_id: team.teamId } });

    // Assess
    expect([created.status, listed.status]).toEqual([403, 403]);
    expect((await call('list-identities', { key: team.key, query: { team_id: team.teamId, external_id: 'from-a-test-key' } })).body.data).toEqual([]);
  });

  it('a change that changes nothing answers the identity as it is and writes no record', async () => {
    // Prepare
    const id = (await create('customer-8', { plan: 'free' })).body.data.id as string;

    // Act
    const response = await call('update-identity', { key: team.key, body: { identity_id: id, external_id: 'customer-8', meta: { plan: 'free' } } });

    // Assess
    expectStatus(response, 200);
    expect(response.headers.ETag).toBe('"1"');
    expect(await auditOf(id)).toHaveLength(1);
  });

  it('delete: the identity goes (404 after), its external id is free again, one identity.deleted record; another team’s → 404', async () => {
    // Prepare
    const id = (await create('customer-9')).body.data.id as string;
    const stranger = await newTeam();

    // Act
    const foreign = await call('delete-identity', { key: stranger.key, body: { identity_id: id } });
    const deleted = await call('delete-identity', { key: team.key, body: { identity_id: id } });
    const again = await call('delete-identity', { key: team.key, body: { identity_id: id } });

    // Assess
    expectStatus(foreign, 404);
    expectStatus(deleted, 200);
    expect(deleted.body.data).toEqual({ deleted: true, id });
    expectStatus(again, 404);
    expectStatus(await call('get-identity', { key: team.key, query: { identity_id: id } }), 404);
    expectStatus(await create('customer-9'), 201);
    expect((await auditOf(id)).map((record) => record.event_type)).toEqual(['identity.created', 'identity.deleted']);
  });
});

// Its fixture's valid request (lambda/routes/create-identity/fixture.ts) answers as documented.
smokeTest('create-identity');
