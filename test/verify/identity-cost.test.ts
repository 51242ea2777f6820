/**
 * Cost of a verification through an identity's limits and credits
 * (docs/limits.md, "Cost"), DynamoDB requests counted on the client: the
 * admission is one transaction of the key's and the identity's meters, and
 * when it is exact (store/admission-writes.ts) the figures of the answer
 * come from what it asserted, with no read after it. Each test's counter is
 * a new process (its services built afresh).
 */
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { installManualClock, restoreSystemClock } from '../support/keys';
import { documentClient } from '../../lambda/composition/dynamo';
import { IDENTITY } from '../../lambda/store/entities/identity';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { callVerify, countDynamoRequests } from './helpers';

const METERED = {
  limits: [
    { name: 'burst', limit: 50, window_seconds: 1 },
    { name: 'minute', limit: 100, window_seconds: 60 },
  ],
  credits: { remaining: 40 },
};

/** The figures of 1..6 uses costing 2 each of the identity's 40 credits, 50 a second and 100 a minute. */
function expectSixUses(answers: { credits: { remaining: number }; limits: { remaining: number }[] }[]): void {
  expect(answers.map((answer) => answer.credits.remaining)).toEqual([38, 36, 34, 32, 30, 28]);
  expect(answers.map((answer) => answer.limits.map((limit) => limit.remaining))).toEqual([
    [49, 99],
    [48, 98],
    [47, 97],
    [46, 96],
    [45, 95],
    [44, 94],
  ]);
}

describe('cost of a verification through its identity (DynamoDB requests, counted on the client)', () => {
  let team: TestTeam;
  let counter: ReturnType<typeof countDynamoRequests>;
  beforeAll(async () => {
    team = await newTeam('live');
  });
  // Every verification of a test in one second (the burst limit's window) and one minute.
  let now: number;
  beforeEach(() => {
    counter = countDynamoRequests();
    now = (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 20_000;
    installManualClock(now);
  });
  afterEach(() => {
    counter.restore();
    restoreSystemClock();
  });

  const commands = () => counter.requests.map((r) => `${r.command}×${r.attempts}`);
  const newIdentity = async (externalId: string) =>
    (await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: externalId, ...METERED } })).body.data.id as string;
  /** Three keys of the identity made (before the act), then each verified twice at cost 2 in turn: the answers. */
  const threeKeysTwice = async (identityId: string, beforeAct: () => void = () => undefined) => {
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push(await createKey(team, { identity_id: identityId }));
    beforeAct();
    const answers = [];
    for (const key of keys) for (let i = 0; i < 2; i++) answers.push((await callVerify({ key: key.key, cost: 2 })).body);
    return answers;
  };
  const identityCredits = async (identityId: string) =>
    (await call('get-identity', { key: team.key, query: { identity_id: identityId } })).body.data.credits.remaining as number;

  it("a new key's first verification: its value read, its identity read, one transaction; the figures exact without a read after it", async () => {
    // Prepare
    const identityId = await newIdentity('first');
    const key = await createKey(team, { identity_id: identityId });
    counter.reset();

    // Act
    const answer = await callVerify({ key: key.key, cost: 3 });

    // Assess
    expect(commands()).toEqual(['BatchGetItemCommand×1', 'GetItemCommand×1', 'TransactWriteItemsCommand×1']);
    expect(answer.body.code).toBe('VALID');
    expect(answer.body.credits).toEqual({ remaining: 37 });
    expect(answer.body.limits).toEqual([
      { name: 'burst', owner: 'identity', limit: 50, remaining: 49, reset: expect.any(Number) },
      { name: 'minute', owner: 'identity', limit: 100, remaining: 99, reset: expect.any(Number) },
    ]);
    expect(await identityCredits(identityId)).toBe(37);
  });

  it('a new key of an identity this process verified: one read and one transaction', async () => {
    // Prepare: the identity verified through another key (its copy and its meter seen)
    const identityId = await newIdentity('second');
    const [web, mobile] = [await createKey(team, { identity_id: identityId }), await createKey(team, { identity_id: identityId })];
    await callVerify({ key: web.key });
    counter.reset();

    // Act
    const answer = await callVerify({ key: mobile.key });

    // Assess
    expect(commands()).toEqual(['BatchGetItemCommand×1', 'TransactWriteItemsCommand×1']);
    expect(answer.body.credits).toEqual({ remaining: 38 });
    expect(answer.body.limits.map((limit: { remaining: number }) => limit.remaining)).toEqual([48, 98]);
    expect(await identityCredits(identityId)).toBe(38);
  });

  it('a meter changed elsewhere fails the exact write, which learns it: the figures are still exact, with no read', async () => {
    // Prepare: the identity verified here through one key, then 5 credits and 7 minute slots spent by another process
    // (written straight to the meter): this process's copy of the meter is stale
    const identityId = await newIdentity('elsewhere');
    const [web, mobile] = [await createKey(team, { identity_id: identityId }), await createKey(team, { identity_id: identityId })];
    await callVerify({ key: web.key });
    const minute = `lw:minute:60:${Math.floor(now / 60_000)}`;
    await documentClient().send(
      new UpdateCommand({
        TableName: process.env.KEY_TABLE_NAME,
        Key: IDENTITY.key(identityId),
        UpdateExpression: 'SET cr_left = cr_left - :five, #m = if_not_exists(#m, :zero) + :seven',
        ExpressionAttributeNames: { '#m': minute },
        ExpressionAttributeValues: { ':five': 5, ':seven': 7, ':zero': 0 },
      }),
    );
    counter.reset();

    // Act
    const answer = await callVerify({ key: mobile.key });

    // Assess: the exact write failed (the meter as it was came back with it), the next held: 39 - 5 - 1 credits,
    // 1 + 7 + 1 of the minute's 100
    expect(commands()).toEqual(['BatchGetItemCommand×1', 'TransactWriteItemsCommand×1', 'TransactWriteItemsCommand×1']);
    expect(answer.body.credits).toEqual({ remaining: 33 });
    expect(answer.body.limits[1].remaining).toBe(91);
    expect(await identityCredits(identityId)).toBe(33);
  });

  it('new keys of one identity, each verified twice: exact transactions, no read after them, every figure counting each use once', async () => {
    // Prepare: leases off (every verification written; with them, the next test)
    const identityId = await newIdentity('three-keys');

    // Act
    const answers = await threeKeysTwice(identityId, () => {
      counter.restore();
      counter = countDynamoRequests({ enabled: false });
    });

    // Assess: a key made fewer days ago than its usage item keeps has no old days to copy: every write exact
    const sent = counter.requests.map((request) => request.command);
    expect(sent.filter((command) => command === 'TransactWriteItemsCommand')).toHaveLength(6);
    expect(sent.filter((command) => command !== 'TransactWriteItemsCommand').sort()).toEqual([...Array(6).fill('BatchGetItemCommand'), 'GetItemCommand']);
    expectSixUses(answers);
  });

  it("the same with leases on: a block's unused slots and credits are counted back in the figures every key of the identity gets", async () => {
    // Prepare: leases on (the default); the clock stands still, so a key's second verification takes a block of 2
    const identityId = await newIdentity('three-leased');

    // Act
    const answers = await threeKeysTwice(identityId);

    // Assess: the figures of 1..6 uses, whichever key's block holds the slots and credits not used yet
    expectSixUses(answers);
    expect(await identityCredits(identityId)).toBe(28);
  });

  it("a key made 31 days ago or more: a process reads its meters after its second transaction, once a day (its usage item's old days), then is exact", async () => {
    // Prepare: leases off; the clock 40 days after the key was made
    const identityId = await newIdentity('older');
    const key = await createKey(team, { identity_id: identityId });
    installManualClock(now + 40 * 86_400_000);
    counter.restore();
    counter = countDynamoRequests({ enabled: false });

    // Act
    const rounds: string[][] = [];
    for (let i = 0; i < 3; i++) {
      counter.reset();
      await callVerify({ key: key.key });
      rounds.push(counter.requests.map((request) => request.command));
    }

    // Assess: the first exact (a key never seen here), the second read after, the third exact
    expect(rounds[0]).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
    expect(rounds[1]).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand', 'BatchGetItemCommand']);
    expect(rounds[2]).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
  });
});
