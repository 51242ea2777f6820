/**
 * credits.low (below 10 % of the last refill, or of the balance set) and
 * credits.exhausted (nothing left, or a call refused for credits) are
 * lifecycle events, each at most once per refill period however many
 * verifications cross at once, again in the next period; without a refill,
 * again after a new balance is set.
 */
import { call, createKey, teamPerSuite } from '../support/api';
import { expectStatus, installManualClock, restoreSystemClock } from '../support/keys';
import { auditRecordsOf, identityAuditRecords } from '../support/store';
import { callVerify } from '../verify/helpers';
import { parseAuditEvent } from '../../lambda/domain/audit-event-schema';
import { lifecycleEventOf } from '../../lambda/domain/lifecycle-events';

const team = teamPerSuite();
afterEach(() => restoreSystemClock());

/** The lifecycle events of `records` that are about credits, in order. */
function creditEvents(records: Record<string, unknown>[]) {
  return records
    .map((item) => {
      const parsed = parseAuditEvent(item);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
      return lifecycleEventOf(parsed.event);
    })
    .filter((event) => event?.type === 'credits.low' || event?.type === 'credits.exhausted')
    .map((event) => ({ type: event?.type, data: event?.data }));
}

describe('credits.low and credits.exhausted', () => {
  it('20 concurrent calls through 10 daily credits: one credits.low and one credits.exhausted for the day, and again the next day', async () => {
    // Prepare
    const clock = installManualClock(Date.parse('2026-11-28T10:00:00Z'));
    const key = await createKey(team, { credits: { remaining: 10, refill: { interval: 'daily', amount: 10 } } });

    // Act
    await Promise.all(Array.from({ length: 20 }, () => callVerify({ key: key.key })));
    const firstDay = creditEvents(await auditRecordsOf(key.id));
    clock.advance(24 * 3600_000);
    for (let i = 0; i < 12; i++) await callVerify({ key: key.key });
    const bothDays = creditEvents(await auditRecordsOf(key.id));

    // Assess
    expect(firstDay.map((event) => event.type).sort()).toEqual(['credits.exhausted', 'credits.low']);
    expect(firstDay.find((event) => event.type === 'credits.exhausted')?.data).toEqual({
      team_id: team.teamId,
      key_id: key.id,
      remaining: 0,
      period: 'd:2026-11-28',
    });
    expect(bothDays.map((event) => `${event.type} ${(event.data as { period: string }).period}`).sort()).toEqual([
      'credits.exhausted d:2026-11-28',
      'credits.exhausted d:2026-11-29',
      'credits.low d:2026-11-28',
      'credits.low d:2026-11-29',
    ]);
  });

  it('an identity’s credits without a refill: once, and again after a new balance is set', async () => {
    // Prepare
    const made = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'notices', credits: { remaining: 2 } } });
    const identityId = made.body.data.id as string;
    const key = await createKey(team, { identity_id: identityId });

    // Act
    for (let i = 0; i < 4; i++) await callVerify({ key: key.key });
    const once = creditEvents(await identityAuditRecords(identityId));
    expectStatus(await call('adjust-credits', { key: team.key, body: { identity_id: identityId, set: 1, reason: 'again' } }), 200);
    for (let i = 0; i < 2; i++) await callVerify({ key: key.key });
    const twice = creditEvents(await identityAuditRecords(identityId));

    // Assess
    expect(once.map((event) => event.type).sort()).toEqual(['credits.exhausted', 'credits.low']);
    expect(once[0]?.data).toMatchObject({ identity_id: identityId, period: null });
    expect(twice.map((event) => event.type).sort()).toEqual(['credits.exhausted', 'credits.exhausted', 'credits.low', 'credits.low']);
  });
});
