/**
 * The expire handler against DynamoDB Local: the end of a grace period
 * removes the old value's lookup and previous fields and writes exactly one
 * `key.old_value_expired` record; every other situation is a no-op, and
 * races with regenerate and delete leave one consistent state.
 */
import { captured, servicesWith, testServices } from '../support/services';
import { documentClient } from '../../lambda/composition/dynamo';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MS_PER_DAY, type ManualClock } from '../../lambda/platform/clock';
import { parseAuditEvent } from '../../lambda/domain/audit-event-schema';
import { ExpiryNotDueError, makeHandler, NOT_DUE_RETRY_WINDOW_MS } from '../../lambda/handlers/expire-old-value';
import { hashKeyValue } from '../../lambda/domain/key-values';
import { config } from '../../lambda/composition/config';
import { expireOldValue, type ExpireOldValueOutcome } from '../../lambda/use-cases/expire-old-value';
import { call, createKey, newTeam } from '../support/api';
import {
  checkValue,
  expectStatus,
  installManualClock,
  keyInTransition,
  restoreSystemClock,
  storedKeyState,
  useValueTimes,
  type KeyInTransition,
} from '../support/keys';
import { auditRecordsOfType, keyItem, lookupItemOf } from '../support/store';

const handler = makeHandler(testServices);

const EXPIRED = 'key.old_value_expired';

let clock: ManualClock;

beforeEach(() => {
  clock = installManualClock();
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
});

afterEach(() => {
  restoreSystemClock();
  jest.restoreAllMocks();
});

function invoke(event: unknown): Promise<unknown> {
  const context = { awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
  return (handler as unknown as (event: unknown, context: Context) => Promise<unknown>)(event, context);
}

function expiryRecords(keyId: string): Promise<Record<string, unknown>[]> {
  return auditRecordsOfType(keyId, EXPIRED);
}

function passTheEnd(transition: KeyInTransition): void {
  clock.set(Date.parse(transition.endsAt) + 1000);
}

describe('expire handler: happy path', () => {
  it('removes the old lookup and previous fields and writes one record with the transition usage of both values', async () => {
    // Prepare
    const t = await keyInTransition();
    await useValueTimes(t.oldValue, 2);
    await useValueTimes(t.newValue, 3);
    passTheEnd(t);
    const before = await keyItem(t.keyId);

    // Act
    const result = await invoke({ key_id: t.keyId, generation: t.generation });

    // Assess
    expect(result).toMatchObject({ outcome: 'expired', transition_usage: { old: 2, new: 3 } });
    const key = await keyItem(t.keyId);
    expect(key).toBeDefined();
    for (const field of ['previous_hash', 'previous_last_four', 'previous_key_prefix']) {
      expect({ field, value: key?.[field] }).toEqual({ field, value: undefined });
    }
    expect({ ...key }).toEqual(
      Object.fromEntries(Object.entries(before ?? {}).filter(([name]) => !['previous_hash', 'previous_last_four', 'previous_key_prefix'].includes(name))),
    );
    expect(await lookupItemOf(t.oldValue)).toBeUndefined();
    expect(await lookupItemOf(t.newValue)).toMatchObject({ slot: 'current', key_id: t.keyId });
    const check = await checkValue(t.newValue);
    expect(check.valid).toBe(true);
    expect(await checkValue(t.oldValue)).toMatchObject({ valid: false, code: 'NOT_FOUND' });

    const records = await expiryRecords(t.keyId);
    expect(records).toHaveLength(1);
    const parsed = parseAuditEvent(records[0]);
    if (!parsed.ok) throw new Error(`not a valid audit event: ${JSON.stringify(parsed.problems)}`);
    expect(parsed.event).toEqual({
      event_id: (result as { event_id: string }).event_id,
      event_type: EXPIRED,
      occurred_at: clock.now().toISOString(),
      key_id: t.keyId,
      team_id: t.team.teamId,
      actor: { user_id: 'system', key_id: null, source_ip: null, user_agent: null, request_id: expect.any(String) },
      key: { name: 'Rotating key', type: 'sk', environment: 'live' },
      generation: 2,
      old_value: { key_prefix: t.oldValue.slice(0, 20), last_four: t.oldValue.slice(-4) },
      transition_ends_at: t.endsAt,
      reason: 'deadline',
      transition_usage: { old: 2, new: 3 },
      // Its place in the team's audit chain (docs/audit.md).
      seq: expect.any(Number),
      prev_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(records[0])).not.toContain(hashKeyValue(t.oldValue, config.pepper));
  });

  it('records the Lambda request id as the actor request id', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);
    const awsRequestId = randomUUID();
    const context = { awsRequestId } as unknown as Context;

    // Act
    await (handler as unknown as (event: unknown, context: Context) => Promise<unknown>)({ key_id: t.keyId, generation: t.generation }, context);

    // Assess
    const [record] = await expiryRecords(t.keyId);
    expect((record?.actor as { request_id?: string } | undefined)?.request_id).toBe(awsRequestId);
  });

  it('counts zero uses when neither value was used during the transition', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);

    // Act
    const result = await invoke({ key_id: t.keyId, generation: t.generation });

    // Assess
    expect(result).toMatchObject({ outcome: 'expired', transition_usage: { old: 0, new: 0 } });
    const [record] = await expiryRecords(t.keyId);
    expect(record?.transition_usage).toEqual({ old: 0, new: 0 });
  });
});

describe('expire handler: idempotency', () => {
  it('a second run reports already_expired and writes no second record', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);
    const first = await invoke({ key_id: t.keyId, generation: t.generation });
    const afterFirst = await storedKeyState(t.keyId);

    // Act
    const second = await invoke({ key_id: t.keyId, generation: t.generation });

    // Assess
    expect(first).toMatchObject({ outcome: 'expired' });
    expect(second).toEqual({ outcome: 'already_expired' });
    expect(await expiryRecords(t.keyId)).toHaveLength(1);
    expect(await storedKeyState(t.keyId)).toEqual(afterFirst);
  });

  it('two concurrent runs: exactly one expires, one record', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);

    // Act
    const outcomes = await Promise.all([invoke({ key_id: t.keyId, generation: t.generation }), invoke({ key_id: t.keyId, generation: t.generation })]);

    // Assess
    const names = outcomes.map((outcome) => (outcome as ExpireOldValueOutcome).outcome).sort();
    expect(names).toEqual(['already_expired', 'expired']);
    expect(await expiryRecords(t.keyId)).toHaveLength(1);
  });
});

describe('expire handler: no-ops', () => {
  it('does nothing for a deleted key', async () => {
    // Prepare
    const t = await keyInTransition();
    expectStatus(await call('delete-api-key', { key: t.team.key, body: { key_id: t.keyId, confirm_deletion: true } }), 200);
    passTheEnd(t);
    const before = await storedKeyState(t.keyId);

    // Act
    const result = await invoke({ key_id: t.keyId, generation: t.generation });

    // Assess
    expect(result).toEqual({ outcome: 'deleted' });
    expect(await storedKeyState(t.keyId)).toEqual(before);
    expect(await expiryRecords(t.keyId)).toHaveLength(0);
  });

  it('does nothing when the key was regenerated again (generation mismatch); the newer transition is untouched', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);
    const again = await call('regenerate-api-key', { key: t.team.key, body: { key_id: t.keyId, grace_period_days: 1 } });
    expectStatus(again, 200);
    const before = await storedKeyState(t.keyId);

    // Act
    const result = await invoke({ key_id: t.keyId, generation: t.generation });

    // Assess
    expect(result).toEqual({ outcome: 'superseded', current_generation: 3 });
    expect(await storedKeyState(t.keyId)).toEqual(before);
    expect((await checkValue(t.newValue)).valid).toBe(true);
    expect((await checkValue(again.body.new_key)).valid).toBe(true);
    expect(await expiryRecords(t.keyId)).toHaveLength(0);
  });

  it('does nothing before the transition ends (a long way off: dropped, not thrown)', async () => {
    // Prepare
    const t = await keyInTransition();
    const before = await storedKeyState(t.keyId);

    // Act
    const result = await invoke({ key_id: t.keyId, generation: t.generation });

    // Assess
    expect(result).toEqual({ outcome: 'not_due', transition_ends_at: t.endsAt });
    expect(await storedKeyState(t.keyId)).toEqual(before);
    expect((await checkValue(t.oldValue)).valid).toBe(true);
    expect(await expiryRecords(t.keyId)).toHaveLength(0);
  });

  it('throws when fired just before the end, so that Lambda retries it', async () => {
    // Prepare
    const t = await keyInTransition();
    clock.set(Date.parse(t.endsAt) - NOT_DUE_RETRY_WINDOW_MS / 2);
    const before = await storedKeyState(t.keyId);

    // Act
    const run = invoke({ key_id: t.keyId, generation: t.generation });

    // Assess
    await expect(run).rejects.toBeInstanceOf(ExpiryNotDueError);
    expect(await storedKeyState(t.keyId)).toEqual(before);
    expect(await expiryRecords(t.keyId)).toHaveLength(0);
  });

  it('finds nothing to do for a transition that never committed (schedule made, transaction failed)', async () => {
    // Prepare
    const team = await newTeam();
    const created = await createKey(team);
    clock.advance(2 * MS_PER_DAY);
    const before = await storedKeyState(created.id);

    // Act
    const result = await invoke({ key_id: created.id, generation: 2 });

    // Assess
    expect(result).toEqual({ outcome: 'not_found' });
    expect(await storedKeyState(created.id)).toEqual(before);
    expect(await expiryRecords(created.id)).toHaveLength(0);
  });

  it('finds nothing to do for an unknown key', async () => {
    expect(await invoke({ key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 2 })).toEqual({ outcome: 'not_found' });
  });

  it('finds nothing to do after a regenerate with revoke_immediately', async () => {
    // Prepare
    const team = await newTeam();
    const created = await createKey(team);
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, revoke_immediately: true } }), 200);
    const before = await storedKeyState(created.id);

    // Act
    const result = await invoke({ key_id: created.id, generation: 2 });

    // Assess
    expect(result).toEqual({ outcome: 'already_expired' });
    expect(await storedKeyState(created.id)).toEqual(before);
  });

  it.each([
    ['no body', undefined],
    ['a string', 'expire please'],
    ['a malformed key id', { key_id: 'not-a-ulid', generation: 2 }],
    ['generation 1 (no transition)', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 1 }],
    ['a fractional generation', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 2.5 }],
    ['an unknown field', { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 2, extra: true }],
  ])('drops an invalid event (%s) without throwing', async (_name, event) => {
    captured.clear();
    await expect(invoke(event)).resolves.toEqual({ outcome: 'invalid_event' });
    expect(captured.lines.map((line) => JSON.parse(line.json))).toContainEqual(expect.objectContaining({ level: 'ERROR', message: 'expire event rejected' }));
  });
});

/** A document client that runs `competitor` right before forwarding the first transaction. */
function racingClient(competitor: () => Promise<void>): DynamoDBDocumentClient {
  const real = documentClient();
  let raced = false;
  return new Proxy(real, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: unknown) => {
        if (command instanceof TransactWriteCommand && !raced) {
          raced = true;
          await competitor();
        }
        return (target.send as (command: unknown) => Promise<unknown>)(command);
      };
    },
  });
}

describe('expire handler: races', () => {
  it('lost to a delete between its read and its transaction: reports deleted, no record, tombstone intact', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);
    const db = racingClient(async () => {
      expectStatus(await call('delete-api-key', { key: t.team.key, body: { key_id: t.keyId, confirm_deletion: true } }), 200);
    });

    // Act
    const result = await expireOldValue(servicesWith({ db }), { key_id: t.keyId, generation: t.generation }, 'race-delete');

    // Assess
    expect(result).toEqual({ outcome: 'deleted' });
    const state = await storedKeyState(t.keyId);
    expect(state.key).toMatchObject({ state: 'deleted' });
    expect(state.lookups).toEqual([]);
    expect(await expiryRecords(t.keyId)).toHaveLength(0);
  });

  it('lost to a regenerate between its read and its transaction: reports superseded, the new transition stands', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);
    let third = '';
    const db = racingClient(async () => {
      const response = await call('regenerate-api-key', { key: t.team.key, body: { key_id: t.keyId, grace_period_days: 1 } });
      expectStatus(response, 200);
      third = response.body.new_key;
    });

    // Act
    const result = await expireOldValue(servicesWith({ db }), { key_id: t.keyId, generation: t.generation }, 'race-regen');

    // Assess
    expect(result).toEqual({ outcome: 'superseded', current_generation: 3 });
    const key = await keyItem(t.keyId);
    expect(key).toMatchObject({ generation: 3, previous_hash: hashKeyValue(t.newValue, config.pepper) });
    expect((await checkValue(t.newValue)).valid).toBe(true);
    expect((await checkValue(third)).valid).toBe(true);
    expect(await lookupItemOf(t.oldValue)).toBeUndefined();
    expect(await expiryRecords(t.keyId)).toHaveLength(0);
  });

  it('lost to another run between its read and its transaction: reports already_expired, one record', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);
    const db = racingClient(async () => {
      expect(await invoke({ key_id: t.keyId, generation: t.generation })).toMatchObject({ outcome: 'expired' });
    });

    // Act
    const result = await expireOldValue(servicesWith({ db }), { key_id: t.keyId, generation: t.generation }, 'race-twin');

    // Assess
    expect(result).toEqual({ outcome: 'already_expired' });
    expect(await expiryRecords(t.keyId)).toHaveLength(1);
  });

  it.each([1, 2, 3, 4, 5])('concurrently with a regenerate after the end (round %i): consistent, at most one record', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);

    // Act
    const [expiry, regenerate] = await Promise.all([
      invoke({ key_id: t.keyId, generation: t.generation }),
      call('regenerate-api-key', { key: t.team.key, body: { key_id: t.keyId, grace_period_days: 1 } }),
    ]);

    // Assess
    expectStatus(regenerate, 200);
    expect(['expired', 'superseded']).toContain((expiry as ExpireOldValueOutcome).outcome);
    const records = await expiryRecords(t.keyId);
    expect(records).toHaveLength((expiry as ExpireOldValueOutcome).outcome === 'expired' ? 1 : 0);
    const state = await storedKeyState(t.keyId);
    expect(state.key).toMatchObject({ generation: 3, previous_hash: hashKeyValue(t.newValue, config.pepper) });
    const slots = state.lookups.map((lookup) => lookup.slot).sort();
    expect(slots).toEqual(['current', 'previous']);
    expect(await lookupItemOf(t.oldValue)).toBeUndefined();
    expect((await checkValue(t.newValue)).valid).toBe(true);
    expect((await checkValue(regenerate.body.new_key)).valid).toBe(true);
  });

  it.each([1, 2, 3, 4, 5])('concurrently with a delete (round %i): consistent, at most one record', async () => {
    // Prepare
    const t = await keyInTransition();
    passTheEnd(t);

    // Act
    const [expiry, deletion] = await Promise.all([
      invoke({ key_id: t.keyId, generation: t.generation }),
      call('delete-api-key', { key: t.team.key, body: { key_id: t.keyId, confirm_deletion: true } }),
    ]);

    // Assess
    expectStatus(deletion, 200);
    expect(['expired', 'deleted']).toContain((expiry as ExpireOldValueOutcome).outcome);
    expect(await expiryRecords(t.keyId)).toHaveLength((expiry as ExpireOldValueOutcome).outcome === 'expired' ? 1 : 0);
    const state = await storedKeyState(t.keyId);
    expect(state.key).toMatchObject({ state: 'deleted' });
    for (const field of ['current_hash', 'previous_hash']) expect({ field, value: state.key?.[field] }).toEqual({ field, value: undefined });
    expect(state.lookups).toEqual([]);
    expect(await auditRecordsOfType(t.keyId, 'key.deleted')).toHaveLength(1);
  });
});
