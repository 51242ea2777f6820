/**
 * Cost: a valid verification is at most one read and one write round trip
 * to DynamoDB, counted by a middleware on the shared client's stack
 * (installed through `setDynamoClient`).
 */
import { testServices } from '../support/services';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { installManualClock, restoreSystemClock, UNKNOWN_KEY_ID, useValue, MANAGER_SCOPES } from '../support/keys';
import { RATE_WINDOW_MS } from '../../lambda/domain/rate-window';
import { authorizerWith } from '../../lambda/handlers/authorizer';
import { makeHandler as makeManagementAuthorizer } from '../../lambda/handlers/management-authorizer';
import { callAuthorizer, callVerify, countDynamoRequests } from './helpers';

describe('cost of a verification (DynamoDB requests, counted on the client)', () => {
  let team: TestTeam;
  let counter: ReturnType<typeof countDynamoRequests>;
  beforeAll(async () => {
    team = await newTeam('live');
  });
  beforeEach(() => {
    counter = countDynamoRequests();
  });
  afterEach(() => {
    counter.restore();
    restoreSystemClock();
  });

  const commands = () => counter.requests.map((r) => `${r.command}×${r.attempts}`);

  it('verifyKey, valid: one GetItem and one UpdateItem', async () => {
    const created = await createKey(team);
    counter.reset();
    const result = await useValue(created.key, { scope: 'enc.tiles:read' });
    expect(result.valid).toBe(true);
    expect(commands()).toEqual(['GetItemCommand×1', 'UpdateItemCommand×1']);
  });

  it('verify endpoint, valid: one BatchGetItem (value lookup + per-source counter) and one UpdateItem', async () => {
    const created = await createKey(team, { type: 'pk', domains: ['https://maps.example.com'] });
    counter.reset();
    const response = await callVerify({ key: created.key }, { headers: { Origin: 'https://maps.example.com' } });
    expect(response.body.code).toBe('VALID');
    expect(commands()).toEqual(['BatchGetItemCommand×1', 'UpdateItemCommand×1']);
  });

  it('still one write in a new hour after a busy one, in a process that never saw the key', async () => {
    const created = await createKey(team, { rate_limit: 10 });
    const hour = (Math.floor((Date.now() + 60_000) / RATE_WINDOW_MS) + 1) * RATE_WINDOW_MS;
    const clock = installManualClock(hour + 1000);
    for (let i = 0; i < 8; i++) await useValue(created.key);
    clock.set(hour + RATE_WINDOW_MS + RATE_WINDOW_MS / 2);
    testServices().usage.endedWindows.clear();
    counter.reset();
    expect((await useValue(created.key)).valid).toBe(true);
    expect(commands()).toEqual(['GetItemCommand×1', 'UpdateItemCommand×1']);
  });

  it("old rate windows are named for removal by a process's first write of an hour only, once it has seen the item tidy", async () => {
    const created = await createKey(team, { rate_limit: 10 });
    const hour = (Math.floor((Date.now() + 60_000) / RATE_WINDOW_MS) + 1) * RATE_WINDOW_MS;
    const clock = installManualClock(hour + 1000);
    testServices().usage.endedWindows.clear();
    const namesOldWindows = async () => {
      // A use every 3 s: no lease grows, every use is its own recording write.
      clock.set(clock.now().getTime() + 3000);
      counter.reset();
      expect((await useValue(created.key)).valid).toBe(true);
      const writes = counter.requests.filter((r) => r.command === 'UpdateItemCommand');
      expect(writes).toHaveLength(1);
      return /windows\.#old\d+/.test(writes[0].updateExpression ?? '');
    };
    expect([await namesOldWindows(), await namesOldWindows(), await namesOldWindows()]).toEqual([true, false, false]);
    clock.set(hour + RATE_WINDOW_MS + 1000);
    expect([await namesOldWindows(), await namesOldWindows()]).toEqual([true, false]);
  });

  it('authorizer, allowed: a GetItem of the value, a GetItem of the team (its usage plan key), one UpdateItem', async () => {
    const created = await createKey(team);
    const authorizer = authorizerWith(() => [], testServices);
    counter.reset();
    const { result } = await callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${created.key}` } });
    expect(result?.usageIdentifierKey).toEqual(expect.any(String));
    expect(commands()).toEqual(['GetItemCommand×1', 'UpdateItemCommand×1', 'GetItemCommand×1']);
  });

  it('management endpoint behind the management authorizer: the caller from its context, the target read in one BatchGetItem', async () => {
    const caller = await createKey(team, { scopes: MANAGER_SCOPES });
    const authorize = makeManagementAuthorizer(testServices);
    const authorized = await authorize(
      { type: 'REQUEST', methodArn: 'arn:aws:execute-api:eu-west-1:1:api/prod/DELETE/x', headers: { Authorization: `Bearer ${caller.key}` } } as never,
      {} as never,
    );
    counter.reset();
    const response = await call('delete-api-key', {
      key: caller.key,
      body: { key_id: UNKNOWN_KEY_ID, confirm_deletion: true },
      authorizerContext: authorized.context ?? undefined,
    });
    expect(response.status).toBe(404);
    // The target's key and usage items in one read, then metering: no lookup read, nothing read twice.
    expect(commands()).toEqual(['BatchGetItemCommand×1', 'UpdateItemCommand×1']);
  });

  it('management endpoint naming a key: authentication and the target in one BatchGetItem, metering one UpdateItem, nothing else for an unknown key', async () => {
    const caller = await createKey(team, { scopes: MANAGER_SCOPES });
    counter.reset();
    const response = await call('delete-api-key', { key: caller.key, body: { key_id: UNKNOWN_KEY_ID, confirm_deletion: true } });
    expect(response.status).toBe(404);
    expect(commands()).toEqual(['BatchGetItemCommand×1', 'UpdateItemCommand×1']);
  });

  it('management endpoint naming no well-formed key: authentication is one GetItem, metering one UpdateItem, then the 400', async () => {
    const caller = await createKey(team, { scopes: MANAGER_SCOPES });
    counter.reset();
    const response = await call('delete-api-key', { key: caller.key, body: { key_id: 'not-a-key-id', confirm_deletion: true } });
    expect(response.status).toBe(400);
    expect(commands()).toEqual(['GetItemCommand×1', 'UpdateItemCommand×1']);
  });

  it('malformed values and bad checksums cost nothing', async () => {
    await useValue('svc_sk_live_1b4e28ba_aaaaaaaaaaaaaaaaaaaaaaaaaaaa');
    await callVerify({ key: 'not-a-key' });
    expect(commands()).toEqual([]);
  });

  it('a refused (rate-limited) verification: one read and two writes (a failed conditional write, then the use alone)', async () => {
    const created = await createKey(team, { rate_limit: 1 });
    installManualClock();
    await useValue(created.key);
    counter.reset();
    expect((await useValue(created.key)).code).toBe('RATE_LIMITED');
    expect(commands()).toEqual(['GetItemCommand×1', 'UpdateItemCommand×1', 'UpdateItemCommand×1']);
  });
});
