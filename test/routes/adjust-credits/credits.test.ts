/**
 * adjust-credits: a grant is spent after the refill allowance, soonest
 * expiring first, and no refill wipes it; `set` sets the allowance; each
 * change is one credits.adjusted record; a repeat under the same
 * Idempotency-Key changes nothing more.
 */
import { call, createKey, teamPerSuite } from '../../support/api';
import { expectStatus, installManualClock, restoreSystemClock } from '../../support/keys';
import { callVerify } from '../../verify/helpers';
import { smokeTest } from '../../support/route-fixtures';

describe('POST /functions/v1/adjust-credits', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  const adjust = (body: Record<string, unknown>, headers: Record<string, string> = {}) => call('adjust-credits', { key: team.key, body, headers });

  it('a grant survives the refill and is spent after the allowance, soonest-expiring first', async () => {
    // Prepare
    const clock = installManualClock(Date.parse('2026-11-28T10:00:00Z'));
    const key = await createKey(team, { credits: { remaining: 1, refill: { interval: 'daily', amount: 2 } } });

    // Act
    const late = await adjust({ key_id: key.id, add: 1, expires_at: '2026-12-30T00:00:00Z', reason: 'goodwill' });
    const soon = await adjust({ key_id: key.id, add: 1, expires_at: '2026-11-29T12:00:00Z', reason: 'trial' });
    const today = [await callVerify({ key: key.key }), await callVerify({ key: key.key })];
    clock.advance(24 * 3600_000);
    const tomorrow = [];
    for (let i = 0; i < 4; i++) tomorrow.push(await callVerify({ key: key.key }));

    // Assess: day 1 spends the allowance, then the grant expiring sooner; day 2 the refill (2), then the later grant
    expectStatus(late, 200);
    expect(late.body.data).toEqual({
      key_id: key.id,
      adjustment: { add: 1, expires_at: '2026-12-30T00:00:00.000Z', reason: 'goodwill' },
      credits: { remaining: 2, refill: { interval: 'daily', amount: 2 } },
    });
    expect(soon.body.data.credits.remaining).toBe(3);
    expect(today.map((answer) => answer.body.credits.remaining)).toEqual([2, 1]);
    expect(tomorrow.map((answer) => [answer.body.code, answer.body.credits.remaining])).toEqual([
      ['VALID', 2],
      ['VALID', 1],
      ['VALID', 0],
      ['USAGE_EXCEEDED', 0],
    ]);
  });

  it('set sets the allowance (grants kept); each change is one credits.adjusted record naming its reason', async () => {
    // Prepare
    const key = await createKey(team, { credits: { remaining: 5 } });
    await adjust({ key_id: key.id, add: 3, reason: 'bonus' });

    // Act
    const set = await adjust({ key_id: key.id, set: 0, reason: 'reset by support' });
    const records = await call('list-audit-events', { key: team.key, query: { key_id: key.id } });

    // Assess
    expect(set.body.data.credits).toEqual({ remaining: 3, refill: null });
    const adjusted = (records.body.data as { event_type: string; adjustment?: unknown }[]).filter((record) => record.event_type === 'credits.adjusted');
    expect(adjusted.map((record) => record.adjustment)).toEqual(
      expect.arrayContaining([
        { add: 3, expires_at: null, reason: 'bonus' },
        { set: 0, expires_at: null, reason: 'reset by support' },
      ]),
    );
    expect(adjusted).toHaveLength(2);
  });

  it('a repeat under the same Idempotency-Key adds nothing more and answers the adjustment as made', async () => {
    // Prepare
    const made = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'idem', credits: { remaining: 0 } } });
    const identityId = made.body.data.id as string;
    const body = { identity_id: identityId, add: 7, reason: 'top-up' };

    // Act
    const first = await adjust(body, { 'Idempotency-Key': 'top-up-1' });
    const again = await adjust(body, { 'Idempotency-Key': 'top-up-1' });
    const read = await call('get-identity', { key: team.key, query: { identity_id: identityId } });

    // Assess
    expect(first.body.data.credits.remaining).toBe(7);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body.data).toEqual({ identity_id: identityId, adjustment: { add: 7, expires_at: null, reason: 'top-up' } });
    expect(read.body.data.credits.remaining).toBe(7);
  });

  it.each([
    ['both owners', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', identity_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', add: 1, reason: 'x' }, 'key_id'],
    ['no owner', { add: 1, reason: 'x' }, 'key_id'],
    ['add and set', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', add: 1, set: 1, reason: 'x' }, 'add'],
    ['a fractional add', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', add: 1.5, reason: 'x' }, 'add'],
    ['a negative set', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', set: -1, reason: 'x' }, 'set'],
    ['expires_at on a set', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', set: 1, expires_at: '2030-01-01T00:00:00Z', reason: 'x' }, 'expires_at'],
    ['no reason', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', add: 1 }, 'reason'],
  ])('%s → 400 naming the field', async (_name, body, field) => {
    // Act
    const response = await adjust(body);

    // Assess
    expectStatus(response, 400);
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
  });

  it('a key without credits, and another team’s key, are refused without change', async () => {
    // Prepare
    const unlimited = await createKey(team);

    // Act
    const none = await adjust({ key_id: unlimited.id, add: 1, reason: 'x' });
    const unknown = await adjust({ key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', add: 1, reason: 'x' });

    // Assess
    expectStatus(none, 409);
    expect(none.body.error.details).toEqual([{ field: 'credits', issue: 'none to adjust' }]);
    expectStatus(unknown, 404);
  });
});

describe('adjust-credits set, in a period whose refill is due', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  it('the allowance set replaces the refill due: the next verification does not refill over it', async () => {
    // Prepare
    const clock = installManualClock(Date.parse('2026-11-28T10:00:00Z'));
    const key = await createKey(team, { credits: { remaining: 5, refill: { interval: 'daily', amount: 5 } } });
    clock.advance(24 * 3600_000);

    // Act
    const set = await call('adjust-credits', { key: team.key, body: { key_id: key.id, set: 1, reason: 'downgraded today' } });
    const answers = [await callVerify({ key: key.key }), await callVerify({ key: key.key })];

    // Assess
    expect(set.body.data.credits.remaining).toBe(1);
    expect(answers.map((answer) => answer.body.code)).toEqual(['VALID', 'USAGE_EXCEEDED']);
  });
});

// Its fixture's valid request (lambda/routes/adjust-credits/fixture.ts) answers as documented.
smokeTest('adjust-credits');
