/**
 * How verifications are counted (docs/analytics.md): in memory, written as
 * minute records when the oldest count is 20 s old, exactly once even when a
 * write fails half-way, and what a process that dies loses is what it held.
 * Hot keys: 32 workers over two verify handler instances with leases; the
 * counts equal the admissions the limiter recorded, and counting adds no
 * write per verification.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { makeHandler } from '../../lambda/routes/verify-api-key/handler';
import type { Services } from '../../lambda/composition/services';
import { tablesOf } from '../../lambda/composition/wiring';
import { config } from '../../lambda/composition/config';
import { documentClient } from '../../lambda/composition/dynamo';
import { ManualClock } from '../../lambda/platform/clock';
import { VerificationCounts } from '../../lambda/store/verification-counts';
import { VerificationAnalytics } from '../../lambda/store/verification-analytics';
import { entryName, type CountedVerification } from '../../lambda/domain/verification-tally';
import { createKey, newTeam } from '../support/api';
import { servicesWith } from '../support/services';
import { installManualClock, restoreSystemClock } from '../support/keys';
import { usageItem } from '../support/store';
import { callVerify, countingDocumentClient, type CountedRequest } from '../verify/helpers';
import { loadCount, shown } from '../support/load';

/** The hot-key test's verifications and rate_limit: 2,000 and 1,500 in CI's long run (`LOAD_SCALE=1`). */
const VERIFICATIONS = loadCount(2_000);
const LIMIT = loadCount(1_500);

const T0 = Date.parse('2026-11-29T15:00:10Z');
const tables = () => tablesOf(documentClient(), config);
const counted = (teamId: string, outcome: CountedVerification['outcome'] = 'VALID'): CountedVerification => ({
  teamId,
  keyId: '01JDQ4W1V8T6Y3M2K9P0RS5XYZ',
  identityId: '',
  scope: '',
  outcome,
});

/** The team's counts of minute `minute`, by entry name. */
async function minuteCounts(teamId: string, minute: number): Promise<Record<string, number>> {
  return (await new VerificationAnalytics(tables()).minutes(teamId, minute, minute)).get(minute) ?? {};
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('verification counts in a process', () => {
  it('nothing is written before the oldest count is 20 s old; the next count after that writes the batch (the new count starts the next one)', async () => {
    // Prepare
    const clock = new ManualClock(T0);
    const counts = new VerificationCounts(tables(), clock);
    const team = crypto.randomUUID();

    // Act
    for (let i = 0; i < 5; i++) counts.count(counted(team));
    clock.advance(19_000);
    counts.count(counted(team));
    await settled();
    const before = await minuteCounts(team, Date.parse('2026-11-29T15:00:00Z'));
    clock.advance(1_000);
    counts.count(counted(team, 'SCOPE_DENIED'));
    // The batch goes out in the background: read until it is there (a busy machine may take more than a moment).
    let after = await minuteCounts(team, Date.parse('2026-11-29T15:00:00Z'));
    for (let waited = 0; Object.keys(after).length === 0 && waited < 5_000; waited += 50) {
      await settled();
      after = await minuteCounts(team, Date.parse('2026-11-29T15:00:00Z'));
    }

    // Assess
    expect(before).toEqual({});
    expect(after).toEqual({ [entryName(counted(team))]: 6 });
    expect(counts.held()).toBe(1);
  });

  it('a write that fails half-way is sent again as it was: every count once, none twice', async () => {
    // Prepare: the second write of the first flush (the second team's record) fails
    const clock = new ManualClock(T0);
    const db = documentClient();
    let puts = 0;
    const failing = Object.create(db, {
      send: {
        value: (command: unknown) => {
          if (command instanceof UpdateCommand && ++puts === 2) return Promise.reject(new Error('ProvisionedThroughputExceededException'));
          return db.send(command as UpdateCommand);
        },
      },
    }) as typeof db;
    const counts = new VerificationCounts({ db: failing, keyTableName: config.keyTableName }, clock);
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    for (let i = 0; i < 3; i++) counts.count(counted(a));
    for (let i = 0; i < 4; i++) counts.count(counted(b));

    // Act
    const first = await counts.flush().then(
      () => 'written',
      (error: Error) => error.message,
    );
    const heldAfterFailure = counts.held();
    counts.count(counted(a));
    await counts.flush();

    // Assess
    expect(first).toBe('ProvisionedThroughputExceededException');
    expect(heldAfterFailure).toBe(7);
    const minute = Date.parse('2026-11-29T15:00:00Z');
    expect([await minuteCounts(a, minute), await minuteCounts(b, minute)]).toEqual([{ [entryName(counted(a))]: 4 }, { [entryName(counted(b))]: 4 }]);
    expect(counts.held()).toBe(0);
  });

  it('a process that dies loses what it held (at most its last 20 s); another keeps counting; counts held more than a day are dropped, not written', async () => {
    // Prepare
    const clock = new ManualClock(T0);
    const [dies, lives] = [new VerificationCounts(tables(), clock), new VerificationCounts(tables(), clock)];
    const team = crypto.randomUUID();

    // Act
    for (let i = 0; i < 10; i++) dies.count(counted(team));
    await dies.flush();
    for (let i = 0; i < 4; i++) dies.count(counted(team));
    const heldAtDeath = dies.held();
    for (let i = 0; i < 7; i++) lives.count(counted(team));
    await lives.flush();
    const frozen = new VerificationCounts(tables(), clock);
    frozen.count(counted(team));
    clock.advance(25 * 3_600_000);
    await frozen.flush();

    // Assess: 10 + 7 written; the 4 held by the process that died are the loss, within its 20 s
    expect(heldAtDeath).toBe(4);
    expect(await minuteCounts(team, Date.parse('2026-11-29T15:00:00Z'))).toEqual({ [entryName(counted(team))]: 17 });
    expect(frozen.dropped).toBe(1);
  });
});

describe('hot keys: counts equal the admissions, and add no write per verification', () => {
  let destroy: Array<() => void> = [];
  afterEach(() => {
    restoreSystemClock();
    for (const done of destroy) done();
    destroy = [];
  });

  it('a flood of 300 verifications of a public key from a foreign origin: refused, counted, and not a write each (1 record and 1 mark at the flush)', async () => {
    // Prepare
    installManualClock(Date.parse('2026-11-29T17:00:05Z'));
    const team = await newTeam();
    const key = await createKey(team, { type: 'pk', domains: ['https://app.example.com'] });
    const counting = countingDocumentClient();
    destroy.push(counting.destroy);
    const services: Services = servicesWith({ db: counting.db });
    const handler = makeHandler(() => services);
    const writes = () => counting.requests.filter((request) => request.command === 'UpdateItemCommand' || request.command === 'PutItemCommand').length;

    // Act
    const answers = await Promise.all(
      Array.from({ length: 300 }, () => callVerify({ key: key.key }, { handler, headers: { Origin: 'https://evil.example' }, sourceIp: '10.8.8.8' })),
    );
    const writesWhileRefusing = writes();
    await services.counts.flush();
    const counted = await minuteCounts(team.teamId, Date.parse('2026-11-29T17:00:00Z'));

    // Assess
    expect(answers.every((answer) => answer.body.code === 'ORIGIN_NOT_ALLOWED')).toBe(true);
    expect(writesWhileRefusing).toBe(0);
    expect(writes()).toBe(2);
    expect(counted).toEqual({ [JSON.stringify([key.id, '', '', 'ORIGIN_NOT_ALLOWED'])]: 300 });
  });

  it(`${shown(VERIFICATIONS)} verifications at 32 in flight over two leased instances, against a rate_limit of ${shown(LIMIT)}: VALID and RATE_LIMITED counted exactly as the limiter recorded them`, async () => {
    // Prepare
    installManualClock(Date.parse('2026-11-29T16:00:05Z'));
    const team = await newTeam();
    const key = await createKey(team, { rate_limit: LIMIT });
    const instances = Array.from({ length: 2 }, () => {
      const counting = countingDocumentClient();
      const services: Services = servicesWith({ db: counting.db });
      destroy.push(counting.destroy);
      return { services, handler: makeHandler(() => services), requests: counting.requests as CountedRequest[] };
    });
    let next = 0;
    const codes: Record<string, number> = {};
    const worker = async (instance: (typeof instances)[number]) => {
      while (next < VERIFICATIONS) {
        next += 1;
        const code = String((await callVerify({ key: key.key }, { handler: instance.handler, sourceIp: '10.9.9.9' })).body.code);
        codes[code] = (codes[code] ?? 0) + 1;
      }
    };

    // Act
    await Promise.all(instances.flatMap((instance) => Array.from({ length: 16 }, () => worker(instance))));
    const countWrites = () =>
      instances.reduce((sum, i) => sum + i.requests.filter((r) => r.updateExpression?.startsWith('SET entity = :entity, team_id = :team') === true).length, 0);
    const beforeFlush = countWrites();
    for (const instance of instances) {
      await instance.services.usage.flushPending();
      await instance.services.counts.flush();
    }
    const recordWrites = countWrites() - beforeFlush;
    const minute = Date.parse('2026-11-29T16:00:00Z');
    const counted = await minuteCounts(team.teamId, minute);
    const usage = await usageItem(key.id);

    // Assess
    expect(beforeFlush).toBe(0);
    expect(recordWrites).toBeGreaterThanOrEqual(1);
    expect(recordWrites).toBeLessThanOrEqual(4); // a minute record and an hour mark per instance
    expect(codes.VALID! + codes.RATE_LIMITED!).toBe(VERIFICATIONS);
    expect(counted[JSON.stringify([key.id, '', '', 'VALID'])]).toBe(codes.VALID);
    expect(counted[JSON.stringify([key.id, '', '', 'RATE_LIMITED'])]).toBe(codes.RATE_LIMITED);
    // The limiter's own record: the uses admitted in the hour's window.
    expect(Object.values((usage?.windows ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(codes.VALID);
  });
});
