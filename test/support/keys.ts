/**
 * Generic helpers for tests about a key's life: the clock, status checks
 * whose failure message shows the whole response, verification of a value
 * without going through an endpoint, a snapshot of everything the key
 * table stores about one key, and a key written without a request.
 */
import { randomUUID } from 'node:crypto';
import { testClock, testServices } from './services';
import { ManualClock, systemClock, type Clock } from '../../lambda/platform/clock';
import { offsetIntoHour } from './hour-clock';
import { checkKey, verifyKey, type CheckResult, type VerifyRequest, type VerifyResult } from '../../lambda/verification/verify';
import { call, createKey, newTeam, type CallResult, type TestTeam } from './api';
import { keyItem, lookupItemsForKey, usageItem } from './store';
import { hashKeyValue } from '../../lambda/domain/key-values';
import { config } from '../../lambda/composition/config';
import type { NewKeySpec } from '../../lambda/use-cases/create-key';
import type { AuditActor } from '../../lambda/domain/audit-events';

/** Scopes of a key that can itself call the management endpoints. */
export const MANAGER_SCOPES = ['keys.manage', 'enc.*:read'];

/** A 26-character ULID that no key has (well-formed, so it passes validation). */
export const UNKNOWN_KEY_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

/**
 * Installs a ManualClock as the clock every handler uses, starting at the
 * current real time (stored TTLs derive from it, so it must not run behind
 * the real clock: DynamoDB Local removes TTL-expired items).
 * Pair with `restoreSystemClock()` in `afterEach`.
 */
export function installManualClock(start: number = Date.now()): ManualClock {
  const clock = new ManualClock(start);
  testClock.use(clock);
  return clock;
}

/**
 * A fresh ManualClock for every test of the calling file (installed before
 * each, the system clock restored after); returns a getter for the current one.
 */
export function manualClockPerTest(): () => ManualClock {
  let clock: ManualClock | undefined;
  beforeEach(() => {
    clock = installManualClock();
  });
  afterEach(() => {
    restoreSystemClock();
  });
  return () => {
    if (!clock) throw new Error('manualClockPerTest: read the clock inside a test');
    return clock;
  };
}

/**
 * Installs a clock running at the real rate, moved forward when needed so
 * that the next 10 minutes stay inside one clock hour, where an hourly rate
 * limit is exact (`offsetIntoHour`, test/support/hour-clock.ts). Pair
 * with `restoreSystemClock()` in `afterEach`.
 */
export function installClockInHour(): Clock {
  const offset = offsetIntoHour();
  const clock: Clock = { now: () => new Date(Date.now() + offset) };
  testClock.use(clock);
  return clock;
}

/** A team and one of its manager keys that will also be the caller, so its usage item shows whether a request was metered. */
export async function selfManagingKey(): Promise<{ team: TestTeam; key: Awaited<ReturnType<typeof createKey>> }> {
  const team = await newTeam();
  const key = await createKey(team, { scopes: MANAGER_SCOPES });
  return { team, key };
}

export function restoreSystemClock(): void {
  testClock.use(systemClock);
}

/** Fails with the received status and body unless the response has `status`. */
export function expectStatus(response: CallResult, status: number): void {
  if (response.status !== status) {
    throw new Error(`expected HTTP ${status}, received ${response.status}: ${JSON.stringify(response.body)}`);
  }
}

/** A key regenerated with a grace period: both values and the transition's end. */
export interface KeyInTransition {
  team: TestTeam;
  keyId: string;
  oldValue: string;
  newValue: string;
  generation: number;
  /** `transition_ends_at` as the API answered it. */
  endsAt: string;
  /** The regenerate answer itself. */
  response: CallResult;
}

/** A key of `team` (a new team by default) regenerated with `graceDays`, at the clock's time. */
export async function keyInTransition(options: { team?: TestTeam; graceDays?: number; name?: string; scopes?: string[] } = {}): Promise<KeyInTransition> {
  const team = options.team ?? (await newTeam());
  const created = await createKey(team, { name: options.name ?? 'Rotating key', ...(options.scopes ? { scopes: options.scopes } : {}) });
  const response = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, grace_period_days: options.graceDays ?? 1 } });
  expectStatus(response, 200);
  return {
    team,
    keyId: created.id,
    oldValue: created.key,
    newValue: response.body.new_key,
    generation: 2,
    endsAt: response.body.key_info.transition_ends_at,
    response,
  };
}

/** The values and their peppered hashes: what must never be found at rest. */
export function valuesAndHashes(...values: string[]): string[] {
  return [...values, ...values.map((value) => hashKeyValue(value, config.pepper))];
}

/** Read-only verification of a value (writes no usage). */
export function checkValue(value: string, request: Omit<VerifyRequest, 'value'> = {}): Promise<CheckResult> {
  return checkKey(testServices(), { value, ...request });
}

/** Full verification of a value: an authenticated use, recorded in the key's usage. */
export function useValue(value: string, request: Omit<VerifyRequest, 'value'> = {}): Promise<VerifyResult> {
  return verifyKey(testServices(), { value, ...request });
}

/** Uses a value `times` times, one after the other; fails unless every use is valid. */
export async function useValueTimes(value: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const result = await useValue(value);
    if (!result.valid) throw new Error(`use ${i + 1} of ${times} was refused: ${JSON.stringify(result)}`);
  }
}

/** The sorted own keys of an object, for exact key-set assertions. */
export function keysOf(value: unknown): string[] {
  return Object.keys(value as object).sort();
}

export interface StoredKeyState {
  key: Record<string, unknown> | undefined;
  /** Value lookups of the key, sorted by pk. */
  lookups: Record<string, unknown>[];
  usage: Record<string, unknown> | undefined;
}

/**
 * A refused request by the key itself changed nothing but the key's own
 * usage: exactly one more use, no other field of the key, no lookup.
 */
export function expectOnlyOneUse(before: StoredKeyState, after: StoredKeyState): void {
  const total = (state: StoredKeyState) => Number(state.usage?.total_requests ?? 0);
  expect({ key: after.key, lookups: after.lookups, uses: total(after) }).toEqual({
    key: before.key,
    lookups: before.lookups,
    uses: total(before) + 1,
  });
}

/** Everything the key table holds about one key (key item, value lookups, usage item). */
export async function storedKeyState(keyId: string): Promise<StoredKeyState> {
  const [key, lookups, usage] = await Promise.all([keyItem(keyId), lookupItemsForKey(keyId), usageItem(keyId)]);
  lookups.sort((a, b) => String(a.pk).localeCompare(String(b.pk)));
  return { key, lookups, usage };
}

/** The fields of the key resource get-api-key and list-api-keys answer (never a value or a hash), sorted. */
export const KEY_RESOURCE_FIELDS = [
  'created_at',
  'created_by',
  'description',
  'domains',
  'environment',
  'expires_at',
  'id',
  'ip_whitelist',
  'is_active',
  'key_prefix',
  'last_four',
  'last_used_at',
  'name',
  'on_leak',
  'rate_limit',
  'scopes',
  'state',
  'team_id',
  'transition_ends_at',
  'type',
  'updated_at',
].sort();

/**
 * What `createKeyRecord` takes to write a live `sk` key of `teamId` made by
 * `userId` outside any request (as the bootstrap command does: no calling
 * key, no scope check): the spec, with the given name, scopes and rate
 * limit, and that user as the actor.
 */
export function directKeyWrite(
  teamId: string,
  userId: string,
  given: Pick<NewKeySpec, 'name' | 'scopes' | 'rate_limit'>,
): { spec: NewKeySpec; actor: AuditActor } {
  return {
    spec: {
      ...given,
      type: 'sk',
      environment: 'live',
      team_id: teamId,
      domains: [],
      ip_whitelist: [],
      expires_at: null,
      description: '',
      on_leak: 'disable',
      created_by: userId,
    },
    actor: { user_id: userId, key_id: null, source_ip: null, user_agent: null, request_id: randomUUID() },
  };
}
