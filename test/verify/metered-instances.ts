/**
 * Store instances of metered admissions for the hot-key suites: what two
 * Lambda execution environments hold (each its own DynamoDB client, its
 * own leases) against the shared DynamoDB Local, on an injected clock,
 * with every request each one sends counted.
 */
import { MeteredUses, type MeteredUse } from '../../lambda/store/metered-use';
import { UsageMonths } from '../../lambda/store/usage-months';
import { DEFAULT_LEASE_SETTINGS, type LeaseSettings } from '../../lambda/domain/usage-lease';
import { tablesOf } from '../../lambda/composition/wiring';
import { config } from '../../lambda/composition/config';
import type { ManualClock } from '../../lambda/platform/clock';
import type { RecordUseResult } from '../../lambda/domain/recording';
import type { MeterInput } from '../../lambda/domain/meters';
import { countingDocumentClient, type CountedRequest } from './helpers';
import { restoreSystemClock } from '../support/keys';
import { loadCount } from '../support/load';

/** The suites' start instant (the injected clock's). */
export const START = Date.parse('2026-12-01T00:00:00Z');

/** Three named limits and credits, large beside the suites' traffic. */
export const HOT: MeterInput = {
  limits: [
    { name: 'burst', limit: 1_000_000, window_seconds: 60 },
    { name: 'hourly-tiles', limit: 10_000_000, window_seconds: 3_600 },
    { name: 'daily', limit: 100_000_000, window_seconds: 86_400 },
  ],
  credits: { remaining: 10_000_000, refill: null },
};

/**
 * The suites' counts (test/support/load.ts): the hot test's warm-up and verifications (2,000 and 20,000 in CI's long
 * run), and the attempts on 30 credits (200; never below 60, twice the credits).
 */
export const WARM_UP = loadCount(2_000);
export const HOT_USES = loadCount(20_000);
export const ATTEMPTS = loadCount(200, 60);

export interface Instance {
  meters: MeteredUses;
  requests: CountedRequest[];
  destroy(): void;
}

export function meteredInstances(count: number, clock: ManualClock, settings: LeaseSettings = DEFAULT_LEASE_SETTINGS): Instance[] {
  return Array.from({ length: count }, () => {
    const counting = countingDocumentClient();
    const tables = tablesOf(counting.db, config);
    return { meters: new MeteredUses(tables, new UsageMonths(tables), clock, settings), requests: counting.requests, destroy: counting.destroy };
  });
}

/** Writes the instances sent (UpdateItem and TransactWriteItems). */
export const meterWrites = (all: Instance[]): number =>
  all.reduce((sum, i) => sum + i.requests.filter((r) => r.command === 'UpdateItemCommand' || r.command === 'TransactWriteItemsCommand').length, 0);

/** Every request the instances sent. */
export const meterRequests = (all: Instance[]): number => all.reduce((sum, i) => sum + i.requests.length, 0);

/** `total` admissions from 8 workers per instance, each taking the next from one counter; the clock moves 1 ms per admission. */
export async function hammer(all: Instance[], use: () => MeteredUse, total: number, clock: ManualClock): Promise<RecordUseResult[]> {
  const results: RecordUseResult[] = [];
  let next = 0;
  const worker = async (instance: Instance) => {
    while (next < total) {
      next += 1;
      clock.advance(1);
      results.push(await instance.meters.admit(use()));
    }
  };
  await Promise.all(all.flatMap((instance) => Array.from({ length: 8 }, () => worker(instance))));
  return results;
}

/** Makes a test's instances; after each test they are destroyed and the system clock is back. */
export function instancesPerTest(): (count: number, clock: ManualClock, settings?: LeaseSettings) => Instance[] {
  let made: Instance[] = [];
  afterEach(() => {
    restoreSystemClock();
    for (const instance of made) instance.destroy();
    made = [];
  });
  return (count, clock, settings) => (made = meteredInstances(count, clock, settings));
}

/** The uses of a key at the clock's time, as verify hands them to the store: no scope asked, cost 1, an hourly limit of 1,000,000. */
export function usesOf(keyId: string, teamId: string, clock: ManualClock, meters: Pick<MeteredUse, 'keyDef' | 'identity'>): () => MeteredUse {
  return () => ({ keyId, at: clock.now(), rateLimit: 1_000_000, scopes: [], cost: 1, teamId, ...meters });
}
