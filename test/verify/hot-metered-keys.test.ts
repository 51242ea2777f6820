/**
 * Hot metered keys (domain/meter-lease.ts, docs/limits.md "Hot keys"): the
 * admissions of a key with named limits and credits, from two store
 * instances (what two Lambda execution environments hold, each with its own
 * DynamoDB client and leases) against the shared DynamoDB Local, on an
 * injected clock.
 *
 * Shown: with three named limits and credits large beside the traffic, a
 * warm key takes ≤ 0.01 writes per verification; nothing is ever admitted
 * beyond a limit or the balance; what leases took and did not use comes
 * back at shutdown (releaseAll), so the stored figures end exact; a read
 * never subtracts what a lease holds unspent; a block admits nothing after
 * `holdMs` (a sandbox that froze), and its holding is then given back once
 * by its holder, or dropped by the others' writes, never both.
 */
import { DEFAULT_LEASE_SETTINGS } from '../../lambda/domain/usage-lease';
import { meterDefOfInput, creditsRemaining, meterViewOf, type MeterInput } from '../../lambda/domain/meters';
import { call, createKey, teamPerSuite } from '../support/api';
import { installManualClock } from '../support/keys';
import type { ManualClock } from '../../lambda/platform/clock';
import { usageItem } from '../support/store';
import { ATTEMPTS, HOT, HOT_USES, START, WARM_UP, hammer, instancesPerTest, usesOf, meterWrites as writes, type Instance } from './metered-instances';
import { shown } from '../support/load';

describe('hot metered keys: leased blocks of limits and credits', () => {
  const team = teamPerSuite();
  const instances = instancesPerTest();

  async function meteredKey(input: MeterInput, clock: ManualClock) {
    const key = await createKey(team, { ...input, rate_limit: 1_000_000 });
    return { key, use: usesOf(key.id, team.teamId, clock, { keyDef: meterDefOfInput(input) }) };
  }

  it(`three named limits and credits, ${shown(HOT_USES)} verifications from two instances: ≤ 0.01 writes each once warm, and every figure exact after releaseAll`, async () => {
    // Prepare: a warm-up grows the blocks
    const clock = installManualClock(START);
    const { key, use } = await meteredKey(HOT, clock);
    const all = instances(2, clock);
    await hammer(all, use, WARM_UP, clock);
    const warm = writes(all);

    // Act
    const results = await hammer(all, use, HOT_USES, clock);
    const hot = writes(all) - warm;
    for (const instance of all) await instance.meters.releaseAll();
    const item = await usageItem(key.id);

    // Assess
    process.stdout.write(
      `hot metered keys: ${hot} writes for ${shown(HOT_USES)} verifications (${(hot / HOT_USES).toFixed(4)} each), ${warm} while warming up\n`,
    );
    expect(results.every((result) => result.admitted)).toBe(true);
    expect(hot / HOT_USES).toBeLessThanOrEqual(0.01);
    expect(item).toMatchObject({ total_requests: WARM_UP + HOT_USES, cr_left: 10_000_000 - WARM_UP - HOT_USES, cr_h: {} });
    const counters = Object.entries(item ?? {}).filter(([name]) => name.startsWith('lw:'));
    expect(counters.map(([name, count]) => [name.split(':')[1], count]).sort()).toEqual([
      ['burst', WARM_UP + HOT_USES],
      ['daily', WARM_UP + HOT_USES],
      ['hourly-tiles', WARM_UP + HOT_USES],
    ]);
  });

  it(`30 credits under ${shown(ATTEMPTS)} attempts from two instances: never more than 30 admitted, and what a lease held comes back at shutdown`, async () => {
    // Prepare
    const clock = installManualClock(START);
    const { key, use } = await meteredKey({ limits: [{ name: 'minute', limit: 1_000, window_seconds: 60 }], credits: { remaining: 30 } }, clock);
    const all = instances(2, clock);

    // Act
    const results = await hammer(all, use, ATTEMPTS, clock);
    for (const instance of all) await instance.meters.releaseAll();
    const item = await usageItem(key.id);

    // Assess
    const admitted = results.filter((result) => result.admitted).length;
    expect(admitted).toBeLessThanOrEqual(30);
    expect(results.filter((result) => !result.admitted && result.reason === 'USAGE_EXCEEDED')).toHaveLength(ATTEMPTS - admitted);
    expect(item).toMatchObject({
      total_requests: ATTEMPTS,
      cr_left: 30 - admitted,
      cr_h: {},
      [`lw:minute:60:${Math.floor(clock.now().getTime() / 60_000)}`]: admitted,
    });
  });

  it('a block admits nothing after holdMs (a sandbox that froze); reads then stop counting its holding; its holder gives it back once, never after the others dropped it', async () => {
    // Prepare: four verifications one after the other take blocks of 1, 2 (one used from memory) and 4, then the sandbox freezes
    const clock = installManualClock(START);
    const { key, use } = await meteredKey({ credits: { remaining: 1_000 } }, clock);
    const all = instances(2, clock);
    const [frozen, other] = all as [Instance, Instance];
    for (let i = 0; i < 4; i++) await frozen.meters.admit(use());
    const taking = (await usageItem(key.id)) as Record<string, unknown>;
    const [[frozenId, { n: held }]] = Object.entries(taking.cr_h as Record<string, { n: number }>) as [[string, { n: number }]];
    const readHeld = await call('get-api-key', { key: team.key, query: { key_id: key.id } });

    // Act: past holdMs, the frozen block's holding no longer counts; past twice holdMs, another instance's writes drop it
    // (its first learns the meter, its second takes a block of 2 and drops the holding)
    clock.advance(DEFAULT_LEASE_SETTINGS.holdMs);
    const readAfter = await call('get-api-key', { key: team.key, query: { key_id: key.id } });
    clock.advance(DEFAULT_LEASE_SETTINGS.holdMs + 1);
    await other.meters.admit(use());
    await other.meters.admit(use());
    const dropped = (await usageItem(key.id)) as Record<string, unknown>;
    await frozen.meters.releaseAll();
    const final = (await usageItem(key.id)) as Record<string, unknown>;

    // Assess
    expect(held).toBe(3);
    expect(readHeld.body.data.credits.remaining).toBe(1_000 - 4);
    expect(readAfter.body.data.credits.remaining).toBe(1_000 - 4 - 3);
    expect(Object.keys(dropped.cr_h as object)).not.toContain(frozenId);
    // The frozen holder's give-back finds its holding gone: nothing comes back twice. 6 admitted, 3 forfeited.
    expect(final.cr_left).toBe(dropped.cr_left);
    expect(creditsRemaining(meterViewOf(final).credits!, { refill: null }, clock.now())).toBe(1_000 - 6 - 3);
  });

  it('a frozen holder that runs again before its holding is dropped gives back exactly what it did not use', async () => {
    // Prepare
    const clock = installManualClock(START);
    const { key, use } = await meteredKey({ credits: { remaining: 1_000 } }, clock);
    const all = instances(1, clock);
    const [holder] = all as [Instance];
    for (let i = 0; i < 4; i++) await holder.meters.admit(use());

    // Act: it thaws after holdMs: its next verification gives the block's 3 unused back and takes a new one
    clock.advance(DEFAULT_LEASE_SETTINGS.holdMs + 1);
    const again = await holder.meters.admit(use());
    await holder.meters.releaseAll();
    const item = await usageItem(key.id);

    // Assess
    expect(again.admitted).toBe(true);
    expect(item).toMatchObject({ total_requests: 5, cr_left: 995, cr_h: {} });
  });
});
