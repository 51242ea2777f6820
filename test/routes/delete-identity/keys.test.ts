/**
 * Keys naming an identity: `identity_id` at create and update (another
 * team's identity answered exactly as an unknown one, nothing written), the
 * identity's `key_count` and membership items moved in the same transaction
 * as the key, a deleted key leaving its identity, and delete-identity
 * refused with 409 while keys name it unless `detach_keys` takes them out
 * first. Under concurrency no key ever names an identity that is gone.
 */
import { call, createKey, newTeam, teamPerSuite, type TestTeam } from '../../support/api';
import { UNKNOWN_KEY_ID, expectStatus, manualClockPerTest, useValue } from '../../support/keys';
import { auditRecordsOfType, getItem, keyItem, lookupItemOf } from '../../support/store';
import { IDENTITY } from '../../../lambda/store/entities/identity';
import { IDENTITY_KEY } from '../../../lambda/store/entities/identity-key';
import { smokeTest } from '../../support/route-fixtures';

manualClockPerTest();
const team = teamPerSuite();

let externalIds = 0;
async function newIdentity(as: TestTeam = team): Promise<string> {
  const made = await call('create-identity', { key: as.key, body: { team_id: as.teamId, external_id: `customer-${++externalIds}` } });
  expectStatus(made, 201);
  return made.body.data.id as string;
}

const keyCountOf = async (identityId: string) => (await getItem(IDENTITY.key(identityId)))?.key_count ?? 0;
const membershipOf = (identityId: string, keyId: string) => getItem(IDENTITY_KEY.key(identityId, keyId));
const getKey = (keyId: string) => call('get-api-key', { key: team.key, query: { key_id: keyId } });
const update = (body: Record<string, unknown>) => call('update-api-key', { key: team.key, body });
const deleteIdentity = (body: Record<string, unknown>) => call('delete-identity', { key: team.key, body });
/** An error body without its request id, to compare two answers. */
const errorOf = (body: { error: Record<string, unknown> }) => ({ ...body.error, request_id: undefined });

describe('keys naming an identity', () => {
  it('a key created with identity_id shows it on create, read and list; its value lookup carries it; the identity counts the key', async () => {
    // Prepare
    const identityId = await newIdentity();

    // Act
    const created = await createKey(team, { name: 'Web', identity_id: identityId });
    const read = await getKey(created.id);
    const listed = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, limit: '100' } });
    const verified = await useValue(created.key);

    // Assess
    expect(created.data.identity_id).toBe(identityId);
    expect(read.body.data.identity_id).toBe(identityId);
    expect(listed.body.data.find((key: { id: string }) => key.id === created.id).identity_id).toBe(identityId);
    expect((await lookupItemOf(created.key))?.identity_id).toBe(identityId);
    expect(verified.valid).toBe(true);
    expect(await keyCountOf(identityId)).toBe(1);
    expect((await call('get-identity', { key: team.key, query: { identity_id: identityId } })).body.data.key_count).toBe(1);
    expect(await membershipOf(identityId, created.id)).toMatchObject({ key_id: created.id, identity_id: identityId });
    const [record] = await auditRecordsOfType(created.id, 'key.created');
    expect((record?.key as Record<string, unknown>).identity_id).toBe(identityId);
  });

  it('a key of no identity (identity_id left out, or null) answers as before: no identity_id field on create, read, its item or its lookup', async () => {
    // Act
    const created = await createKey(team, { name: 'Plain' });
    const read = await getKey(created.id);
    const createdWithNull = await createKey(team, { name: 'Plain too', identity_id: null });

    // Assess
    expect(createdWithNull.data).not.toHaveProperty('identity_id');
    expect(await keyItem(createdWithNull.id)).not.toHaveProperty('identity_id');
    expect(created.data).not.toHaveProperty('identity_id');
    expect(read.body.data).not.toHaveProperty('identity_id');
    expect(await keyItem(created.id)).not.toHaveProperty('identity_id');
    expect(await lookupItemOf(created.key)).not.toHaveProperty('identity_id');
  });

  it('another team’s identity answers exactly as an unknown one (404 naming identity_id) at create and at update, and nothing is written', async () => {
    // Prepare
    const other = await newTeam();
    const theirs = await newIdentity(other);
    const key = await createKey(team, { name: 'Mine' });
    const body = { name: 'Stray', type: 'sk', environment: 'live', team_id: team.teamId };

    // Act
    const createTheirs = await call('generate-api-key', { key: team.key, body: { ...body, identity_id: theirs } });
    const createUnknown = await call('generate-api-key', { key: team.key, body: { ...body, identity_id: UNKNOWN_KEY_ID } });
    const updateTheirs = await update({ key_id: key.id, identity_id: theirs });
    const updateUnknown = await update({ key_id: key.id, identity_id: UNKNOWN_KEY_ID });

    // Assess
    expectStatus(createTheirs, 404);
    expectStatus(updateTheirs, 404);
    expect(errorOf(createTheirs.body)).toEqual({ ...errorOf(createUnknown.body), details: [{ field: 'identity_id', issue: `not found: ${theirs}` }] });
    expect(errorOf(updateTheirs.body)).toEqual({ ...errorOf(updateUnknown.body), details: [{ field: 'identity_id', issue: `not found: ${theirs}` }] });
    expect(createTheirs.body.error.message).toBe('No identity with this id exists in the calling key’s team.');
    expect(await keyCountOf(theirs)).toBe(0);
    expect((await keyItem(key.id))?.revision).toBe(1);
    const listed = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, limit: '100' } });
    expect(listed.body.data.filter((listedKey: { name: string }) => listedKey.name === 'Stray')).toEqual([]);
  });

  it('update-api-key moves a key into an identity, to another, and out of it (null); counts, lookups and key.updated records follow', async () => {
    // Prepare
    const [first, second] = [await newIdentity(), await newIdentity()];
    const key = await createKey(team, { name: 'Mover' });

    // Act
    const joined = await update({ key_id: key.id, identity_id: first });
    const moved = await update({ key_id: key.id, identity_id: second });
    const counts = [await keyCountOf(first), await keyCountOf(second)];
    const left = await update({ key_id: key.id, identity_id: null });
    const again = await update({ key_id: key.id, identity_id: null });

    // Assess
    expect([joined.body.data.identity_id, moved.body.data.identity_id]).toEqual([first, second]);
    expect(counts).toEqual([0, 1]);
    expect(left.body.data).not.toHaveProperty('identity_id');
    expect(await lookupItemOf(key.key)).not.toHaveProperty('identity_id');
    expect([await keyCountOf(first), await keyCountOf(second)]).toEqual([0, 0]);
    expect([await membershipOf(first, key.id), await membershipOf(second, key.id)]).toEqual([undefined, undefined]);
    expect(again.headers.ETag).toBe(left.headers.ETag);
    const changes = (await auditRecordsOfType(key.id, 'key.updated')).map((record) => record.changes);
    expect(changes).toEqual([
      { identity_id: { before: null, after: first } },
      { identity_id: { before: first, after: second } },
      { identity_id: { before: second, after: null } },
    ]);
  });

  it('delete-identity while keys name it → 409 naming detach_keys, nothing changes; detach_keys: true takes each out (key.updated) and deletes it', async () => {
    // Prepare
    const identityId = await newIdentity();
    const web = await createKey(team, { name: 'Web app', identity_id: identityId });
    const mobile = await createKey(team, { name: 'Mobile app', identity_id: identityId });

    // Act
    const refused = await deleteIdentity({ identity_id: identityId });
    const stillThere = await call('get-identity', { key: team.key, query: { identity_id: identityId } });
    const deleted = await deleteIdentity({ identity_id: identityId, detach_keys: true });

    // Assess
    expectStatus(refused, 409);
    expect(refused.body.error.message).toBe(
      '2 keys name this identity: change their identity_id, delete them, or send detach_keys: true to take them out of it first.',
    );
    expect(refused.body.error.details).toEqual([{ field: 'detach_keys', issue: 'the identity has 2 keys' }]);
    expectStatus(stillThere, 200);
    expectStatus(deleted, 200);
    expect(deleted.body.data).toEqual({ deleted: true, id: identityId });
    expect(await getItem(IDENTITY.key(identityId))).toBeUndefined();
    for (const key of [web, mobile]) {
      expect((await getKey(key.id)).body.data).not.toHaveProperty('identity_id');
      expect((await useValue(key.key)).valid).toBe(true);
      expect((await auditRecordsOfType(key.id, 'key.updated')).map((record) => record.changes)).toEqual([{ identity_id: { before: identityId, after: null } }]);
    }
  });

  it('list-api-keys with identity_id answers only the keys that name it (none for an unknown id, a deleted key none)', async () => {
    // Prepare
    const [first, second] = [await newIdentity(), await newIdentity()];
    const web = await createKey(team, { name: 'First web', identity_id: first });
    const mobile = await createKey(team, { name: 'First mobile', identity_id: first });
    await createKey(team, { name: 'Second', identity_id: second });
    await createKey(team, { name: 'Nobody’s' });
    expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: mobile.id, confirm_deletion: true } }), 200);
    const listed = (identityId: string, state?: string) =>
      call('list-api-keys', { key: team.key, query: { team_id: team.teamId, identity_id: identityId, ...(state ? { state } : {}) } });

    // Act
    const ofFirst = await listed(first);
    const ofFirstDeleted = await listed(first, 'deleted');
    const ofUnknown = await listed(UNKNOWN_KEY_ID);
    const malformed = await listed('not-an-identity');

    // Assess
    expect(ofFirst.body.data.map((key: { id: string }) => key.id)).toEqual([web.id]);
    expect(ofFirstDeleted.body.data).toEqual([]);
    expect(ofUnknown.body.data).toEqual([]);
    expectStatus(malformed, 400);
    expect(malformed.body.error.details).toEqual([{ field: 'identity_id', issue: 'must be a 26-character identity id (ULID)' }]);
  });

  it('a deleted key leaves its identity: the identity is then deleted without detach_keys', async () => {
    // Prepare
    const identityId = await newIdentity();
    const key = await createKey(team, { name: 'Short-lived', identity_id: identityId });

    // Act
    const keyDeleted = await call('delete-api-key', { key: team.key, body: { key_id: key.id, confirm_deletion: true } });
    const identityDeleted = await deleteIdentity({ identity_id: identityId });

    // Assess
    expectStatus(keyDeleted, 200);
    expectStatus(identityDeleted, 200);
    expect(await keyItem(key.id)).not.toHaveProperty('identity_id');
  });

  it('10 concurrent creates naming one identity all succeed and it counts 10 keys', async () => {
    // Prepare
    const identityId = await newIdentity();

    // Act
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        call('generate-api-key', {
          key: team.key,
          body: { name: `Burst ${index}`, type: 'sk', environment: 'live', team_id: team.teamId, identity_id: identityId },
        }),
      ),
    );

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 201));
    expect(await keyCountOf(identityId)).toBe(10);
  });

  it('a key created naming an identity while it is deleted: either the key 201 and the delete 409, or the delete 200 and the key 404; never a key naming a gone identity', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 6; round++) {
      // Prepare
      const identityId = await newIdentity();

      // Act
      const [made, deleted] = await Promise.all([
        call('generate-api-key', {
          key: team.key,
          body: { name: `Racer ${round}`, type: 'sk', environment: 'live', team_id: team.teamId, identity_id: identityId },
        }),
        deleteIdentity({ identity_id: identityId }),
      ]);

      // Assess
      outcomes.push(`${made.status}/${deleted.status}`);
      expect([
        [201, 409],
        [404, 200],
      ]).toContainEqual([made.status, deleted.status]);
      const identity = await getItem(IDENTITY.key(identityId));
      if (made.status === 201) expect(identity?.key_count).toBe(1);
      else expect(identity).toBeUndefined();
    }
    expect(outcomes).toHaveLength(6);
  });
});

// Its fixture's valid request (lambda/routes/delete-identity/fixture.ts) answers as documented.
smokeTest('delete-identity');
