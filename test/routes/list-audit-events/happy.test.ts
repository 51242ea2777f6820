/**
 * GET list-audit-events: a key's or a team's records newest first, paged,
 * exactly the events the archive receives (they parse as audit events),
 * never a value or a hash; a deleted key's trail stays readable.
 */
import { parseAuditEvent } from '../../../lambda/domain/audit-event-schema';
import { hashKeyValue } from '../../../lambda/domain/key-values';
import { config } from '../../../lambda/composition/config';
import { call, createKey, newTeam, type Endpoint } from '../../support/api';
import { MANAGER_SCOPES, expectStatus, manualClockPerTest } from '../../support/keys';
import { smokeTest } from '../../support/route-fixtures';

const clock = manualClockPerTest();

describe('list-audit-events', () => {
  it('a key’s trail, newest first, every record a valid audit event with no value or hash, deleted keys included', async () => {
    // Prepare: create, update, disable, enable, regenerate, delete
    const team = await newTeam();
    const target = await createKey(team);
    const steps: Array<[Endpoint, Parameters<typeof call>[1] & object]> = [
      ['update-api-key', { body: { key_id: target.id, name: 'Renamed' } }],
      ['update-api-key', { body: { key_id: target.id, is_active: false } }],
      ['update-api-key', { body: { key_id: target.id, is_active: true } }],
      ['regenerate-api-key', { body: { key_id: target.id, revoke_immediately: true } }],
      ['delete-api-key', { body: { key_id: target.id, confirm_deletion: true, reason: 'rotated out' } }],
    ];
    const values = [target.key];
    for (const [endpoint, options] of steps) {
      clock().advance(1000);
      const response = await call(endpoint, { key: team.key, ...options });
      expectStatus(response, 200);
      if (response.body.new_key) values.push(response.body.new_key);
    }

    // Act
    const response = await call('list-audit-events', { key: team.key, query: { key_id: target.id } });

    // Assess
    expectStatus(response, 200);
    const events = response.body.data as Array<Record<string, unknown>>;
    expect(events.map((event) => event.event_type)).toEqual(['key.deleted', 'key.regenerated', 'key.enabled', 'key.disabled', 'key.updated', 'key.created']);
    for (const event of events) expect(parseAuditEvent(event)).toMatchObject({ ok: true });
    const text = JSON.stringify(response.body);
    const secrets = values.flatMap((value) => [value, hashKeyValue(value, config.pepper)]);
    expect(secrets.filter((secret) => text.includes(secret))).toEqual([]);
    expect(response.body.meta.next_cursor).toBeNull();
  });

  it('pages with a cursor: every event once', async () => {
    const team = await newTeam();
    const target = await createKey(team);
    for (let i = 0; i < 4; i++) {
      clock().advance(1000);
      expectStatus(await call('update-api-key', { key: team.key, body: { key_id: target.id, description: `v${i}` } }), 200);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call('list-audit-events', { key: team.key, query: { key_id: target.id, limit: '2', ...(cursor ? { cursor } : {}) } });
      expectStatus(page, 200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((event: { event_id: string }) => event.event_id));
      cursor = page.body.meta.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });

  it('a team’s trail covers every key of the team, newest first', async () => {
    const team = await newTeam();
    const a = await createKey(team);
    clock().advance(1000);
    const b = await createKey(team);
    const response = await call('list-audit-events', { key: team.key, query: { team_id: team.teamId } });
    expectStatus(response, 200);
    expect(response.body.data.map((event: { key_id: string }) => event.key_id)).toEqual([b.id, a.id, team.keyId]);
  });

  it.each([
    ['neither key_id nor team_id', {}, 'key_id is required when team_id is not given (one of the two names whose trail to read)'],
    [
      'both key_id and team_id',
      { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', team_id: '00000000-0000-0000-0000-000000000000' },
      'team_id cannot be combined with key_id (give one of the two)',
    ],
  ])('%s → 400 saying which to give', async (_name, query, says) => {
    const team = await newTeam();
    const response = await call('list-audit-events', { key: team.key, query });
    expectStatus(response, 400);
    expect(response.body.error.message).toBe(`The request is invalid: ${says}.`);
  });

  it('another team’s trail → 403; a test key reads one test key’s trail, not the team’s', async () => {
    const team = await newTeam();
    const other = await newTeam();
    expectStatus(await call('list-audit-events', { key: team.key, query: { team_id: other.teamId } }), 403);
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    expectStatus(await call('list-audit-events', { key: testManager.key, query: { team_id: team.teamId } }), 403);
    expectStatus(await call('list-audit-events', { key: testManager.key, query: { key_id: testManager.id } }), 200);
  });
});

// Its fixture's valid request (lambda/routes/list-audit-events/fixture.ts) answers as documented.
smokeTest('list-audit-events');
