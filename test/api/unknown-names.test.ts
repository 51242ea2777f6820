/**
 * An unknown body field or query parameter is refused by name, and a
 * misspelling of one of the request's own names says which one it likely
 * meant ("did you mean grace_period_days?"), as Stripe's API does.
 */
import { acceptedNames } from '../../lambda/http/accepted-names';
import { closestName } from '../../lambda/platform/closest-name';
import { regenerateKeyRequestSchema } from '../../lambda/routes/regenerate-api-key/schema';
import { listKeysRequestSchema } from '../../lambda/routes/list-api-keys/schema';
import { createKeyRequestSchema } from '../../lambda/routes/generate-api-key/schema';
import { call, createKey, teamPerSuite } from '../support/api';
import { expectStatus } from '../support/keys';

const CREATE_FIELDS = acceptedNames(createKeyRequestSchema(() => new Date()));

describe('closestName', () => {
  it.each([
    ['grace_days', ['key_id', 'grace_period_days', 'revoke_immediately'], 'grace_period_days'],
    ['keyId', ['key_id', 'days'], 'key_id'],
    ['KEY_ID', ['key_id', 'days'], 'key_id'],
    ['scope', CREATE_FIELDS, 'scopes'],
    ['domain', CREATE_FIELDS, 'domains'],
    ['ratelimit', CREATE_FIELDS, 'rate_limit'],
    ['expires', CREATE_FIELDS, 'expires_at'],
    ['expiry_at', CREATE_FIELDS, 'expires_at'],
    ['enviroment', CREATE_FIELDS, 'environment'],
    ['ip_whitlist', CREATE_FIELDS, 'ip_whitelist'],
    ['teamid', CREATE_FIELDS, 'team_id'],
    ['confirm', ['key_id', 'confirm_deletion', 'reason'], 'confirm_deletion'],
    ['env', CREATE_FIELDS, 'environment'],
    ['nmae', CREATE_FIELDS, 'name'],
    ['scpoes', CREATE_FIELDS, 'scopes'],
    ['revoke_immediatley', ['key_id', 'grace_period_days', 'revoke_immediately'], 'revoke_immediately'],
  ])('%s → %s', (unknown, known, meant) => {
    expect(closestName(unknown, known)).toBe(meant);
  });

  it.each([
    ['owner', CREATE_FIELDS],
    ['tier', CREATE_FIELDS],
    ['x', CREATE_FIELDS],
    ['id', CREATE_FIELDS],
    ['force', ['key_id', 'confirm_deletion', 'reason']],
    ['a'.repeat(65), ['a'.repeat(64)]],
  ])('%s → no suggestion', (unknown, known) => {
    expect(closestName(unknown, known)).toBeUndefined();
  });

  it("reads the names an object schema accepts, through a pipe (regenerate's default grace period)", () => {
    expect(acceptedNames(regenerateKeyRequestSchema)).toEqual(['key_id', 'grace_period_days', 'revoke_immediately', 'grace_mode', 'grace_minutes']);
    expect(acceptedNames(listKeysRequestSchema)).toEqual([
      'team_id',
      'environment',
      'type',
      'state',
      'identity_id',
      'unused_for_days',
      'expires_before',
      'limit',
      'cursor',
    ]);
  });
});

describe('an unknown name at the endpoints', () => {
  const team = teamPerSuite();

  it('a misspelt body field → 400 naming it, with the field it likely meant', async () => {
    // Prepare
    const target = await createKey(team);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_days: 3 } });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual([{ field: 'grace_days', issue: 'is not a field of this request (did you mean grace_period_days?)' }]);
    expect(response.body.error.message).toBe('The request is invalid: grace_days is not a field of this request (did you mean grace_period_days?).');
  });

  it('a misspelt query parameter → 400 calling it a parameter, with the one it likely meant', async () => {
    // Act
    const response = await call('list-api-keys', { key: team.key, query: { teamId: team.teamId } });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual(
      expect.arrayContaining([{ field: 'teamId', issue: 'is not a parameter of this request (did you mean team_id?)' }]),
    );
  });

  it('a name close to none of the fields → refused without a suggestion', async () => {
    // Act
    const response = await call('generate-api-key', {
      key: team.key,
      body: { name: 'x', type: 'sk', environment: 'live', team_id: team.teamId, colour: 'blue' },
    });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual([{ field: 'colour', issue: 'is not a field of this request' }]);
  });
});
