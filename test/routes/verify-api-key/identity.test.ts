/**
 * A valid key that names an identity is answered with the identity beside
 * it: id, external_id and meta. The process remembers an identity for 10
 * seconds (a hot key reads it once per period, not per verification), so a
 * change of meta made by another process shows within 10 s (one made
 * through this process, at once). A key of no identity gets exactly the
 * answer it got before identities existed; a refused key never shows one.
 */
import { call, createKey, teamPerSuite } from '../../support/api';
import { expectStatus, installManualClock, keysOf, restoreSystemClock } from '../../support/keys';
import { callVerify } from '../../verify/helpers';
import { VERIFIED_IDENTITY_TTL_MS } from '../../../lambda/store/identity-store';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../../lambda/composition/dynamo';
import { config } from '../../../lambda/composition/config';
import { IDENTITY } from '../../../lambda/store/entities/identity';

describe('POST /functions/v1/verify-api-key — the key’s identity', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  async function newIdentity(externalId: string, meta: Record<string, unknown>): Promise<string> {
    const made = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: externalId, meta } });
    expectStatus(made, 201);
    return made.body.data.id as string;
  }

  it('a valid key of an identity is answered with its id, external_id and meta', async () => {
    // Prepare
    const identityId = await newIdentity('acme', { plan: 'free', seats: 3 });
    const key = await createKey(team, { identity_id: identityId });

    // Act
    const response = await callVerify({ key: key.key });

    // Assess
    expectStatus(response, 200);
    expect(response.body.valid).toBe(true);
    expect(response.body.identity).toEqual({ id: identityId, external_id: 'acme', meta: { plan: 'free', seats: 3 } });
  });

  it('a key of no identity is answered with exactly the fields it had before; a refused key of an identity shows none', async () => {
    // Prepare
    const identityId = await newIdentity('acme-refused', { plan: 'free' });
    const plain = await createKey(team);
    const scoped = await createKey(team, { identity_id: identityId, scopes: ['enc.tiles:read'] });

    // Act
    const valid = await callVerify({ key: plain.key });
    const refused = await callVerify({ key: scoped.key, scope: 'interact.identify:read' });

    // Assess
    expect(keysOf(valid.body)).toEqual(['code', 'key', 'ratelimit', 'valid']);
    expect(refused.body).toEqual({ valid: false, code: 'SCOPE_DENIED' });
  });

  it('a change of meta made elsewhere shows within 10 s: until then the process answers what it read', async () => {
    // Prepare
    const clock = installManualClock();
    const identityId = await newIdentity('acme-changing', { plan: 'free' });
    const key = await createKey(team, { identity_id: identityId });
    await callVerify({ key: key.key });
    // Another process's change: written to the table, not through this process's store.
    await documentClient().send(
      new UpdateCommand({
        TableName: config.keyTableName,
        Key: IDENTITY.key(identityId),
        UpdateExpression: 'SET meta = :meta',
        ExpressionAttributeValues: { ':meta': '{"plan":"pro"}' },
      }),
    );

    // Act
    clock.advance(VERIFIED_IDENTITY_TTL_MS - 1);
    const remembered = await callVerify({ key: key.key });
    clock.advance(1);
    const reread = await callVerify({ key: key.key });

    // Assess: the meta read before the change, until 10 s after that read
    expect(remembered.body.identity.meta).toEqual({ plan: 'free' });
    expect(reread.body.identity.meta).toEqual({ plan: 'pro' });
  });

  it('a change made through this process shows at once', async () => {
    // Prepare
    const identityId = await newIdentity('acme-here', { plan: 'free' });
    const key = await createKey(team, { identity_id: identityId });
    await callVerify({ key: key.key });

    // Act
    expectStatus(await call('update-identity', { key: team.key, body: { identity_id: identityId, meta: { plan: 'pro' } } }), 200);
    const after = await callVerify({ key: key.key });

    // Assess
    expect(after.body.identity.meta).toEqual({ plan: 'pro' });
  });
});
