/** `npm run cost`'s rows of metered verifications (docs/limits.md): the verify endpoint and the platform authorizer. */
import { priced, say, type Row } from './cost-model';
import type { templateFacts } from './cost-meters';

type Functions = ReturnType<typeof templateFacts>['functions'];
/** `n` calls (so many in flight), and what they spent (cost.ts `meterOf`). */
type Measure = (n: number, call: () => Promise<unknown>, inFlight?: number) => Promise<Parameters<typeof priced>[1]>;

/** Three named limits and credits that never run out in the run: what a metered verification writes, whatever it admits. */
const METERED = {
  limits: [
    { name: 'burst', limit: 1_000_000, window_seconds: 1 },
    { name: 'hour', limit: 1_000_000_000, window_seconds: 3600 },
    { name: 'month', limit: 1_000_000_000, window_seconds: 2_592_000 },
  ],
  credits: { remaining: 1_000_000_000 },
};

/**
 * Verify and the platform authorizer of a metered key (docs/limits.md): its
 * own three named limits and credits (one conditional write a call), and a
 * key whose identity holds them (a transaction of both meters, 8 in flight:
 * a read of them for the answer's figures, since concurrent writes are not
 * exact, store/admission-writes.ts); new keys of an identity, each verified
 * once, one at a time (an exact transaction: no read after it); and hot keys, leases on, 32 in flight,
 * with their own limits and credits and with their identity's (leased
 * blocks, domain/meter-lease.ts: mostly no write). The authorizer runs with
 * leases on throughout.
 */
export async function meteredRows(
  functions: Functions,
  measure: Measure,
  /** One verification (the verify endpoint) and one authorization (the platform authorizer, leases on) of a value. */
  calls: {
    verify: (value: string) => () => Promise<unknown>;
    verifyHot: (value: string) => () => Promise<unknown>;
    authorize: (value: string) => () => Promise<unknown>;
  },
  newKey: (name: string, extra?: Record<string, unknown>) => Promise<{ id: string; key: string }>,
  newIdentity: (extra: Record<string, unknown>) => Promise<string>,
): Promise<Row[]> {
  say('cost: verify and the platform authorizer, metered keys …');
  const rows: Row[] = [];
  const own = await newKey('Metered key', METERED);
  const viaIdentity = await newKey('Identity key', { identity_id: await newIdentity(METERED) });
  for (const [kind, key] of [
    ['metered', own],
    ['metered-identity', viaIdentity],
  ] as const) {
    const verify = calls.verify(key.key);
    await measure(20, verify, 4); // warm: the identity read, the meters seen
    const spent = await measure(200, verify, 8);
    for (const door of ['rest-api', 'http-api', 'function-url'] as const) {
      rows.push(priced(functions['verify-api-key'], spent, { operation: 'verify-api-key', door, invocations: 1, key: kind }));
    }
    const authorizeMetered = calls.authorize(key.key);
    await measure(20, authorizeMetered, 4);
    const authorized = await measure(200, authorizeMetered, 8);
    rows.push(priced(functions['platform-authorizer'], authorized, { operation: 'platform-authorizer', door: 'platform-api', invocations: 1, key: kind }));
  }
  rows.push(...(await firstVerifications(functions, measure, calls.verify, newKey, newIdentity)));
  for (const [kind, hot] of [
    ['metered-hot', await newKey('Hot metered key', METERED)],
    ['metered-identity-hot', await newKey('Hot identity key', { identity_id: await newIdentity(METERED) })],
  ] as const) {
    const verifyHot = calls.verifyHot(hot.key);
    await measure(500, verifyHot, 32); // warm: the key becomes hot, its blocks grow
    const spentHot = await measure(2_000, verifyHot, 32);
    for (const door of ['rest-api', 'http-api', 'function-url'] as const) {
      rows.push(priced(functions['verify-api-key'], spentHot, { operation: 'verify-api-key', door, invocations: 1, key: kind }));
    }
  }
  return rows;
}

/** Keys made for the `metered-identity-first` row (each verified once), one every 120 ms: the write routes' throttle is 10 a second. */
const FIRST_KEYS = 41;
const KEY_PACE_MS = 120;

/** Each call the first verification of a new key of one identity this process verified: one read of the value, one exact transaction. */
async function firstVerifications(
  functions: Functions,
  measure: Measure,
  verify: (value: string) => () => Promise<unknown>,
  newKey: (name: string, extra?: Record<string, unknown>) => Promise<{ id: string; key: string }>,
  newIdentity: (extra: Record<string, unknown>) => Promise<string>,
): Promise<Row[]> {
  const identityId = await newIdentity(METERED);
  const keys: string[] = [];
  for (let i = 0; i < FIRST_KEYS; i++) {
    keys.push((await newKey(`First key ${i}`, { identity_id: identityId })).key);
    await new Promise((resolve) => setTimeout(resolve, KEY_PACE_MS));
  }
  await measure(10, verify(keys.pop() as string)); // warm: the identity read, its meter seen
  const spent = await measure(keys.length, () => verify(keys.pop() as string)());
  return (['rest-api', 'http-api', 'function-url'] as const).map((door) =>
    priced(functions['verify-api-key'], spent, { operation: 'verify-api-key', door, invocations: 1, key: 'metered-identity-first' }),
  );
}
