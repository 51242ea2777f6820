/**
 * The audit trail a team can prove (issue 48, docs/audit.md "The hash
 * chain"): every record carries `seq`, `prev_hash` and `hash`, the team's
 * head advances in the change's own transaction, the hourly job signs a
 * checkpoint of each moved chain (kept in the archive, sent as
 * `audit.checkpoint`), and the offline verifier (domain/audit-verification.ts,
 * `npm run verify-audit`) finds every kind of tampering. Real DynamoDB Local;
 * the signer is a P-256 key in a temporary folder, the archive a folder.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GENESIS_HASH, recordHash } from '../../lambda/domain/audit-chain';
import { checkpointMessage, type SignedCheckpoint } from '../../lambda/domain/audit-checkpoints';
import { verifyTrail } from '../../lambda/domain/audit-verification';
import type { LifecycleEvent } from '../../lambda/domain/lifecycle-events';
import { fileCheckpointSigner } from '../../lambda/adapters/checkpoint-signer-file';
import { folderArchiveWriter } from '../../lambda/adapters/archive-writers';
import { checkpointMovedChains, type CheckpointPorts } from '../../lambda/use-cases/audit-checkpoints';
import { systemClock } from '../../lambda/platform/clock';
import { planRecord } from '../../lambda/use-cases/audit-archive';
import { auditItem } from '../../lambda/store/entities/audit-record';
import { systemActor } from '../../lambda/domain/actor';
import { config } from '../../lambda/composition/config';
import { documentClient } from '../../lambda/composition/dynamo';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { streamRecord } from './helpers';
import { hashKeyValue } from '../../lambda/domain/key-values';
import { auditRecordsOf } from '../support/store';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { localDynamoClient } from '../../local/dynamodb-local';
import { createTableInput, ensureTable } from '../../local/tables';
import { AUDIT_TABLE, CHAIN_INDEX } from '../../lambda/contract/tables';
import { call, newTeam, type TestTeam } from '../support/api';
import { expectStatus } from '../support/keys';
import { testServices } from '../support/services';

const folder = mkdtempSync(path.join(tmpdir(), 'audit-chain-'));
const signer = fileCheckpointSigner(path.join(folder, 'audit-signing-key.pem'));
const archiveDir = path.join(folder, 'archive');
const published: LifecycleEvent[] = [];

// The folder holds a signing key and the archive: removed after the file's tests.
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function checkpointPorts(): CheckpointPorts {
  const services = testServices();
  return {
    chains: services.chains,
    clock: systemClock,
    observe: services.observe,
    signer,
    archive: folderArchiveWriter(archiveDir),
    publish: (events) => {
      published.push(...events);
      return Promise.resolve();
    },
  };
}

/** The team's whole chain through the audit route (order=chain), every page. */
async function chainOf(team: TestTeam): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await call('list-audit-events', { key: team.key, query: { team_id: team.teamId, order: 'chain', limit: '7', ...(cursor ? { cursor } : {}) } });
    expectStatus(page, 200);
    records.push(...(page.body.data as Record<string, unknown>[]));
    cursor = page.body.meta.next_cursor ?? undefined;
  } while (cursor);
  return records;
}

const createKey = (team: TestTeam, name: string) =>
  call('generate-api-key', { key: team.key, body: { name, team_id: team.teamId, type: 'sk', environment: 'live' } });

async function publicKeyPem(): Promise<string> {
  const keys = await call('audit-public-key', {});
  expectStatus(keys, 200);
  return (keys.body.data as { pem: string }[]).at(-1)?.pem ?? '';
}

describe('the chain', () => {
  it('20 concurrent changes of one team end with seq 1..21 gapless, each record linked to the one before, and the chain valid', async () => {
    // Arrange
    const team = await newTeam();

    // Act
    const answers = await Promise.all(Array.from({ length: 20 }, (_, at) => createKey(team, `concurrent ${at}`)));
    const chain = await chainOf(team);

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 201));
    // The bootstrap key's key.created, then the 20 changes.
    expect(chain.map((record) => record.seq)).toEqual(Array.from({ length: 21 }, (_, at) => at + 1));
    expect(chain[0]).toMatchObject({ prev_hash: GENESIS_HASH, chain_start: chain[0]?.occurred_at });
    chain.forEach((record, at) => {
      expect(record.hash).toBe(recordHash(record));
      if (at > 0) expect(record.prev_hash).toBe(chain[at - 1]?.hash);
    });
    expect(chain.filter((record) => 'chain_start' in record)).toHaveLength(1);
  });

  it('the newest-first listing shows seq, prev_hash and hash; records of endpoints and identities are in the same chain', async () => {
    // Arrange
    const team = await newTeam();
    await createKey(team, 'first');
    await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'customer-1' } });

    // Act
    const listed = await call('list-audit-events', { key: team.key, query: { team_id: team.teamId } });
    const chain = await chainOf(team);

    // Assess
    expect(listed.body.data[0]).toMatchObject({ event_type: 'key.created', seq: 2 });
    expect(Object.keys(listed.body.data[0] as object)).toEqual(expect.arrayContaining(['seq', 'prev_hash', 'hash']));
    expect(chain.map((record) => record.event_type)).toEqual(['key.created', 'key.created', 'identity.created']);
    expect(chain.map((record) => record.seq)).toEqual([1, 2, 3]);
  });

  it('order=chain needs team_id: with key_id it is 400 naming order, and nothing is read', async () => {
    const team = await newTeam();
    const answer = await call('list-audit-events', { key: team.key, query: { key_id: team.keyId, order: 'chain' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([{ field: 'order', issue: "chain reads a team's whole chain: give team_id, not key_id" }]);
  });
});

describe('the chain and the rest of the trail', () => {
  it('records from before the chain stay as they are; the first chained record says where the chain starts', async () => {
    // Arrange: a record as the service wrote them before the chain (no seq), put straight into the table.
    const team = await newTeam();
    const earlier = auditItem({
      event_type: 'key.enabled',
      occurred_at: '2026-11-01T00:00:00.000Z',
      key_id: team.keyId,
      team_id: team.teamId,
      actor: systemActor('before-the-chain'),
      key: { name: 'Bootstrap', type: 'sk', environment: 'live' },
      changes: { is_active: { before: false, after: true } },
    } as never);
    await documentClient().send(new PutCommand({ TableName: config.auditTableName, Item: earlier }));

    // Act
    await createKey(team, 'after');
    const trail = (await call('list-audit-events', { key: team.key, query: { team_id: team.teamId, limit: '100' } })).body.data as Record<string, unknown>[];
    const chain = await chainOf(team);
    await checkpointMovedChains(checkpointPorts(), [team.teamId]);
    const checkpoint = (await call('get-audit-checkpoint', { key: team.key, query: { team_id: team.teamId } })).body.data as SignedCheckpoint;

    // Assess
    const unchained = trail.find((record) => record.event_id === earlier.event_id);
    expect(unchained).toBeDefined();
    expect(unchained && 'seq' in unchained).toBe(false);
    expect(chain.map((record) => record.seq)).toEqual([1, 2]);
    expect(chain[0]?.chain_start).toBe(chain[0]?.occurred_at);
    expect(verifyTrail(trail, checkpoint, await publicKeyPem())).toEqual({ ok: true, checked: 2, unchained: 1, beyond: 0 });
  });

  it("a value's hash pasted into a deletion reason is redacted before the record is hashed: the table, the trail and the archive agree", async () => {
    // Arrange: the route refuses a key value in a reason; a hex digest gets through, and the chain redacts it as the archive does.
    const team = await newTeam();
    const created = await createKey(team, 'pasted');
    const value = hashKeyValue(created.body.data.key as string);

    // Act
    const deleted = await call('delete-api-key', {
      key: team.key,
      body: { key_id: created.body.data.id, confirm_deletion: true, reason: `leaked ${value} in a ticket` },
    });
    const stored = (await auditRecordsOf(created.body.data.id as string)).find((record) => record.event_type === 'key.deleted') as Record<string, unknown>;
    const plan = planRecord(streamRecord(stored, { sequenceNumber: '100' }));

    // Assess
    expectStatus(deleted, 200);
    expect(stored.reason).toBe('leaked [REDACTED] in a ticket');
    expect(JSON.stringify(stored)).not.toContain(value);
    expect(stored.hash).toBe(recordHash(stored));
    expect(plan.kind).toBe('archive');
    const archived = plan.kind === 'archive' ? (plan.event as unknown as Record<string, unknown>) : {};
    expect(plan.kind === 'archive' ? plan.redactedPaths : ['?']).toEqual([]);
    expect([archived.seq, archived.prev_hash, archived.hash]).toEqual([stored.seq, stored.prev_hash, stored.hash]);
    expect(recordHash(archived)).toBe(archived.hash);
  });

  it('the archive refuses a chained record whose hash is not 64 lowercase hex (the strict schema, extended)', () => {
    const item = {
      ...auditItem({
        event_type: 'key.enabled',
        occurred_at: new Date().toISOString(),
        key_id: '01JZ0000000000000000000KEY',
        team_id: 't1',
        actor: systemActor('x'),
        changes: {},
      } as never),
      seq: 1,
      prev_hash: GENESIS_HASH,
      hash: 'not a hash',
    };
    expect(planRecord(streamRecord(item, { sequenceNumber: '101' }))).toMatchObject({ kind: 'reject', reason: 'not an audit event' });
  });
});

describe('checkpoints', () => {
  it('a moved chain is signed once, kept in the archive, sent as audit.checkpoint and answered by the route; an unmoved one is not signed again', async () => {
    // Arrange
    const team = await newTeam();
    await createKey(team, 'one');
    const before = await call('get-audit-checkpoint', { key: team.key, query: { team_id: team.teamId } });

    // Act
    const first = await checkpointMovedChains(checkpointPorts(), [team.teamId]);
    const second = await checkpointMovedChains(checkpointPorts(), [team.teamId]);
    const read = await call('get-audit-checkpoint', { key: team.key, query: { team_id: team.teamId } });
    await createKey(team, 'two');
    const third = await checkpointMovedChains(checkpointPorts(), [team.teamId]);
    const after = await call('get-audit-checkpoint', { key: team.key, query: { team_id: team.teamId } });

    // Assess
    expect(before.status).toBe(404);
    expect(first).toEqual({ moved: 1, signed: 1, failed: 0 });
    expect(second).toEqual({ moved: 0, signed: 0, failed: 0 });
    expect(third).toEqual({ moved: 1, signed: 1, failed: 0 });
    expectStatus(read, 200);
    const checkpoint = read.body.data as SignedCheckpoint;
    expect(checkpoint).toMatchObject({ team_id: team.teamId, seq: 2 });
    expect((after.body.data as SignedCheckpoint).seq).toBe(3);
    const chain = await chainOf(team);
    expect(checkpoint.hash).toBe(chain[1]?.hash);
    // A checkpoint is not an audit record: the chain did not move for it.
    expect(chain.map((record) => record.event_type)).toEqual(['key.created', 'key.created', 'key.created']);
    const archived = readdirSync(path.join(archiveDir, 'checkpoints', `team=${team.teamId}`)).sort();
    expect(archived).toEqual(['seq=000000000002.json', 'seq=000000000003.json']);
    expect(JSON.parse(readFileSync(path.join(archiveDir, 'checkpoints', `team=${team.teamId}`, archived[0] as string), 'utf8'))).toEqual(checkpoint);
    const sent = published.filter((event) => event.team_id === team.teamId);
    expect(sent.map((event) => [event.type, (event.data as SignedCheckpoint).seq])).toEqual([
      ['audit.checkpoint', 2],
      ['audit.checkpoint', 3],
    ]);
    expect(verifyTrail(chain, after.body.data as SignedCheckpoint, await publicKeyPem())).toEqual({ ok: true, checked: 3, unchained: 0, beyond: 0 });
  });

  it('a run that fails part-way (the archive unreachable) leaves the team on the moved list, and the next run finishes it without signing again', async () => {
    // Arrange
    const team = await newTeam();
    let archiveUp = false;
    const real = folderArchiveWriter(archiveDir);
    const flaky = {
      ...checkpointPorts(),
      archive: { location: real.location, put: (key: string, body: Buffer) => (archiveUp ? real.put(key, body) : Promise.reject(new Error('S3 unreachable'))) },
    };

    // Act
    const failed = await checkpointMovedChains(flaky, [team.teamId]);
    const kept = (await call('get-audit-checkpoint', { key: team.key, query: { team_id: team.teamId } })).body.data as SignedCheckpoint;
    archiveUp = true;
    const finished = await checkpointMovedChains(flaky, [team.teamId]);
    const after = await checkpointMovedChains(flaky, [team.teamId]);

    // Assess
    expect(failed).toEqual({ moved: 1, signed: 1, failed: 1 });
    expect(finished).toEqual({ moved: 1, signed: 0, failed: 0 });
    expect(after).toEqual({ moved: 0, signed: 0, failed: 0 });
    expect(readdirSync(path.join(archiveDir, 'checkpoints', `team=${team.teamId}`))).toEqual([`seq=${String(kept.seq).padStart(12, '0')}.json`]);
    expect(published.filter((event) => event.team_id === team.teamId)).toHaveLength(1);
  });

  it("another team's checkpoint is 403; the public keys need no key", async () => {
    const team = await newTeam();
    const other = await newTeam();
    const refused = await call('get-audit-checkpoint', { key: team.key, query: { team_id: other.teamId } });
    expect(refused.status).toBe(403);
    expect(await publicKeyPem()).toContain('BEGIN PUBLIC KEY');
  });

  it("openssl alone checks a checkpoint's signature over its canonical JSON", async () => {
    // Arrange
    const team = await newTeam();
    await checkpointMovedChains(checkpointPorts(), [team.teamId]);
    const checkpoint = (await call('get-audit-checkpoint', { key: team.key, query: { team_id: team.teamId } })).body.data as SignedCheckpoint;
    writeFileSync(path.join(folder, 'key.pem'), await publicKeyPem());
    writeFileSync(path.join(folder, 'message'), checkpointMessage(checkpoint));
    writeFileSync(path.join(folder, 'signature.der'), Buffer.from(checkpoint.signature, 'base64'));
    const flipped = Buffer.from(checkpoint.signature, 'base64');
    flipped[flipped.length - 1] ^= 1;
    writeFileSync(path.join(folder, 'flipped.der'), flipped);

    // Act
    const openssl = (signature: string) =>
      spawnSync('openssl', ['dgst', '-sha256', '-verify', 'key.pem', '-signature', signature, 'message'], { cwd: folder, encoding: 'utf8' });
    const good = openssl('signature.der');
    const bad = openssl('flipped.der');

    // Assess
    expect(readFileSync(path.join(folder, 'message'), 'utf8')).toBe(
      `{"at":"${checkpoint.at}","hash":"${checkpoint.hash}","seq":${checkpoint.seq},"team_id":"${checkpoint.team_id}"}`,
    );
    expect([good.status, good.stdout.trim()]).toEqual([0, 'Verified OK']);
    expect(bad.status).toBe(1);
  });
});

describe('a data directory from before the chain', () => {
  it('gets the audit table its chain index at start (npm start on an older DATA_DIR), and the rest of the table as it was', async () => {
    // Arrange: the audit table as the version before the chain created it.
    const client = localDynamoClient(process.env.DYNAMODB_ENDPOINT ?? '');
    const name = `audit-before-chain-${randomUUID()}`;
    const before = { ...AUDIT_TABLE, globalSecondaryIndexes: AUDIT_TABLE.globalSecondaryIndexes.filter((index) => index.indexName !== CHAIN_INDEX) };
    await client.send(new CreateTableCommand(createTableInput(before, name)));

    // Act
    const created = await ensureTable(client, AUDIT_TABLE, name);
    const again = await ensureTable(client, AUDIT_TABLE, name);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));

    // Assess
    expect([created, again]).toEqual([false, false]);
    expect((Table?.GlobalSecondaryIndexes ?? []).map((index) => [index.IndexName, index.IndexStatus]).sort()).toEqual([
      ['byChain', 'ACTIVE'],
      ['byTeam', 'ACTIVE'],
    ]);
    expect(Table?.StreamSpecification?.StreamViewType).toBe('NEW_IMAGE');
  });
});
