/**
 * The storage operations each function declares (lambda/contract/store-operations.ts)
 * are what its code really sends: every path of each function is driven
 * against DynamoDB Local through a client that records each request's
 * action and table, and the recorded set must equal the declared one. The
 * stack grants exactly the declared set (test/cdk/stack.test.ts), so a
 * missing declaration fails here before it fails in AWS, and a declared
 * action no path uses (an over-grant) fails here too.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accessOf, requestsOf } from '../../lambda/contract/operation-access';
import { FUNCTION_OPERATIONS, ROUTES, type FunctionWithStore } from '../../lambda/routes';
import { prepare, sendAs } from '../support/route-fixtures';
import { makeHandler as makeExpireHandler } from '../../lambda/handlers/expire-old-value';
import { authorizerWith } from '../../lambda/handlers/authorizer';
import { makeHandler as makeManagementAuthorizer } from '../../lambda/handlers/management-authorizer';
import { MS_PER_DAY, MS_PER_HOUR } from '../../lambda/platform/clock';
import { config } from '../../lambda/composition/config';
import { createDynamoClient } from '../../lambda/composition/dynamo';
import { call, createKey, newTeam } from '../support/api';
import { MANAGER_SCOPES, expectStatus, installManualClock, keyInTransition, restoreSystemClock } from '../support/keys';
import { testServices, useTestServices } from '../support/services';
import { callAuthorizer, callVerify } from '../verify/helpers';
import type { Context } from 'aws-lambda';
import { flushForEvents } from '../../lambda/handlers/flush-authorizer-cache';
import { lifecycleEventOf, type LifecycleEvent } from '../../lambda/domain/lifecycle-events';
import { makeHandler as makeNotifyHandler } from '../../lambda/handlers/notify-key-expiry';
import { deliverEvent, runJob } from '../../lambda/handlers/deliver-webhooks';
import type { AuditEvent } from '../../lambda/domain/audit-events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { queuedJobs } from '../support/services';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyUnusedKeyPolicies } from '../../lambda/use-cases/unused-keys';
import { rollUpAnalytics } from '../../lambda/use-cases/analytics-rollup';
import { checkpointMovedChains } from '../../lambda/use-cases/audit-checkpoints';
import { fileCheckpointSigner } from '../../lambda/adapters/checkpoint-signer-file';
import { folderArchiveWriter } from '../../lambda/adapters/archive-writers';

type Recorded = { keyTable: Set<string>; keyTeamIndex: Set<string>; auditTable: Set<string>; auditTeamIndex: Set<string> };
/** The DynamoDB requests (CloudWatch `Operation` names) sent to each table, indexes included. */
type RequestsSeen = { key: Set<string>; audit: Set<string> };

/**
 * A document client that records `dynamodb:<Action>` per table (transaction
 * items one by one) and the requests per table. Each recording has its own
 * sets: a write another test's services send late (a lease's flush timer)
 * lands in that test's sets, never in this one's.
 */
function recordingClient(): { db: DynamoDBDocumentClient; recorded: Recorded; requestsSeen: RequestsSeen } {
  const recorded: Recorded = { keyTable: new Set(), keyTeamIndex: new Set(), auditTable: new Set(), auditTeamIndex: new Set() };
  const requestsSeen: RequestsSeen = { key: new Set(), audit: new Set() };
  const tableOf = (name: unknown) => (name === config.keyTableName ? 'keyTable' : name === config.auditTableName ? 'auditTable' : `other:${String(name)}`);
  const note = (table: unknown, action: string, index?: unknown, request = action) => {
    const owner = tableOf(table).replace('Table', '') as 'key' | 'audit';
    requestsSeen[owner]?.add(request);
    const part = index ? `${owner}TeamIndex` : tableOf(table);
    if (!(part in recorded)) throw new Error(`request to an unexpected table: ${String(table)}`);
    recorded[part as keyof Recorded].add(`dynamodb:${action}`);
  };
  const db = DynamoDBDocumentClient.from(createDynamoClient(), { marshallOptions: { removeUndefinedValues: true } });
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const action = String(context.commandName).replace(/Command$/, '');
      const input = args.input as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      if (action === 'TransactWriteItems') {
        for (const item of input.TransactItems ?? []) {
          const [kind, body] = Object.entries(item)[0] as [string, { TableName: string }];
          note(body.TableName, kind === 'ConditionCheck' ? 'ConditionCheckItem' : `${kind}Item`, undefined, 'TransactWriteItems');
        }
      } else if (action === 'BatchGetItem') {
        for (const table of Object.keys(input.RequestItems ?? {})) note(table, action);
      } else {
        note(input.TableName, action, input.IndexName);
      }
      return next(args);
    },
    { step: 'initialize', name: 'recordActions' },
  );
  return { db, recorded, requestsSeen };
}

/** The functions this file has driven, for the last test's check that none that declares operations is left out. */
const driven = new Set<string>();

/** The requests of the last recording (per table), for `expectRequestsDeclared`. */
let lastRequests: RequestsSeen = { key: new Set(), audit: new Set() };

/**
 * Runs `act` with the recording client installed; returns the actions it
 * sent. Uses the act left pending (a hot key's lease) are written before the
 * recording ends, so nothing of this act is sent after it.
 */
async function recordDuring(act: () => Promise<void>): Promise<Record<keyof Recorded, string[]>> {
  const { db, recorded, requestsSeen } = recordingClient();
  useTestServices({ db });
  try {
    await act();
  } finally {
    await testServices().usage.flushPending();
    useTestServices({});
  }
  lastRequests = requestsSeen;
  const sorted = (set: Set<string>) => [...set].sort();
  return {
    keyTable: sorted(recorded.keyTable),
    keyTeamIndex: sorted(recorded.keyTeamIndex),
    auditTable: sorted(recorded.auditTable),
    auditTeamIndex: sorted(recorded.auditTeamIndex),
  };
}

const declared = (name: FunctionWithStore) => accessOf(FUNCTION_OPERATIONS[name]);

/** Runs `act` and requires exactly the function's declared actions and requests. */
async function expectExactlyDeclared(name: FunctionWithStore, act: () => Promise<void>): Promise<void> {
  driven.add(name);
  const used = await recordDuring(act);
  expect(used).toEqual(declared(name));
  expectRequestsDeclared(name);
}

/** After each recording: the requests sent per table are the ones its throttle alarm is built from. */
const expectRequestsDeclared = (name: FunctionWithStore) => {
  for (const table of ['key', 'audit'] as const) {
    expect({ name, table, requests: [...lastRequests[table]].sort() }).toEqual({ name, table, requests: requestsOf(FUNCTION_OPERATIONS[name], table) });
  }
};

afterEach(() => restoreSystemClock());

describe('each function sends exactly the storage actions it declares', () => {
  it('generate-api-key', async () => {
    // Prepare
    const team = await newTeam();

    // Act
    await expectExactlyDeclared('generate-api-key', async () => {
      expectStatus(await call('generate-api-key', { key: team.key, body: { name: 'n', type: 'sk', environment: 'live', team_id: team.teamId } }), 201);
    });
  });

  // A route naming a well-formed key_id reads the target with the caller's lookup (BatchGetItem); one that names none authenticates by GetItem.
  it('regenerate-api-key: with a grace period, at once over a finished transition, and naming no valid key id', async () => {
    // Prepare
    const clock = installManualClock();
    const team = await newTeam();
    const graced = await createKey(team);
    const finished = await createKey(team);
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: finished.id, grace_period_days: 1 } }), 200);
    clock.advance(2 * MS_PER_DAY);

    // Act
    const used = await recordDuring(async () => {
      expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: graced.id } }), 200);
      expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: finished.id, revoke_immediately: true } }), 200);
      expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: 'not-a-key-id' } }), 400);
    });

    // Assess
    expect(used).toEqual(declared('regenerate-api-key'));
  });

  it('delete-api-key: a manager key in a transition deleted by another manager, a manager deleting itself, and naming no valid key id', async () => {
    // Prepare
    const { team, keyId: managerId } = await keyInTransition({ scopes: ['keys.manage'] });
    const selfDeleting = await createKey(team, { scopes: ['keys.manage'] });

    // Act: the first survivor is the caller (no read); the one deleting itself looks for another manager (the team index)
    await expectExactlyDeclared('delete-api-key', async () => {
      expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: managerId, confirm_deletion: true } }), 200);
      expectStatus(await call('delete-api-key', { key: selfDeleting.key, body: { key_id: selfDeleting.id, confirm_deletion: true } }), 200);
      expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: 'not-a-key-id', confirm_deletion: true } }), 400);
    });
  });

  it('verify-api-key: a valid value, a valid value of an identity, an unknown one, and metered ones running out of credits', async () => {
    // Prepare
    const team = await newTeam();
    const key = await createKey(team);
    const identity = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'verified' } });
    const member = await createKey(team, { identity_id: identity.body.data.id });
    const unknown = `${key.key.slice(0, -8)}AAAAAAAA`;
    const metered = await createKey(team, { credits: { remaining: 1 } });
    const budget = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'budget', credits: { remaining: 1 } } });
    const shared = await createKey(team, { identity_id: budget.body.data.id });

    // Act
    await expectExactlyDeclared('verify-api-key', async () => {
      expect((await callVerify({ key: key.key })).body.valid).toBe(true);
      expect((await callVerify({ key: member.key })).body.identity.external_id).toBe('verified');
      await callVerify({ key: unknown });
      // A metered use (its credits.exhausted record included), its own meter and an identity's.
      expect((await callVerify({ key: metered.key })).body.credits).toEqual({ remaining: 0 });
      expect((await callVerify({ key: shared.key })).body.credits).toEqual({ remaining: 0 });
      // What the verifications were counted as, written (docs/analytics.md).
      await testServices().counts.flush();
    });
  });

  it('authorizer: a valid value, and a metered one through its identity running out of credits', async () => {
    // Prepare
    const team = await newTeam();
    const key = await createKey(team);
    // Its credit a grant: an admission that spends a grant is not exact, so the meters are read after its transaction.
    const budget = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'budget', credits: { remaining: 0 } } });
    expectStatus(await call('adjust-credits', { key: team.key, body: { identity_id: budget.body.data.id, add: 1, reason: 'a grant' } }), 200);
    const shared = await createKey(team, { identity_id: budget.body.data.id });
    const authorizer = authorizerWith(() => [], testServices);

    // Act
    await expectExactlyDeclared('authorizer', async () => {
      expect((await callAuthorizer(authorizer, { headers: { 'x-api-key': key.key } })).result?.principalId).toBe(key.id);
      expect((await callAuthorizer(authorizer, { headers: { 'x-api-key': shared.key } })).result?.context?.credits_remaining).toBe(0);
      await testServices().counts.flush();
    });
  });

  it('expire-old-value: a transition past its end', async () => {
    // Prepare
    const clock = installManualClock();
    const team = await newTeam();
    const key = await createKey(team);
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: key.id, grace_period_days: 1 } }), 200);
    clock.advance(MS_PER_DAY + 1000);
    const expire = makeExpireHandler(testServices);

    // Act
    await expectExactlyDeclared('expire-old-value', async () => {
      const result = await expire({ key_id: key.id, generation: 2 }, { awsRequestId: 'store-operations' } as Context);
      expect(result).toMatchObject({ outcome: 'expired' });
    });
  });

  it('list-api-keys: a page of keys with their last use', async () => {
    const team = await newTeam();
    await createKey(team);
    await expectExactlyDeclared('list-api-keys', async () => {
      expectStatus(await call('list-api-keys', { key: team.key, query: { team_id: team.teamId } }), 200);
    });
  });

  it('get-api-key and get-api-key-usage, and naming no valid key id', async () => {
    const team = await newTeam();
    const key = await createKey(team);
    for (const name of ['get-api-key', 'get-api-key-usage'] as const) {
      const used = await recordDuring(async () => {
        expectStatus(await call(name, { key: team.key, query: { key_id: key.id } }), 200);
        expectStatus(await call(name, { key: team.key, query: { key_id: 'not-a-key-id' } }), 400);
      });
      expect({ name, used }).toEqual({ name, used: declared(name) });
    }
  });

  it('update-api-key: a manager in a transition disabled by another, a manager disabling itself, a key moved between identities, and naming no valid key id', async () => {
    const { team, keyId: managerId } = await keyInTransition({ scopes: ['keys.manage'] });
    const selfDisabling = await createKey(team, { scopes: ['keys.manage'] });
    const identities = await Promise.all(
      ['first', 'second'].map(
        async (externalId) =>
          (await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: externalId } })).body.data.id as string,
      ),
    );
    const member = await createKey(team);
    await expectExactlyDeclared('update-api-key', async () => {
      for (const identityId of identities)
        expectStatus(await call('update-api-key', { key: team.key, body: { key_id: member.id, identity_id: identityId } }), 200);
      expectStatus(await call('update-api-key', { key: team.key, body: { key_id: managerId, is_active: false } }), 200);
      expectStatus(await call('update-api-key', { key: selfDisabling.key, body: { key_id: selfDisabling.id, is_active: false } }), 200);
      expectStatus(await call('update-api-key', { key: team.key, body: { key_id: 'not-a-key-id', is_active: false } }), 400);
    });
  });

  it('list-audit-events: a key’s trail and the team’s', async () => {
    const team = await newTeam();
    await expectExactlyDeclared('list-audit-events', async () => {
      expectStatus(await call('list-audit-events', { key: team.key, query: { key_id: team.keyId } }), 200);
      expectStatus(await call('list-audit-events', { key: team.key, query: { team_id: team.teamId } }), 200);
    });
  });

  it('generate-api-key and regenerate-api-key under an Idempotency-Key', async () => {
    const team = await newTeam();
    const key = await createKey(team);
    const headers = { 'Idempotency-Key': 'store-operations' };
    await expectExactlyDeclared('generate-api-key', async () => {
      const body = { name: 'n', type: 'sk', environment: 'live', team_id: team.teamId };
      expectStatus(await call('generate-api-key', { key: team.key, body, headers }), 201);
      expectStatus(await call('generate-api-key', { key: team.key, body, headers }), 201);
    });
    const rolled = await recordDuring(async () => {
      expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: key.id }, headers: { 'Idempotency-Key': 'store-operations-roll' } }), 200);
    });
    // One path of regenerate (the grace path; revoking at once adds DeleteItem): within the declaration.
    const allowed = declared('regenerate-api-key');
    for (const part of Object.keys(rolled) as Array<keyof typeof rolled>) {
      expect({ part, outside: rolled[part].filter((action) => !allowed[part].includes(action as never)) }).toEqual({ part, outside: [] });
    }
  });

  it('flush-authorizer-cache: a change that calls for a flush', async () => {
    const flushed: string[] = [];
    await expectExactlyDeclared('flush-authorizer-cache', async () => {
      const services = testServices();
      const deps = { flushClaims: services.flushClaims, cacheFlusher: async (stage: string) => void flushed.push(stage), clock: services.clock };
      const outcome = await flushForEvents(deps, [`a1b2c3d4e5:s${Date.now()}`], [{ type: 'key.deleted', data: {} } as unknown as LifecycleEvent]);
      expect(Object.values(outcome)).toEqual(['flushed']);
    });
    expect(flushed).toHaveLength(1);
  });

  it('notify-key-expiry: a key past its expiry, noticed once', async () => {
    // Prepare: a key that expires in a day, the clock two days on
    const clock = installManualClock();
    const team = await newTeam();
    const expiresAt = new Date(clock.now().getTime() + MS_PER_DAY).toISOString();
    const key = await createKey(team, { expires_at: expiresAt });
    clock.advance(2 * MS_PER_DAY);
    const notify = makeNotifyHandler(testServices);

    // Act
    await expectExactlyDeclared('notify-key-expiry', async () => {
      const request = { key_id: key.id, expires_at: key.data.expires_at, notice: 'expired' };
      expect(await notify(request, { awsRequestId: 'store-operations' } as Context)).toMatchObject({ outcome: 'written' });
    });
  });

  it('deliver-webhooks: an event fanned out to a team’s endpoint, then its attempt', async () => {
    // Prepare: a receiver on loopback, a team's endpoint for it, and a key.created event of that team
    const receiver: Server = createServer((_, response) => void response.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const team = await newTeam();
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      expectStatus(await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url, events: ['key.created'] } }), 201);
      const key = await createKey(team);
      const page = await testServices().audit.auditPage({ attribute: 'pk', value: `KEY#${key.id}`, limit: 1 });
      const event = lifecycleEventOf(page.items[0] as unknown as AuditEvent);
      if (!event) throw new Error('key.created is a lifecycle event');
      queuedJobs.length = 0;

      // Act: the fan-out queues the first attempt (the test queue records it); the attempt runs as the queue would run it
      const used = await recordDuring(async () => {
        await deliverEvent(testServices(), event);
        const [job] = queuedJobs.splice(0);
        expect(job).toBeDefined();
        expect(await runJob(testServices(), job![0])).toBe('succeeded');
      });

      // Assess: every action within the declaration, and every one used but the audit record of an endpoint's disabling (after a run of failures)
      expectWithinDeclared('deliver-webhooks', used);
      const unused = Object.entries(declared('deliver-webhooks')).flatMap(([part, actions]) =>
        actions.filter((action) => !used[part as keyof typeof used].includes(action)).map((action) => `${part} ${action}`),
      );
      expect(unused).toEqual(['auditTable dynamodb:PutItem']);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('disable-unused-keys: a team whose policy disables a key unused past its days', async () => {
    // Prepare: a team with a 30-day policy (the least) and a key nobody used, then the clock 40 days on
    const clock = installManualClock();
    const team = await newTeam();
    expectStatus(await call('update-team-settings', { key: team.key, body: { team_id: team.teamId, disable_unused_after_days: 30 } }), 200);
    await createKey(team);
    clock.advance(40 * MS_PER_DAY);

    // Act
    let disabled = 0;
    const used = await recordDuring(async () => {
      disabled = (await applyUnusedKeyPolicies(testServices(), 'store-operations', [team.teamId])).disabled;
    });

    // Assess: the job did its work (the recording saw it), nothing undeclared
    expect(disabled).toBeGreaterThan(0);
    expectWithinDeclared('disable-unused-keys', used);
  });

  it('roll-up-analytics: an hour of verifications rolled up once it is over', async () => {
    // Prepare: a key verified at a fixed time, its counts written, then the clock 2 hours on
    const clock = installManualClock(Date.parse('2026-11-20T08:10:00Z'));
    const team = await newTeam();
    const key = await createKey(team);
    for (let i = 0; i < 3; i++) await callVerify({ key: key.key });
    await testServices().counts.flush();
    clock.advance(2 * MS_PER_HOUR);

    // Act
    let hours = 0;
    const used = await recordDuring(async () => {
      hours = (await rollUpAnalytics(testServices())).hours;
    });

    // Assess
    expect(hours).toBeGreaterThan(0);
    expectWithinDeclared('roll-up-analytics', used);
  });

  it('checkpoint-audit: a team whose chain moved, checkpointed and signed', async () => {
    // Prepare: a team whose chain has records (its bootstrap key's, a new key's); a signing key and an archive in a temp folder
    const team = await newTeam();
    await createKey(team);
    const folder = mkdtempSync(path.join(tmpdir(), 'store-operations-checkpoint-'));
    try {
      const services = testServices();
      const ports = {
        chains: services.chains,
        clock: services.clock,
        observe: services.observe,
        signer: fileCheckpointSigner(path.join(folder, 'audit-signing-key.pem')),
        archive: folderArchiveWriter(path.join(folder, 'archive')),
        publish: () => Promise.resolve(),
      };

      // Act
      let checkpointed = 0;
      const used = await recordDuring(async () => {
        checkpointed = (await checkpointMovedChains(ports, [team.teamId])).signed;
      });

      // Assess
      expect(checkpointed).toBeGreaterThan(0);
      expectWithinDeclared('checkpoint-audit', used);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('management-authorizer: a valid key’s team, and a disabled key refused (counted)', async () => {
    const team = await newTeam();
    const disabled = await createKey(team, { scopes: MANAGER_SCOPES });
    expect((await call('update-api-key', { key: team.key, body: { key_id: disabled.id, is_active: false } })).status).toBe(200);
    const authorize = makeManagementAuthorizer(testServices);
    const eventOf = (value: string) => ({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:eu-west-1:1:api/prod/GET/x',
      headers: { Authorization: `Bearer ${value}` },
    });
    await expectExactlyDeclared('management-authorizer', async () => {
      expect((await authorize(eventOf(team.key) as never, {} as Context))?.principalId).toBe(team.keyId);
      await expect(authorize(eventOf(disabled.key) as never, {} as Context)).rejects.toThrow('Unauthorized');
      // What the refusal was counted as (INACTIVE), written (docs/analytics.md).
      await testServices().counts.flush();
    });
  });
});

/** Each recorded action and request within the declared ones: what one path (a fixture's valid request) may show. */
function expectWithinDeclared(name: FunctionWithStore, used: Record<keyof Recorded, string[]>): void {
  driven.add(name);
  const allowed = declared(name);
  for (const part of Object.keys(used) as (keyof Recorded)[]) {
    expect({ name, part, beyond: used[part].filter((action) => !(allowed[part] as string[]).includes(action)) }).toEqual({ name, part, beyond: [] });
  }
  for (const table of ['key', 'audit'] as const) {
    const requests: string[] = requestsOf(FUNCTION_OPERATIONS[name], table);
    expect({ name, table, beyond: [...lastRequests[table]].filter((request) => !requests.includes(request)) }).toEqual({ name, table, beyond: [] });
  }
}

describe('every route’s fixture sends only storage actions its route declares', () => {
  it.each(ROUTES.map((route) => route.name))('%s', async (name) => {
    // Prepare: the fixture's prerequisites, made before the recording
    const { team, input, fixture } = await prepare(name);

    // Act
    const used = await recordDuring(async () => {
      expectStatus(await sendAs(team)(name, input), fixture.status);
    });

    // Assess: something was sent (the recording works), nothing undeclared
    expect(Object.values(used).flat().length).toBeGreaterThan(0);
    expectWithinDeclared(name, used);
  });
});

describe('coverage', () => {
  // Last in the file: the tests above have run (a `-t` filter that skips them fails this one).
  it('every function that declares storage operations is driven above', () => {
    expect(Object.keys(FUNCTION_OPERATIONS).filter((name) => !driven.has(name))).toEqual([]);
  });
});
