/**
 * Hot keys: one key verified from 32 concurrent workers spread over four
 * verify handler instances, each with services of its own (its own DynamoDB
 * client, usage store and leases: what four Lambda execution environments
 * hold), against the shared DynamoDB Local.
 *
 * Shown: the key's usage item is not written once per verification (≤ 0.1
 * writes per verification), no window admits more than `rate_limit` across
 * the instances, every use is counted once the instances have flushed, and
 * `last_used_at` is at most the flush interval behind.
 *
 * Design and arithmetic: docs/performance.md, "Hot keys".
 */
import { makeHandler } from '../../lambda/routes/verify-api-key/handler';
import type { Services } from '../../lambda/composition/services';
import { DEFAULT_LEASE_SETTINGS } from '../../lambda/domain/usage-lease';
import { call, createKey, newTeam } from '../support/api';
import { servicesWith } from '../support/services';
import { expectStatus, installClockInHour, installManualClock, restoreSystemClock } from '../support/keys';
import { getItem, usageItem } from '../support/store';
import { callVerify, countingDocumentClient, type CountedRequest } from './helpers';
import { USAGE } from '../../lambda/store/entities/usage';
import { loadCount, shown } from '../support/load';

const INSTANCES = 4;
const WORKERS_PER_INSTANCE = 8;
/**
 * The first test's verifications, and the second test's rate_limit (verified three times over): 1,000 and 300 in CI's
 * long run. The first never below 500: the instances' first blocks cost about 25 writes whatever the traffic, so fewer
 * verifications would measure the warm-up, not the lease.
 */
const HOT_VERIFICATIONS = loadCount(1_000, 500);
const LIMITED = loadCount(300);

interface Instance {
  services: Services;
  handler: ReturnType<typeof makeHandler>;
  requests: CountedRequest[];
  destroy(): void;
}

function startInstances(): Instance[] {
  return Array.from({ length: INSTANCES }, () => {
    const counting = countingDocumentClient();
    const services = servicesWith({ db: counting.db });
    return { services, handler: makeHandler(() => services), requests: counting.requests, destroy: counting.destroy };
  });
}

/** `total` verifications of `value` from 32 workers (8 per instance) taking the next attempt from one shared counter. */
async function hammer(instances: Instance[], value: string, total: number): Promise<{ codes: Map<string, number>; lastAt: number }> {
  const codes = new Map<string, number>();
  let next = 0;
  let lastAt = 0;
  const worker = async (instance: Instance) => {
    while (next < total) {
      next += 1;
      const response = await callVerify({ key: value }, { handler: instance.handler, sourceIp: '10.9.9.9' });
      const code = String(response.body.code ?? response.status);
      codes.set(code, (codes.get(code) ?? 0) + 1);
      lastAt = Date.now();
    }
  };
  await Promise.all(instances.flatMap((instance) => Array.from({ length: WORKERS_PER_INSTANCE }, () => worker(instance))));
  return { codes, lastAt };
}

function usageWrites(instances: Instance[]): number {
  return instances.reduce((sum, instance) => sum + instance.requests.filter((request) => request.command === 'UpdateItemCommand').length, 0);
}

describe('hot keys: leased capacity across handler instances', () => {
  let instances: Instance[] = [];
  afterEach(() => {
    restoreSystemClock();
    for (const instance of instances) instance.destroy();
    instances = [];
  });

  it(`${shown(HOT_VERIFICATIONS)} verifications from 32 workers in 4 instances: ≤ 0.1 usage writes per verification, exact totals after a flush, last_used_at at most the flush interval behind`, async () => {
    // Prepare
    const team = await newTeam();
    const key = await createKey(team, { rate_limit: 1_000_000 });
    instances = startInstances();

    // Act
    const { codes, lastAt } = await hammer(instances, key.key, HOT_VERIFICATIONS);
    const writes = usageWrites(instances);
    const unflushed = await getItem(USAGE.key(key.id));
    for (const instance of instances) await instance.services.usage.flushPending();
    const flushed = await usageItem(key.id);

    // Assess
    process.stdout.write(`hot keys: ${writes} usage writes for ${shown(HOT_VERIFICATIONS)} verifications (${(writes / HOT_VERIFICATIONS).toFixed(3)} each)\n`);
    expect(Object.fromEntries(codes)).toEqual({ VALID: HOT_VERIFICATIONS });
    expect(writes / HOT_VERIFICATIONS).toBeLessThanOrEqual(0.1);
    expect(Date.parse(String(unflushed?.last_used_at))).toBeGreaterThanOrEqual(lastAt - DEFAULT_LEASE_SETTINGS.flushAfterMs - 250);
    expect(flushed).toMatchObject({ total_requests: HOT_VERIFICATIONS });
    expect(Object.values(flushed?.daily as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(HOT_VERIFICATIONS);
    // Every use VALID, admitted from the leases' blocks: the last of them is the last VALID use too.
    expect(flushed?.last_valid_at).toBe(flushed?.last_used_at);
  });

  it(`a key with rate_limit ${shown(LIMITED)} verified ${shown(3 * LIMITED)} times from 32 workers in 4 instances: never more than ${shown(LIMITED)} admitted in the window, every use counted`, async () => {
    // Prepare: the run inside one clock hour (a block leased before the hour turns and not used counts in that hour)
    installClockInHour();
    const team = await newTeam();
    const key = await createKey(team, { rate_limit: LIMITED });
    instances = startInstances();

    // Act
    const { codes } = await hammer(instances, key.key, 3 * LIMITED);
    for (const instance of instances) await instance.services.usage.flushPending();
    const item = await usageItem(key.id);

    // Assess
    const admitted = codes.get('VALID') ?? 0;
    process.stdout.write(`hot keys: ${admitted} of ${3 * LIMITED} admitted under rate_limit ${LIMITED}\n`);
    expect(admitted + (codes.get('RATE_LIMITED') ?? 0)).toBe(3 * LIMITED);
    expect(admitted).toBeLessThanOrEqual(LIMITED);
    // Slots leased and not used are the cost of leases: a few, near the limit.
    expect(admitted).toBeGreaterThanOrEqual(0.9 * LIMITED);
    const windows = Object.values(item?.windows as Record<string, number>);
    expect(Math.max(...windows)).toBeLessThanOrEqual(LIMITED);
    expect(item).toMatchObject({ total_requests: 3 * LIMITED });
    // The last VALID use is one of the admitted ones: never after the last use, and set although most of the last uses were refused.
    expect(Date.parse(String(item?.last_valid_at))).toBeLessThanOrEqual(Date.parse(String(item?.last_used_at)));
  });

  it('at low rates nothing changes: one verification a second writes its own use at once, and the item is exact without a flush', async () => {
    // Prepare
    const clock = installManualClock();
    const team = await newTeam();
    const key = await createKey(team, { rate_limit: 1_000 });
    instances = startInstances().slice(0, 1);
    const [instance] = instances;

    // Act
    const seen: unknown[] = [];
    for (let i = 1; i <= 5; i++) {
      expectStatus(await callVerify({ key: key.key }, { handler: instance.handler }), 200);
      const item = await getItem(USAGE.key(key.id));
      seen.push({ total: item?.total_requests, last: item?.last_used_at });
      clock.advance(1_000);
    }

    // Assess
    expect(usageWrites(instances)).toBe(5);
    expect(seen).toEqual([1, 2, 3, 4, 5].map((n) => ({ total: n, last: new Date(clock.now().getTime() - (6 - n) * 1_000).toISOString() })));
  });

  it('a rate_limit raised while this process remembers the window full admits at once: the remembered refusal was for the old limit', async () => {
    // Prepare: limit 2 spent, and a third verification refused (the process now refuses from memory)
    const team = await newTeam();
    const key = await createKey(team, { rate_limit: 2 });
    instances = startInstances().slice(0, 1);
    const [instance] = instances;
    const before = [];
    for (let i = 0; i < 3; i++) before.push((await callVerify({ key: key.key }, { handler: instance.handler })).body.code);
    expect(before).toEqual(['VALID', 'VALID', 'RATE_LIMITED']);

    // Act
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: key.id, rate_limit: 5 } }), 200);
    const after = [];
    for (let i = 0; i < 4; i++) {
      const response = await callVerify({ key: key.key }, { handler: instance.handler });
      after.push([response.body.code, response.body.ratelimit?.limit, response.body.ratelimit?.remaining]);
    }

    // Assess: 2 of 5 were spent; 3 more are admitted, then the fourth is refused
    expect(after).toEqual([
      ['VALID', 5, 2],
      ['VALID', 5, 1],
      ['VALID', 5, 0],
      ['RATE_LIMITED', 5, 0],
    ]);
  });

  it('a rate_limit lowered while this process holds leased slots takes effect at once: the slots were leased under the old limit', async () => {
    // Prepare: a hot key, so the process leases blocks of slots
    const team = await newTeam();
    const key = await createKey(team, { rate_limit: 1_000_000 });
    instances = startInstances().slice(0, 1);
    const { codes } = await hammer(instances, key.key, 400);
    const admitted = codes.get('VALID') ?? 0;
    const item = await usageItem(key.id);
    const taken = Math.max(...Object.values(item?.windows as Record<string, number>));
    // Slots are leased and unused: the process could admit more from memory.
    expect(taken).toBeGreaterThan(admitted);

    // Act
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: key.id, rate_limit: 10 } }), 200);
    const response = await callVerify({ key: key.key }, { handler: instances[0]!.handler, sourceIp: '10.9.9.9' });

    // Assess
    expect(response.body).toMatchObject({ valid: false, code: 'RATE_LIMITED', ratelimit: { limit: 10, remaining: 0 } });
  });

  it('leases off: every verification writes (the baseline the first test is measured against)', async () => {
    // Prepare
    const team = await newTeam();
    const key = await createKey(team, { rate_limit: 1_000_000 });
    const counting = countingDocumentClient();
    const services = servicesWith({ db: counting.db, usageLeases: { enabled: false } });
    instances = [{ services, handler: makeHandler(() => services), requests: counting.requests, destroy: counting.destroy }];

    // Act
    await hammer(instances, key.key, 200);

    // Assess
    expect(usageWrites(instances)).toBe(200);
    expect(await usageItem(key.id)).toMatchObject({ total_requests: 200 });
  });
});
