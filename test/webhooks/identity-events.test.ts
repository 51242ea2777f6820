/**
 * Identity changes are lifecycle events: each identity.* audit record
 * becomes one event (its id the record's), with the identity's id, team,
 * external id, actor and changed fields, and never its meta. An endpoint
 * subscribes to them by name, or takes them with every other type (`events`
 * empty).
 */
import { call, teamPerSuite } from '../support/api';
import { expectStatus, manualClockPerTest } from '../support/keys';
import { identityAuditRecords } from '../support/store';
import { parseAuditEvent } from '../../lambda/domain/audit-event-schema';
import { lifecycleEventOf, payloadOf } from '../../lambda/domain/lifecycle-events';
import { subscribes } from '../../lambda/domain/webhook-endpoints';

manualClockPerTest();
const team = teamPerSuite();

async function eventsOf(identityId: string) {
  return (await identityAuditRecords(identityId)).map((item) => {
    const parsed = parseAuditEvent(item);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    return { record: parsed.event, event: lifecycleEventOf(parsed.event) };
  });
}

describe('identity lifecycle events', () => {
  it('create, update and delete of an identity are identity.created, identity.updated and identity.deleted, without its meta', async () => {
    // Prepare
    const created = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'acme', meta: { secret_plan: 'gold' } } });
    const identityId = created.body.data.id as string;

    // Act
    expectStatus(
      await call('update-identity', { key: team.key, body: { identity_id: identityId, external_id: 'acme-corp', meta: { secret_plan: 'platinum' } } }),
      200,
    );
    expectStatus(await call('delete-identity', { key: team.key, body: { identity_id: identityId } }), 200);
    const found = await eventsOf(identityId);

    // Assess
    const actor = { user_id: team.userId, key_id: team.keyId };
    expect(found.map(({ event }) => [event?.type, event?.data])).toEqual([
      ['identity.created', { identity_id: identityId, team_id: team.teamId, external_id: 'acme', actor, changed_fields: [] }],
      ['identity.updated', { identity_id: identityId, team_id: team.teamId, external_id: 'acme-corp', actor, changed_fields: ['external_id', 'meta'] }],
      ['identity.deleted', { identity_id: identityId, team_id: team.teamId, external_id: 'acme-corp', actor, changed_fields: [] }],
    ]);
    for (const { record, event } of found) {
      expect(event?.id).toBe(`msg_${record.event_id}`);
      expect(event?.timestamp).toBe(record.occurred_at);
      expect(payloadOf(event!)).not.toContain('platinum');
    }
  });

  it('an endpoint may subscribe to identity events by name; one with no events takes them; one of key events does not', async () => {
    // Act
    const named = await call('create-webhook-endpoint', {
      key: team.key,
      body: { team_id: team.teamId, url: 'http://127.0.0.1:9/hook', events: ['identity.created', 'identity.deleted'] },
    });

    // Assess
    expectStatus(named, 201);
    expect(named.body.data.events).toEqual(['identity.created', 'identity.deleted']);
    const endpoint = (events: string[]) => ({ is_active: true, events }) as Parameters<typeof subscribes>[0];
    expect(subscribes(endpoint(named.body.data.events), 'identity.created')).toBe(true);
    expect(subscribes(endpoint(named.body.data.events), 'identity.updated')).toBe(false);
    expect(subscribes(endpoint([]), 'identity.updated')).toBe(true);
    expect(subscribes(endpoint(['key.created']), 'identity.created')).toBe(false);
  });
});
